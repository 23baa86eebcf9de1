import { MESSAGE_CHANGE_REFUSAL_TEXT, MESSAGE_STATUSES } from '@bria/core/domain';
import { describe, expect, it } from 'vitest';
import { LOCALES, translator } from '../i18n/catalog.ts';
import { changeRefusalKey, type HeldBy, heldByOf, placeCancelled, type QueueLineInput, queueLine } from './queue-line.ts';

const msg = (seq: number, status: QueueLineInput['message']['status'], outcomeDetail: string | null = null) => ({ id: `m${seq}`, seq, status, outcomeDetail });
const line = (o: Partial<QueueLineInput> & Pick<QueueLineInput, 'message'>) => queueLine({ items: [o.message], wait: null, heldBy: null, ...o });

describe('a message’s place in the queue, in words', () => {
  it('every status has a state and words in every language, with no placeholder left', () => {
    for (const locale of LOCALES) {
      const t = translator(locale);
      for (const status of MESSAGE_STATUSES) {
        const l = line({ message: msg(1, status, 'the CLI ended') });
        expect(t(l.key, l.vars), `${locale} ${status}`).not.toMatch(/\{\w+\}|^conv\./);
      }
    }
  });

  it('only a waiting or held message may be changed', () => {
    const changeable = MESSAGE_STATUSES.filter((s) => line({ message: msg(1, s) }).changeable);
    expect(changeable).toEqual(['pending']);
  });

  it.each([
    ['leased', 'typing'],
    ['accepted', 'delivered'],
    ['completed', 'answered'],
    ['terminal_failed', 'failed'],
    ['failed', 'failed'],
    ['unknown', 'unknown'],
    ['cancelled', 'cancelled'],
  ] as const)('%s reads as %s', (status, state) => {
    expect(line({ message: msg(1, status) }).state).toBe(state);
  });

  it('failed and unknown say the reason when there is one', () => {
    const t = translator('en');
    const u = line({ message: msg(2, 'unknown', 'the CLI died before its receipt') });
    expect(t(u.key, u.vars)).toBe('Unknown whether the CLI got it (not resent): the CLI died before its receipt');
    const f = line({ message: msg(2, 'failed') });
    expect(t(f.key, f.vars)).toBe('Failed.');
  });

  it('the head held by an open dialog says which dialog; without the facts it still says a request is open', () => {
    const t = translator('en');
    const head = msg(3, 'pending');
    const held = (heldBy: HeldBy, reason: string) => {
      const l = line({ message: head, wait: { messageId: head.id, reason }, heldBy });
      return [l.state, t(l.key, l.vars)];
    };
    expect(held({ kind: 'prompt', tool: 'Bash' }, 'prompt_open')).toEqual([
      'held',
      'Held while the permission request for Bash is open: answer it and this goes next.',
    ]);
    expect(held({ kind: 'question' }, 'prompt_open')[1]).toMatch(/question is open/);
    expect(held(null, 'prompt_open')).toEqual(['held', t('conv.queuedWait.prompt_open')]);
    expect(held({ kind: 'start_dialog' }, 'session_not_ready')[1]).toMatch(/start dialog is open/);
    // Not ready without a dialog is waiting, not held.
    expect(held(null, 'session_not_ready')).toEqual(['waiting', t('conv.queuedWait.session_not_ready')]);
    expect(held(null, 'predecessor_in_flight')).toEqual(['waiting', t('conv.queuedWait.predecessor_in_flight')]);
  });

  it('a message behind another names it; the head on its way is being handed over', () => {
    const t = translator('en');
    const items = [msg(4, 'pending'), msg(5, 'cancelled'), msg(6, 'pending')];
    const behind = queueLine({ message: items[2]!, items, wait: { messageId: 'm4', reason: 'prompt_open' }, heldBy: null });
    expect(t(behind.key, behind.vars)).toBe('Waits for message #4 before it.');
    const head = queueLine({ message: items[0]!, items, wait: { messageId: 'm4', reason: null }, heldBy: null });
    expect(t(head.key)).toBe('Being handed to the agent…');
  });

  it('each refusal of the service has its own words; anything else is left to the generic error text', () => {
    const t = translator('en');
    for (const text of Object.values(MESSAGE_CHANGE_REFUSAL_TEXT)) {
      const key = changeRefusalKey(text);
      expect(key, text).not.toBeNull();
      expect(t(key!)).not.toMatch(/^conv\./);
    }
    expect(t(changeRefusalKey(MESSAGE_CHANGE_REFUSAL_TEXT.already_delivered)!)).toBe('Already delivered: the CLI has it, so it was not changed.');
    expect(changeRefusalKey('The folder does not exist.')).toBeNull();
    expect(changeRefusalKey(null)).toBeNull();
  });
});

describe('which dialog holds the queue', () => {
  const prompt = (kind: string, toolName: string, resolvedAt: string | null) => ({ kind, toolName, resolvedAt });
  it('the start dialog first, else the oldest prompt still open, named by its kind', () => {
    expect(heldByOf('Do you trust the files in this folder?', [prompt('tool', 'Bash', null)])).toEqual({ kind: 'start_dialog' });
    expect(heldByOf(null, [prompt('tool', 'Edit', '2026-01-01T00:00:00Z'), prompt('tool', 'Bash', null)])).toEqual({ kind: 'prompt', tool: 'Bash' });
    expect(heldByOf(null, [prompt('question', 'AskUserQuestion', null)])).toEqual({ kind: 'question' });
    expect(heldByOf(null, [prompt('dialog', 'x', null)])).toEqual({ kind: 'dialog' });
    expect(heldByOf(null, [prompt('tool', 'Bash', '2026-01-01T00:00:00Z')])).toBeNull();
    expect(heldByOf(null, undefined)).toBeNull();
  });
});

describe('where a cancelled message stands among the journal’s turns', () => {
  const items = [msg(1, 'completed'), msg(2, 'cancelled'), msg(3, 'completed'), msg(4, 'cancelled'), msg(5, 'cancelled')].map((m) => ({ ...m }));
  const turns = [
    { ref: 'a', messageId: 'm1' },
    { ref: 'outside', messageId: null },
    { ref: 'b', messageId: 'm3' },
  ];
  it('after the turn of the newest message sent before it', () => {
    const placed = placeCancelled(turns, items, true);
    // Sent after every turn shown: with the queued ones at the end, in the order sent.
    expect([...placed.entries()].map(([k, v]) => [k, v.map((m) => m.seq)])).toEqual([
      ['a', [2]],
      ['tail', [4, 5]],
    ]);
  });
  it('before the first turn only when the journal shows all of them', () => {
    const late = [{ ref: 'b', messageId: 'm3' }];
    expect(
      placeCancelled(late, [msg(2, 'cancelled'), msg(3, 'completed')], true)
        .get('')
        ?.map((m) => m.seq),
    ).toEqual([2]);
    expect(placeCancelled(late, [msg(2, 'cancelled'), msg(3, 'completed')], false).size).toBe(0);
    // No turn at all yet (the first message cancelled): at the end with whatever is queued.
    expect(
      placeCancelled([], [msg(1, 'cancelled'), msg(2, 'pending')], true)
        .get('tail')
        ?.map((m) => m.seq),
    ).toEqual([1]);
  });
});
