import { AppError, handoffOf } from '../../domain/index.ts';
import { getSessionRow } from '../../db/repos/sessions.ts';
import { claimDeskAndResume } from './desk-claim.ts';
import { depsOf, type ServiceDeps, type SessionDto } from './session-dto.ts';

export interface ContinueHereInput {
  sessionId: string;
  /** The desk process the user saw and confirmed ending (pid + start): a different one is not ended. */
  pid: number;
  /** Optional first message, delivered once after the take-over (the queue holds it meanwhile). */
  text?: string;
  source: 'web' | 'telegram';
  /** Idempotency key of the source (a repeated Telegram update stores the message once). */
  sourceKey?: string;
}

/**
 * "Continue here": a session whose native CLI runs in a terminal at its computer is taken over. The
 * agent ends that CLI the way a person would and verifies its exit (node-agent `handoff/`), then
 * resumes exactly the same id in Bria's tmux; a message sent with it waits in the queue and is
 * delivered once the session is Ready. Refused when nothing runs at the desk, when the process on
 * record is not the one the user confirmed, or when the computer's agent cannot take over.
 */
export async function continueHere(deps: ServiceDeps, input: ContinueHereInput): Promise<SessionDto> {
  const { db } = depsOf(deps);
  const row = await getSessionRow(db, input.sessionId);
  if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
  const handoff = handoffOf(row.handoff);
  if (handoff === 'taking_over') throw new AppError('CONFLICT', { message: 'a take-over is already running', userMessage: 'sessions.taking_over' });
  if (handoff !== 'desk' || row.deskPid === null)
    throw new AppError('ILLEGAL_TRANSITION', { message: 'nothing runs at the computer', userMessage: 'sessions.not_at_desk' });
  if (row.deskPid !== input.pid) throw new AppError('CONFLICT', { message: 'another process holds the session now', userMessage: 'sessions.desk_changed' });
  if (row.state !== 'Archived' && row.state !== 'ResumeFailed') {
    throw new AppError('ILLEGAL_TRANSITION', { message: `a session in ${row.state} is not taken over`, userMessage: 'sessions.running_at_desk' });
  }
  return claimDeskAndResume(deps, row, input, {
    capability: 'handoff',
    unsupported: { message: 'agent cannot take over', userMessage: 'sessions.handoff_unsupported' },
    event: 'continue_requested',
  });
}
