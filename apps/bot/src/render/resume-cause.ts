import type { MessageKey, Translator } from '@bria/core/i18n';

/**
 * A failed resume's cause as the user reads it. The computer reports what the CLI did in its own
 * words ("CLI exited before its prompt: No conversation found with session ID: …"); the notice says
 * what that means and keeps the computer's text as the detail, so nothing is hidden. Causes the bot
 * wrote itself are already in the user's words and pass through unchanged.
 */
const RULES: { test: RegExp; key: MessageKey }[] = [
  { test: /no conversation found|not found.*session|session.*not found/i, key: 'resume.causeNoConversation' },
  { test: /does not confirm the session id/i, key: 'resume.causeOtherSession' },
  { test: /no journal of its own/i, key: 'resume.causeNoJournal' },
  { test: /did not reach its prompt|timed? ?out/i, key: 'resume.causeNotReady' },
  { test: /exited before its prompt|did not start|process_exited/i, key: 'resume.causeCliEnded' },
  { test: /^not started again/i, key: 'resume.causeMayExist' },
];

const OWN: MessageKey[] = ['resume.causeOffline', 'resume.causeNoNativeId', 'resume.causeNativeGone', 'resume.causeInterrupted', 'resume.causeUnexpected'];

export function resumeCauseInWords(t: Translator, cause: string): string {
  if (OWN.some((k) => t(k) === cause)) return cause;
  const rule = RULES.find((r) => r.test.test(cause));
  const words = t(rule?.key ?? 'resume.causeComputer');
  const detail = cause === 'process_exited' ? '' : cause.replace(/\s+/g, ' ').trim().slice(0, 300);
  return detail ? t('resume.causeWithDetail', { words, detail }) : words;
}
