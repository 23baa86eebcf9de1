import { AppError, handoffOf } from '../../domain/index.ts';
import { getSessionRow } from '../../db/repos/sessions.ts';
import { claimDeskAndResume } from './desk-claim.ts';
import { depsOf, type ServiceDeps, type SessionDto } from './session-dto.ts';

export interface AdoptInPlaceInput {
  sessionId: string;
  /** The desk process the user saw (pid): the agent adopts exactly it, with its start on record. */
  pid: number;
  /** Optional first message, typed into the adopted pane once the session is Ready (the queue holds it). */
  text?: string;
  source: 'web' | 'telegram';
  sourceKey?: string;
}

/**
 * "Adopt in place": a session whose CLI runs, begun by hand, in a tmux pane of the same user is made
 * one of Bria's sessions without restarting that CLI. The agent checks the process again (it alone
 * holds the id, it is the user's, it runs in the pane its own `TMUX`/`TMUX_PANE` name) and types
 * into that pane like into its own (`adopt_in_place`, node-agent `handoff/adopt.ts`). Refused when
 * nothing runs at the desk, when it runs outside tmux, when the process on record is not the one the
 * user saw, or when the computer's agent cannot adopt.
 */
export async function adoptInPlace(deps: ServiceDeps, input: AdoptInPlaceInput): Promise<SessionDto> {
  const { db } = depsOf(deps);
  const row = await getSessionRow(db, input.sessionId);
  if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
  const handoff = handoffOf(row.handoff);
  if (handoff === 'adopting' || handoff === 'taking_over')
    throw new AppError('CONFLICT', { message: `a ${handoff} is already running`, userMessage: 'sessions.taking_over' });
  if (handoff !== 'desk' || row.deskPid === null || row.deskStart === null)
    throw new AppError('ILLEGAL_TRANSITION', { message: 'nothing runs at the computer', userMessage: 'sessions.not_at_desk' });
  if (row.deskPid !== input.pid) throw new AppError('CONFLICT', { message: 'another process holds the session now', userMessage: 'sessions.desk_changed' });
  if (!row.deskInTmux) throw new AppError('ILLEGAL_TRANSITION', { message: 'the desk CLI runs outside tmux', userMessage: 'sessions.adopt_not_in_tmux' });
  if (row.state !== 'Archived' && row.state !== 'ResumeFailed') {
    throw new AppError('ILLEGAL_TRANSITION', { message: `a session in ${row.state} is not adopted`, userMessage: 'sessions.running_at_desk' });
  }
  return claimDeskAndResume(deps, row, input, {
    capability: 'adopt_in_place',
    unsupported: { message: 'agent cannot adopt in place', userMessage: 'sessions.adopt_unsupported' },
    event: 'adopt_requested',
  });
}
