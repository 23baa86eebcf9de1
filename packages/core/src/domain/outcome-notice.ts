import type { MessageStatus } from './queue.ts';

/**
 * Why a message's turn ended without a final, as the chat is told (one notice per message and
 * outcome). `crash`: the CLI died while it held the message and nothing proves what became of it;
 * `stopped`: Stop ended it; `interrupted`: the CLI reported the turn interrupted without a Stop from
 * Bria (e.g. Esc on the computer); `api_error`: the model's API ended it with an error;
 * `not_delivered_closed` / `not_delivered_resume`: it waited in the queue and the session closed or
 * could not be resumed; `stop_unconfirmed`: Stop was asked, the CLI had taken the message, and the
 * stop ended without the CLI's confirmation (`stop_unresolved`); `unknown`: the hand-over was never
 * confirmed; `failed`: any other failure.
 */
export const OUTCOME_REASONS = [
  'crash',
  'stopped',
  'stop_unconfirmed',
  'interrupted',
  'api_error',
  'not_delivered_closed',
  'not_delivered_resume',
  'unknown',
  'failed',
] as const;
export type OutcomeReason = (typeof OUTCOME_REASONS)[number];

/**
 * The notice a message gets when its outcome becomes `to` (with the outcome's stored detail), or null
 * for none: a completed message, and any message whose turn has a final (its own or its main
 * request's), is answered by that final.
 */
export function outcomeNoticeReason(o: { to: MessageStatus; detail: string | null; turnHasFinal: boolean }): OutcomeReason | null {
  if (o.turnHasFinal) return null;
  switch (o.to) {
    case 'pending':
    case 'leased':
    case 'accepted':
    case 'completed':
    // The user cancelled it and was answered then: no notice.
    case 'cancelled':
      return null;
    case 'terminal_failed':
      if (o.detail === 'interrupted') return 'stopped';
      if (o.detail === 'turn_api_error') return 'api_error';
      if (o.detail === 'turn_interrupted' || o.detail === 'evidence_unknown') return 'interrupted';
      return 'failed';
    case 'unknown':
      if (o.detail === 'stop_unconfirmed') return 'stop_unconfirmed';
      return o.detail === 'evidence_unknown' ? 'crash' : 'unknown';
    case 'failed':
      if (o.detail === 'session_closed') return 'not_delivered_closed';
      if (o.detail === 'resume_failed') return 'not_delivered_resume';
      return 'failed';
    default:
      return o.to satisfies never;
  }
}

/** The Telegram chat and message a message came from (`tg:<chat id>:<message id>`), or null for another source. */
export function telegramOrigin(source: string, sourceKey: string | null): { chatId: bigint; messageId: number } | null {
  if (source !== 'telegram' || !sourceKey) return null;
  const m = /^tg:(-?\d+):(\d+)$/.exec(sourceKey);
  if (!m) return null;
  return { chatId: BigInt(m[1] as string), messageId: Number(m[2]) };
}
