import type { Db } from '../../db/client.ts';
import { getSessionRow } from '../../db/repos/sessions.ts';
import { AppError, COMMIT_DRAFT_PROMPT, commitDraftFromAnswer } from '../../domain/index.ts';
import type { Logger } from '../../log.ts';
import { acceptMessage } from '../sessions/accept-message.ts';
import { type GitRefusalDto, refusalNow } from './session-git.ts';

export type DraftDto = { ok: true; message: string } | GitRefusalDto;

/** How long "Draft message" waits for the CLI's turn to end (a real model writes it). */
export const DRAFT_WAIT_MS = 180_000;
const ENDED = ['completed', 'failed', 'terminal_failed', 'unknown', 'cancelled'];
/** How long a final may follow its turn's outcome (or the outcome its final). */
const FINAL_GRACE_MS = 10_000;

/**
 * "Draft message" (docs/worktrees.md): the session's CLI is asked for a commit message in a turn of
 * its own — a queued message like any other, so the conversation shows it — and its final answer
 * (the Message row's `finalText`, which the engine writes when the turn ends) comes back for the
 * user to edit before committing. Refused like a commit while a turn is in flight or the session is
 * not Ready; a turn that ends without an answer, or outlasts the wait, is answered `no_draft`.
 */
export async function draftCommitMessage(
  deps: { db: Db; log?: Logger },
  input: { sessionId: string; source: 'web' | 'telegram'; sourceKey?: string; waitMs?: number; pollMs?: number },
): Promise<DraftDto> {
  const row = await getSessionRow(deps.db, input.sessionId);
  if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
  const refused = await refusalNow(deps.db, row, 'commit');
  if (refused) return refused;
  const { message } = await acceptMessage(deps, {
    sessionId: row.id,
    text: COMMIT_DRAFT_PROMPT,
    source: input.source,
    ...(input.sourceKey ? { sourceKey: input.sourceKey } : {}),
  });
  const deadline = Date.now() + (input.waitMs ?? DRAFT_WAIT_MS);
  let ended: number | null = null;
  let seen: number | null = null;
  while (Date.now() < deadline) {
    const m = await deps.db.message.findUnique({ where: { id: message.id }, select: { status: true, finalText: true } });
    // The final may be stored just before or just after the turn's outcome: the text decides. The
    // answer waits for the outcome too (a short grace at most), so a Commit pressed right after
    // finds the session Ready rather than refused for a turn in flight.
    const draft = m?.finalText ? commitDraftFromAnswer(m.finalText) : null;
    const over = m !== null && ENDED.includes(m.status);
    if (over) ended ??= Date.now();
    if (draft) {
      seen ??= Date.now();
      if (over || Date.now() - seen > FINAL_GRACE_MS) return { ok: true, message: draft };
    } else if (ended !== null && (m?.finalText || Date.now() - ended > FINAL_GRACE_MS)) {
      return { ok: false, code: 'no_draft', message: 'The session’s CLI ended the turn without a commit message.', files: [] };
    }
    await new Promise((r) => setTimeout(r, input.pollMs ?? 250));
  }
  return { ok: false, code: 'no_draft', message: 'The session’s CLI is still writing; its answer will be in the conversation.', files: [] };
}
