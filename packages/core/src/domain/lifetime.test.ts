import { describe, expect, it } from 'vitest';
import { DEFAULT_LIFETIME, deadlineFrom, isLifetimeDue, isLifetimeSetting, LIFETIME_SETTINGS, lifetimeFromHours, lifetimeHours } from './lifetime.ts';
import { transition } from './session-machine.ts';
import { SESSION_EVENT_TYPES, SESSION_STATES } from './session-types.ts';
import { onExpiry } from './testing/expiry-rule.ts';
import { sampleEvent, snapshotIn, T0 } from './testing/fixtures.ts';

const H = 3_600_000;

describe('lifetime settings', () => {
  it('allows exactly never/6/12/24/48 h with 12 h by default', () => {
    expect(LIFETIME_SETTINGS).toEqual(['never', '6h', '12h', '24h', '48h']);
    expect(DEFAULT_LIFETIME).toBe('12h');
    expect(LIFETIME_SETTINGS.map(lifetimeHours)).toEqual([null, 6, 12, 24, 48]);
    expect(isLifetimeSetting('12h')).toBe(true);
    expect(isLifetimeSetting('3h')).toBe(false);
    expect(lifetimeFromHours(24)).toBe('24h');
    expect(lifetimeFromHours(null)).toBe('never');
    expect(lifetimeFromHours(7)).toBeNull();
  });

  it('counts the deadline from the start it is given; never has none', () => {
    expect(deadlineFrom(T0, '6h')).toEqual(new Date(T0.getTime() + 6 * H));
    expect(deadlineFrom(T0, '48h')).toEqual(new Date(T0.getTime() + 48 * H));
    expect(deadlineFrom(T0, 'never')).toBeNull();
    expect(isLifetimeDue(new Date(T0.getTime() + 1), T0)).toBe(false);
    expect(isLifetimeDue(T0, T0)).toBe(true);
    expect(isLifetimeDue(null, T0)).toBe(false);
  });

  it('activity never extends it: only a successful resume (or archiving) changes the deadline', () => {
    const deadline = new Date(T0.getTime() + 5 * H);
    for (const state of SESSION_STATES) {
      for (const type of SESSION_EVENT_TYPES) {
        const r = transition(snapshotIn(state, { lifetimeDeadline: deadline }), sampleEvent(type), T0);
        if (!r.ok || ['Archived', 'Resuming'].includes(r.next.state) || type === 'resume_confirmed') continue;
        expect(r.next.lifetimeDeadline, `${state} + ${type}`).toEqual(deadline);
      }
    }
  });
});

describe('onExpiry agrees with the transition table', () => {
  const cases = SESSION_STATES.flatMap((state) => [false, true].map((work) => ({ state, work })));
  it.each(cases)('$state with accepted work: $work', ({ state, work }) => {
    const decision = onExpiry(state, work);
    const snap = snapshotIn(state, { queue: { inFlight: false, waiting: work } });
    const r = transition(snap, { type: 'lifetime_expired' }, T0);
    switch (decision) {
      case 'close_now':
        expect(r).toMatchObject({ ok: true, next: { state: 'Closing' } });
        break;
      case 'close_after_work':
        expect(r).toMatchObject({ ok: true, next: { state: 'ClosingAfterWork' } });
        break;
      case 'finish_backlog':
      case 'mark_expired':
        expect(r).toMatchObject({ ok: true, next: { state, lifetimeExpired: true } });
        break;
      case 'not_applicable':
        expect(r.ok).toBe(false);
        break;
      default:
        decision satisfies never;
    }
  });
});
