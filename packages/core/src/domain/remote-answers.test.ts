import { describe, expect, it } from 'vitest';
import { AGENT_FEATURES } from '../protocol/messages.ts';
import { REMOTE_ANSWERS_OFF_FEATURES, REMOTE_ANSWERS_OFF_REASONS, remoteAnswersOff } from './remote-answers.ts';

describe('remote answers off, as an agent hello says it', () => {
  it.each(REMOTE_ANSWERS_OFF_REASONS)('%s is read back from the capabilities', (reason) => {
    expect(remoteAnswersOff(['read_journal', `remote_answers_off:${reason}`, 'handoff'])).toBe(reason);
  });
  it('on when the hello names none (or an unknown one)', () => {
    expect(remoteAnswersOff(['answer_permission', 'handoff'])).toBeNull();
    expect(remoteAnswersOff(['remote_answers_off:other'])).toBeNull();
  });
  it('every reason is an agent feature of the protocol', () => {
    for (const f of REMOTE_ANSWERS_OFF_FEATURES) expect(AGENT_FEATURES).toContain(f);
  });
});
