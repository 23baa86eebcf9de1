import type { ActivityStep } from '../../domain/activity.ts';
import type { ActivityItem } from '../../protocol/session-activity.ts';
import type { DbOrTx } from './sessions.ts';

const stepSelect = { kind: true, toolName: true, subject: true, status: true, diffAdded: true, diffRemoved: true, startedAt: true, endedAt: true } as const;

/**
 * Stores the items of one `activity` event: one row per (session, ref). A replay of an item updates
 * its row; a finished step (ok / error) never goes back to running, and fields a later report
 * leaves out keep what an earlier one said.
 */
export async function upsertActivity(
  db: DbOrTx,
  sessionId: string,
  eventSeq: bigint,
  items: readonly (ActivityItem & { messageId: string | null })[],
): Promise<void> {
  for (const it of items) {
    const fields = {
      nativeTurnId: it.nativeTurnId ?? null,
      messageId: it.messageId,
      kind: it.kind,
      toolName: it.toolName ?? null,
      subject: it.subject ?? null,
      sourceRecordId: it.source.recordId,
      sourceOffset: BigInt(it.source.offset),
      startedAt: new Date(it.startedAt),
    };
    const result = {
      ...(it.exitCode !== undefined ? { exitCode: it.exitCode } : {}),
      ...(it.outputHead !== undefined ? { outputHead: it.outputHead } : {}),
      ...(it.diff ? { diffAdded: it.diff.added, diffRemoved: it.diff.removed, diffText: it.diff.text } : {}),
      ...(it.text !== undefined ? { text: it.text } : {}),
      ...(it.endedAt !== undefined ? { endedAt: new Date(it.endedAt) } : {}),
    };
    const existing = await db.sessionActivity.findUnique({
      where: { sessionId_ref: { sessionId, ref: it.ref } },
      select: { id: true, status: true, messageId: true },
    });
    if (!existing) {
      await db.sessionActivity.create({ data: { sessionId, ref: it.ref, status: it.status, eventSeq, ...fields, ...result } });
      continue;
    }
    const finished = existing.status !== 'running';
    // A finished step keeps its outcome; a replay of its start adds nothing.
    if (finished && it.status === 'running') continue;
    await db.sessionActivity.update({
      where: { id: existing.id },
      data: { ...fields, messageId: existing.messageId ?? it.messageId, status: it.status, eventSeq, ...result },
      select: { id: true },
    });
  }
}

/** The steps of one turn, oldest first. */
export async function listTurnSteps(db: DbOrTx, sessionId: string, nativeTurnId: string | null): Promise<(ActivityStep & { id: bigint })[]> {
  return db.sessionActivity.findMany({
    where: { sessionId, nativeTurnId },
    orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
    select: { id: true, ...stepSelect },
  });
}

/** The steps of the turn a message started (its own turn id or record uuid). */
export async function listMessageSteps(
  db: DbOrTx,
  sessionId: string,
  message: { nativeTurnId: string | null; nativeRecordId: string | null },
): Promise<ActivityStep[]> {
  const ids = [message.nativeTurnId, message.nativeRecordId].filter((x): x is string => x !== null);
  if (ids.length === 0) return [];
  return db.sessionActivity.findMany({ where: { sessionId, nativeTurnId: { in: ids } }, orderBy: [{ startedAt: 'asc' }, { id: 'asc' }], select: stepSelect });
}

export interface ActivityRowDto {
  id: string;
  ref: string;
  nativeTurnId: string | null;
  messageId: string | null;
  kind: string;
  toolName: string | null;
  subject: string | null;
  status: string;
  exitCode: number | null;
  outputHead: string | null;
  diffAdded: number | null;
  diffRemoved: number | null;
  diffText: string | null;
  text: string | null;
  sourceRecordId: string;
  sourceOffset: number;
  eventSeq: number;
  startedAt: Date;
  endedAt: Date | null;
}

/** A session's activity rows, newest `limit` of them in time order (the dashboard's turn stream). */
export async function listSessionActivity(db: DbOrTx, sessionId: string, o: { limit: number }): Promise<ActivityRowDto[]> {
  const rows = await db.sessionActivity.findMany({
    where: { sessionId },
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: o.limit,
    select: {
      id: true,
      ref: true,
      nativeTurnId: true,
      messageId: true,
      kind: true,
      toolName: true,
      subject: true,
      status: true,
      exitCode: true,
      outputHead: true,
      diffAdded: true,
      diffRemoved: true,
      diffText: true,
      text: true,
      sourceRecordId: true,
      sourceOffset: true,
      eventSeq: true,
      startedAt: true,
      endedAt: true,
    },
  });
  return rows.reverse().map((r) => ({ ...r, id: String(r.id), sourceOffset: Number(r.sourceOffset), eventSeq: Number(r.eventSeq) }));
}
