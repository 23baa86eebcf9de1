import { describe, expect, it } from 'vitest';
import { AppError, isAppError } from './errors.ts';
import { acceptRefusalToAppError, refusalToAppError } from './refusals.ts';
import { canAcceptMessage, transition } from './session-machine.ts';
import { sampleEvent, snapshotIn, T0 } from './testing/fixtures.ts';

describe('AppError', () => {
  it('carries code, message, user message and cause', () => {
    const cause = new Error('disk full');
    const e = new AppError('PERSIST_FAILED', { message: 'final save failed', userMessage: 'errors.final_save', cause });
    expect(e).toBeInstanceOf(Error);
    expect(isAppError(e)).toBe(true);
    expect({ name: e.name, code: e.code, message: e.message, userMessage: e.userMessage, cause: e.cause }).toEqual({
      name: 'AppError',
      code: 'PERSIST_FAILED',
      message: 'final save failed',
      userMessage: 'errors.final_save',
      cause,
    });
  });
});

describe('refusals as AppErrors', () => {
  it('maps illegal moves, stale buttons and stale generations', () => {
    const illegal = transition(snapshotIn('Archived'), sampleEvent('stop_requested'), T0);
    if (illegal.ok) throw new Error('expected refusal');
    expect(refusalToAppError(illegal.refusal).code).toBe('ILLEGAL_TRANSITION');
    const stale = transition(snapshotIn('Running'), { type: 'stop_requested', cardVersion: 1 }, T0);
    if (stale.ok) throw new Error('expected refusal');
    expect(refusalToAppError(stale.refusal).code).toBe('STALE_BUTTON');
    const oldGen = transition(snapshotIn('Running'), sampleEvent('turn_started', 1), T0);
    if (oldGen.ok) throw new Error('expected refusal');
    expect(refusalToAppError(oldGen.refusal).code).toBe('STALE_GENERATION');
  });

  it('maps refused input to LIFETIME_EXPIRED or SESSION_NOT_ACCEPTING', () => {
    const expired = canAcceptMessage(snapshotIn('Running', { lifetimeExpired: true }));
    const closed = canAcceptMessage(snapshotIn('Archived'));
    if (expired.ok || closed.ok) throw new Error('expected refusal');
    expect(acceptRefusalToAppError(expired).code).toBe('LIFETIME_EXPIRED');
    expect(acceptRefusalToAppError(closed).code).toBe('SESSION_NOT_ACCEPTING');
  });
});
