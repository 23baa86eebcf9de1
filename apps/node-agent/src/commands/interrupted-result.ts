import { closeJournal } from './record-checks.ts';
import { journalFilesOnDisk } from './journal-content.ts';
import type { Result, SessionRuntime } from './session-runtime.ts';

/**
 * The answer for a session command an earlier run of this agent died running (its id is in the
 * ledger as received, never done). Nothing is run again; only what is known is reported:
 * - `deliver`: from the delivery mark (see `DeliveryMark`): `not_typed` (typed: false, the hub hands
 *   the message over again), `accepted` with the native ref of the receipt the agent bound, or
 *   `unknown` (never typed again, never guessed, never matched by text afterwards);
 * - `start_session` / `resume_session`: a CLI that was never confirmed (no identity recorded) is
 *   ended, since nothing was ever typed into it and nobody could bind it, and the session is marked
 *   exited, so the hub sees a verified exit and recovers it (see the engine's command-result);
 * - `close_session`, `interrupt`, `attach_session`: interrupted; the hub re-issues what it needs.
 */
export async function interruptedResult(
  rt: SessionRuntime,
  c: { command: string; sessionId?: string; messageId?: string; generation?: number },
): Promise<Result> {
  const sessionId = c.sessionId;
  if (!sessionId) return { ok: false, error: 'interrupted by an agent restart' };
  const rec = rt.registry.get(sessionId);
  if (c.command === 'deliver') {
    const messageId = c.messageId;
    if (!messageId) return { ok: false, delivery: 'unknown', error: 'interrupted by an agent restart' };
    const mark = rec?.deliveries?.find((d) => d.messageId === messageId);
    const turn = rec?.turns.find((t) => t.messageId === messageId);
    const nativeRef = mark?.nativeRef ?? turn?.nativeRef;
    if (nativeRef) return { ok: true, delivery: 'accepted', messageId, nativeRef, evidence: 'receipt bound before the agent stopped' };
    if (mark || rec?.unconfirmed.includes(messageId))
      return { ok: false, delivery: 'unknown', messageId, error: 'the agent stopped between the paste and its receipt' };
    // A mark is written before every paste; without one (in a record that keeps marks) nothing was typed.
    if (!rec || rec.deliveries) return { ok: false, typed: false, delivery: 'not_typed', messageId, error: 'the agent stopped before typing' };
    return { ok: false, delivery: 'unknown', messageId, error: 'interrupted by an agent restart (no delivery marks in this record)' };
  }
  const launched = rec ? rt.sessionName(sessionId, rec.generation) : null;
  if (
    (c.command === 'start_session' || c.command === 'resume_session') &&
    rec &&
    rec.identity?.tmuxSession !== launched &&
    rec.status === 'live' &&
    c.generation === rec.generation
  ) {
    // Never confirmed (no identity recorded, or still the one of the dead process a resume was
    // replacing): no key was ever sent to it. Its tmux session is ended (a CLI started again
    // under the same id beside it would compete for the same journal).
    const name = launched!;
    const leftover = await rt.o.tmux.killSession(name).then(
      () => true,
      () => false,
    );
    rt.registry.put(sessionId, { status: 'exited' });
    // What its journal holds, as a close reports it: a session closed meanwhile is archived on this
    // exit, and `none` says there was nothing to archive.
    const journal = closeJournal(rec, null, rec.archivedJournal, journalFilesOnDisk);
    return {
      ok: false,
      error: `interrupted by an agent restart before the CLI was confirmed${leftover ? '; its tmux session was ended' : ''}`,
      leftoverEnded: leftover,
      exited: true,
      journal,
    };
  }
  return { ok: false, error: 'interrupted by an agent restart' };
}
