import { enqueueCommand } from '../../db/repos/agent-commands.ts';
import type { Db } from '../../db/client.ts';
import { getSessionRow } from '../../db/repos/sessions.ts';
import { AppError } from '../../domain/index.ts';
import { type JournalTurn, READ_JOURNAL_MAX_TURNS, zReadJournalResult } from '../../protocol/index.ts';
import { depsOf, type ServiceDeps } from './session-dto.ts';

/**
 * The conversation as the CLI recorded it, read on the node (`read_journal`). When it cannot be
 * read (node offline, its agent too old, no native id yet, the node did not answer in time, no
 * journal on the node) the answer says why and the page falls back to Bria's stored turns; it
 * never throws for that.
 *
 * Decision: the command goes out without a session id, so no session's queue waits behind it.
 * Storage: the hub puts the answer into the command's own row (never an AgentEvent, see
 * `storeAgentEvent`), and this service deletes that row as soon as it has the answer or gives up
 * waiting (withdraw = delete: an answer arriving later finds no row and is dropped). A row left by
 * a reader that died mid-wait is swept by the next read on that node after READ_JOURNAL_RETENTION_MS.
 * So no conversation text stays in the database because of a page view.
 *
 * The command type is newer than protocol 1: an agent that does not list it in its hello
 * capabilities (Node.agentCapabilities) is never sent it (it would refuse the frame as malformed
 * and reconnect, disturbing its live sessions); the page is told its agent is too old.
 */
export const READ_JOURNAL_RETENTION_MS = 10 * 60_000;

/** A journal turn plus the Bria message bound to it by its receipt (null: typed outside Bria). */
export type JournalTurnDto = JournalTurn & { message: { id: string; seq: number; status: string; outcomeDetail: string | null } | null };

export type JournalViewDto =
  | { available: true; source: 'native' | 'archive'; totalTurns: number; offset: number; nextOffset: number | null; turns: JournalTurnDto[] }
  | {
      available: false;
      reason: 'node_offline' | 'agent_too_old' | 'no_native_id' | 'not_written_yet' | 'not_found' | 'timeout' | 'failed';
      detail: string | null;
    };

export async function readSessionJournal(
  deps: ServiceDeps,
  input: { sessionId: string; offset?: number; limit?: number; timeoutMs?: number; pollMs?: number },
): Promise<JournalViewDto> {
  const { db } = depsOf(deps);
  const row = await getSessionRow(db, input.sessionId);
  if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
  if (!row.nativeSessionId) return { available: false, reason: 'no_native_id', detail: null };
  const node = await db.node.findUnique({ where: { id: row.nodeId }, select: { online: true, agentCapabilities: true, agentVersion: true } });
  if (!node?.online) return { available: false, reason: 'node_offline', detail: null };
  if (!node.agentCapabilities.includes('read_journal')) return { available: false, reason: 'agent_too_old', detail: node.agentVersion ?? 'unknown' };
  await sweepReadJournalLeftovers(db, row.nodeId, new Date(Date.now() - READ_JOURNAL_RETENTION_MS));
  const identity = row.identity && typeof row.identity === 'object' && !Array.isArray(row.identity) ? (row.identity as Record<string, unknown>) : {};
  // The agent reports the path either at the top of the identity or under `host`; the agent trusts
  // it only if it is this id's journal in the CLI's folder, and otherwise looks the id up itself.
  const host = identity.host && typeof identity.host === 'object' ? (identity.host as Record<string, unknown>) : {};
  const hint = [identity.journalPath, host.journalPath, row.journalPath].find((p): p is string => typeof p === 'string' && p.length > 0);
  const commandId = await enqueueCommand(db, {
    nodeId: row.nodeId,
    type: 'read_journal',
    payload: {
      executor: row.executor,
      nativeSessionId: row.nativeSessionId,
      ...(hint ? { journalPath: hint } : {}),
      ...(input.offset !== undefined ? { offset: input.offset } : {}),
      limit: Math.min(input.limit ?? 30, READ_JOURNAL_MAX_TURNS),
    },
  });
  let raw: unknown = null;
  try {
    const deadline = Date.now() + (input.timeoutMs ?? 8_000);
    while (Date.now() < deadline) {
      const c = await db.agentCommand.findUnique({ where: { id: commandId }, select: { status: true, result: true } });
      if (c?.status === 'done' && c.result !== null) {
        raw = c.result;
        break;
      }
      await new Promise((res) => setTimeout(res, input.pollMs ?? 50));
    }
  } finally {
    // Read or not, nobody waits for this answer any more: the row goes (with the answer in it).
    // A read not yet sent is thereby withdrawn: it is not delivered after a reconnect.
    await db.agentCommand.deleteMany({ where: { id: commandId } });
  }
  if (raw === null) return { available: false, reason: 'timeout', detail: null };
  const { command: _command, ...rest } = raw as Record<string, unknown>;
  const r = zReadJournalResult.safeParse(rest);
  if (!r.success) return { available: false, reason: 'failed', detail: 'the node answered in an unexpected form' };
  if (!r.data.ok) {
    if (r.data.code === 'unsupported') return { available: false, reason: 'agent_too_old', detail: node.agentVersion ?? 'unknown' };
    if (r.data.code !== 'not_found') return { available: false, reason: 'failed', detail: r.data.error };
    // A CLI writes its journal with the first prompt: an open session without one is simply new.
    const open = row.state !== 'Archived' && row.state !== 'ResumeFailed';
    return { available: false, reason: open ? 'not_written_yet' : 'not_found', detail: null };
  }
  const d = r.data;
  // Receipts: Claude binds a message to its user record uuid, Codex to its turn id.
  const refs = d.turns.map((t) => t.nativeRef);
  const bound =
    refs.length === 0
      ? []
      : await db.message.findMany({
          where: { sessionId: row.id, ...(row.executor === 'claude' ? { nativeRecordId: { in: refs } } : { nativeTurnId: { in: refs } }) },
          select: { id: true, seq: true, status: true, outcomeDetail: true, nativeRecordId: true, nativeTurnId: true },
        });
  const byRef = new Map(bound.map((m) => [(row.executor === 'claude' ? m.nativeRecordId : m.nativeTurnId) ?? '', m]));
  const turns = d.turns.map((t) => {
    const m = byRef.get(t.nativeRef);
    return { ...t, message: m ? { id: m.id, seq: m.seq, status: m.status, outcomeDetail: m.outcomeDetail } : null };
  });
  return { available: true, source: d.source, totalTurns: d.totalTurns, offset: d.offset, nextOffset: d.nextOffset ?? null, turns };
}

/**
 * Read rows a reader never removed (its process died while waiting). Scoped to one node so it uses
 * the (nodeId, status, createdAt) index; a read lives seconds, so anything this old is abandoned.
 */
export async function sweepReadJournalLeftovers(db: Db, nodeId: string, before: Date): Promise<number> {
  const r = await db.agentCommand.deleteMany({
    where: { nodeId, status: { in: ['pending', 'sent', 'acked', 'done', 'failed'] }, createdAt: { lt: before }, type: 'read_journal' },
  });
  return r.count;
}
