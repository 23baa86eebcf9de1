import { describe, expect, it } from 'vitest';
import { finishedSince, sessionOnScreen } from './toast-rules.ts';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

describe('toast rules', () => {
  it('finds the session on screen from the path', () => {
    expect(sessionOnScreen(`/sessions/${A}`)).toBe(A);
    expect(sessionOnScreen('/')).toBeNull();
    expect(sessionOnScreen(`/nodes/${A}`)).toBeNull();
  });
  it('toasts a session leaving Running for Ready, unless it is on screen or this is the first look', () => {
    const prev = new Map([
      [A, 'Running'],
      [B, 'Running'],
    ]);
    const next = [
      { id: A, state: 'Ready' },
      { id: B, state: 'Ready' },
    ];
    expect(finishedSince(prev, next, null)).toEqual([A, B]);
    expect(finishedSince(prev, next, A)).toEqual([B]);
    expect(finishedSince(null, next, null)).toEqual([]);
    expect(finishedSince(new Map([[A, 'Ready']]), [{ id: A, state: 'Ready' }], null)).toEqual([]);
    expect(finishedSince(new Map([[A, 'Running']]), [{ id: A, state: 'Stopping' }], null)).toEqual([]);
  });
});
