import { type SessionEvent, turnSummary } from '../../domain/index.ts';
import { listMessageSteps } from '../../db/repos/activity.ts';
import { saveFinal, findTurnMessage } from '../../db/repos/messages.ts';
import { endPrompts } from './end-prompts.ts';
import { patchSession, type SessionRow, type Tx } from '../../db/repos/sessions.ts';
import { parseSessionEvent } from '../../protocol/index.ts';
import { notifyChats } from './session-notices.ts';
import { pushEvent } from './push-notices.ts';
import type { StepContext } from './step-context.ts';

/** Runs `fn` inside a savepoint so a failed write leaves the surrounding transaction usable. */
export async function inSavepoint<T>(tx: Tx, name: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  await tx.$executeRawUnsafe(`savepoint ${name}`);
  try {
    const value = await fn();
    await tx.$executeRawUnsafe(`release savepoint ${name}`);
    return { ok: true, value };
  } catch (error) {
    await tx.$executeRawUnsafe(`rollback to savepoint ${name}`);
    return { ok: false, error };
  }
}

export type FinalWrite = { kind: 'stored' | 'duplicate' | 'no_request' } | { kind: 'failed'; error: unknown };

/**
 * Stores a received final on its request (matched by message id or exact turn id, never by text)
 * and writes the `final` outbox rows. The exact-session check and the write are one statement; a
 * final already on the request is never written twice.
 */
export async function writeFinal(ctx: StepContext, row: SessionRow, f: { messageId?: string; nativeTurnId: string; text: string }): Promise<FinalWrite> {
  const msg = await findTurnMessage(ctx.tx, row.id, { ...(f.messageId ? { messageId: f.messageId } : {}), nativeTurnId: f.nativeTurnId });
  if (!msg) return { kind: 'no_request' };
  if (msg.finalText !== null) return { kind: 'duplicate' };
  const r = await inSavepoint(ctx.tx, 'final_save', async () => {
    const stored = await saveFinal(ctx.tx, { sessionId: row.id, messageId: msg.id, text: f.text });
    if (stored) {
      const summary = await summaryOf(ctx, row.id, msg.mainMessageId ?? msg.id);
      await notifyChats(ctx.tx, row, ctx.now, ({ active }) => ({
        key: `final:${msg.id}`,
        payload: { kind: 'final', sessionId: row.id, nodeId: row.nodeId, messageId: msg.id, text: f.text, active, ...(summary ? { summary } : {}) },
      }));
      await pushEvent(ctx.tx, row, { event: 'turn_completed', key: `final:${msg.id}`, text: f.text, now: ctx.now });
    }
    return stored;
  });
  if (!r.ok) return { kind: 'failed', error: r.error };
  return { kind: r.value ? 'stored' : 'duplicate' };
}

/**
 * The turn's one-line summary for the final (issue 15), from the activity rows its journal gave so far
 * (the agent reports a batch's activity before its final). A turn without a tool call has none.
 */
async function summaryOf(ctx: StepContext, sessionId: string, mainMessageId: string) {
  const m = await ctx.tx.message.findUnique({ where: { id: mainMessageId }, select: { nativeTurnId: true, nativeRecordId: true, acceptedAt: true } });
  if (!m) return null;
  const s = turnSummary(await listMessageSteps(ctx.tx, sessionId, m), m.acceptedAt, ctx.now);
  return s.steps > 0 ? s : null;
}

/** Error codes and kinds found on an error and its causes (Prisma wraps the driver's error in `meta` and `cause`). */
function errorSignals(error: unknown): { codes: string[]; texts: string[] } {
  const codes: string[] = [];
  const texts: string[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number) => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 6) return;
    seen.add(e);
    const o = e as Record<string, unknown>;
    for (const k of ['code', 'originalCode', 'kind', 'errno']) if (typeof o[k] === 'string') codes.push(o[k] as string);
    for (const k of ['name', 'message', 'originalMessage']) if (typeof o[k] === 'string') texts.push(o[k] as string);
    visit(o.cause, depth + 1);
    visit(o.meta, depth + 1);
    visit(o.driverAdapterError, depth + 1);
  };
  visit(error, 0);
  return { codes, texts };
}

/**
 * A short cause for the user's "could not be saved yet (…)" notice. It is one of a few fixed phrases,
 * chosen from the error's SQLSTATE / driver code (and, for errors without a code, its wording), so
 * the notice never carries an error text, a path, a query or the final itself.
 */
export function finalSaveCause(error: unknown): string {
  const { codes, texts } = errorSignals(error);
  const has = (re: RegExp) => codes.some((c) => re.test(c));
  // Codes first: Prisma's own message quotes the calling source code, so its wording proves little.
  if (has(/^53100$|^ENOSPC$/)) return 'server disk full';
  if (has(/^53/)) return 'database out of resources';
  if (
    has(
      /^08|^57P0[123]$|^E(CONNREFUSED|CONNRESET|PIPE|HOSTUNREACH|NOTFOUND)$|^P100[12]$|^P1017$|ConnectionClosed|DatabaseNotReachable|DatabaseDoesNotExist|TlsConnectionError/,
    )
  )
    return 'database unavailable';
  if (has(/^57014$|^P1008$|^P2024$|^P2028$|^ETIMEDOUT$|SocketTimeout/)) return 'database timed out';
  if (has(/^40001$|^40P01$|^55P03$|TransactionWriteConflict/)) return 'database busy';
  if (has(/^25006$/)) return 'database is read-only';
  const text = texts.join(' ');
  if (/no space left|disk.?full/i.test(text)) return 'server disk full';
  if (/connection (terminated|refused|closed|reset)|server closed the connection|can't reach database/i.test(text)) return 'database unavailable';
  return 'database write failed';
}

function logPersistFailed(ctx: StepContext, row: SessionRow, attempt: number, error: unknown): void {
  // Cause class only: never the final text or a path.
  const cause = error instanceof Error ? error.name : 'unknown';
  ctx.log.warn({ sessionId: row.id, nodeId: row.nodeId, attempt, cause, reason: finalSaveCause(error) }, 'session.final_save persist_failed');
}

/** First failure of a final write: remember the event (it holds the final durably) and block the queue. */
export async function onFinalWriteFailed(ctx: StepContext, row: SessionRow, eventId: bigint, error: unknown): Promise<SessionEvent> {
  logPersistFailed(ctx, row, 1, error);
  // The domain's `final_save_failing` notice (first failure only) carries this; see session-step.ts.
  ctx.finalSaveCause = finalSaveCause(error);
  await patchSession(ctx.tx, row.id, { pendingFinalEventId: eventId, finalSaveAttempts: 1 });
  return { type: 'final_save_failed', attempt: 1 };
}

/** Retries only the write of the already received final (read back from its stored agent event). */
export async function retryFinalSave(ctx: StepContext, row: SessionRow, attempt: number): Promise<SessionEvent[]> {
  if (row.pendingFinalEventId === null) return [];
  const ev = await ctx.tx.agentEvent.findUnique({ where: { id: row.pendingFinalEventId }, select: { type: true, payload: true } });
  const data = (ev?.payload as { data?: unknown } | null)?.data;
  const parsed = ev ? parseSessionEvent(ev.type, data) : null;
  if (!parsed?.ok || parsed.event.name !== 'turn_final') {
    await patchSession(ctx.tx, row.id, { pendingFinalEventId: null, finalSaveAttempts: 0 });
    return [{ type: 'final_save_recovered' }];
  }
  const w = await writeFinal(ctx, row, parsed.event.payload);
  if (w.kind === 'failed') {
    logPersistFailed(ctx, row, attempt + 1, w.error);
    await patchSession(ctx.tx, row.id, { finalSaveAttempts: attempt + 1 });
    return [{ type: 'final_save_failed', attempt: attempt + 1 }];
  }
  ctx.log.info({ sessionId: row.id, nodeId: row.nodeId, attempt }, 'session.final_save recovered');
  ctx.replay.push(...row.deferredEventIds);
  await patchSession(ctx.tx, row.id, { pendingFinalEventId: null, finalSaveAttempts: 0, deferredEventIds: [] });
  return [{ type: 'final_save_recovered' }];
}

/**
 * Commits the archive record (the journal copy was stored with the close evidence). A request or
 * start dialog still open ends with it: no CLI is left to take an answer (a start dialog answered
 * "cancel" stayed `answered` after its start was interrupted and the session archived; docs/reliability.md).
 */
export async function commitArchive(ctx: StepContext, row: SessionRow, attempt: number): Promise<SessionEvent> {
  const r = await inSavepoint(ctx.tx, 'archive_commit', async () => {
    await patchSession(ctx.tx, row.id, { archivedAt: ctx.now, archiveSortAt: row.nativeLastActivity ?? ctx.now });
    await endPrompts(ctx, row, { cause: 'archived', actor: 'hub' });
  });
  if (r.ok) return { type: 'archive_committed' };
  ctx.log.warn({ sessionId: row.id, attempt }, 'session.archive_commit failed');
  return { type: 'archive_commit_failed', attempt };
}
