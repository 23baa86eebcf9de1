import { randomUUID } from 'node:crypto';
import type { MessageStatus, QueueMessage, StatusUpdate } from '../../domain/index.ts';
import type { Prisma } from '../generated/client.ts';
import type { DbOrTx, Tx } from './sessions.ts';

const ACTIVE: MessageStatus[] = ['pending', 'leased', 'accepted'];

export interface MessageDto {
  id: string; sessionId: string; seq: number; source: string; sourceKey: string | null; status: MessageStatus;
  mainMessageId: string | null; nativeTurnId: string | null; nativeRecordId: string | null; finalText: string | null;
  outcomeDetail: string | null; createdAt: Date; acceptedAt: Date | null; outcomeAt: Date | null;
}
const dtoSelect = {
  id: true, sessionId: true, seq: true, source: true, sourceKey: true, status: true, mainMessageId: true, nativeTurnId: true,
  nativeRecordId: true, finalText: true, outcomeDetail: true, createdAt: true, acceptedAt: true, outcomeAt: true,
} as const satisfies Prisma.MessageSelect;

/** The queue as the domain gates see it: only messages without a final outcome (no text). */
export async function listQueue(db: DbOrTx, sessionId: string): Promise<(QueueMessage & { finalText: boolean })[]> {
  const rows = await db.message.findMany({
    where: { sessionId, status: { in: ACTIVE } }, orderBy: { seq: 'asc' },
    select: { id: true, seq: true, status: true, mainMessageId: true, nativeTurnId: true, nativeRecordId: true, leaseOwner: true, finalText: true },
  });
  return rows.map((r) => ({
    id: r.id, seq: r.seq, status: r.status, mainMessageId: r.mainMessageId, nativeTurnId: r.nativeTurnId ?? r.nativeRecordId,
    claimedBy: r.leaseOwner, finalText: r.finalText !== null,
  }));
}

export async function listMessages(db: DbOrTx, sessionId: string): Promise<MessageDto[]> {
  return db.message.findMany({ where: { sessionId }, orderBy: { seq: 'asc' }, select: dtoSelect });
}

export async function findMessageBySourceKey(db: DbOrTx, sourceKey: string): Promise<MessageDto | null> {
  return db.message.findUnique({ where: { sourceKey }, select: dtoSelect });
}

/** Inserts at the end of the session's queue. The caller holds the session row lock, so seq is gap-free and ordered. */
export async function insertMessage(tx: Tx, m: { sessionId: string; source: string; sourceKey?: string; text: string; attachments?: unknown }): Promise<MessageDto> {
  const last = await tx.message.findFirst({ where: { sessionId: m.sessionId }, orderBy: { seq: 'desc' }, select: { seq: true } });
  return tx.message.create({
    data: {
      id: randomUUID(), sessionId: m.sessionId, seq: (last?.seq ?? 0) + 1, source: m.source, sourceKey: m.sourceKey ?? null,
      text: m.text, ...(m.attachments === undefined ? {} : { attachments: m.attachments as object }),
    },
    select: dtoSelect,
  });
}

/**
 * Appends a message in one statement (next seq, idempotent by source key) and wakes the dispatcher
 * on commit. The caller holds the session row lock, so seq is gap-free and ordered. Null means the
 * source key is already stored.
 */
export async function appendMessage(tx: Tx, m: { sessionId: string; source: string; sourceKey?: string; text: string; attachments?: unknown }): Promise<MessageDto | null> {
  const id = randomUUID();
  const attachments = m.attachments === undefined ? null : JSON.stringify(m.attachments);
  const rows = await tx.$queryRaw<{ seq: number; createdAt: Date }[]>`
    with ins as (
      insert into "Message" (id, "sessionId", seq, source, "sourceKey", text, attachments)
      select ${id}::uuid, ${m.sessionId}::uuid, coalesce(max(seq), 0) + 1, ${m.source}, ${m.sourceKey ?? null}, ${m.text}, ${attachments}::jsonb
      from "Message" where "sessionId" = ${m.sessionId}::uuid
      on conflict ("sourceKey") do nothing
      returning seq, "createdAt")
    select ins.seq, ins."createdAt", pg_notify('bria_session_wake', ${m.sessionId})::text as n from ins`;
  const r = rows[0];
  if (!r) return null;
  return {
    id, sessionId: m.sessionId, seq: r.seq, source: m.source, sourceKey: m.sourceKey ?? null, status: 'pending', mainMessageId: null, nativeTurnId: null,
    nativeRecordId: null, finalText: null, outcomeDetail: null, createdAt: r.createdAt, acceptedAt: null, outcomeAt: null,
  };
}

export async function getMessageForDelivery(db: DbOrTx, id: string): Promise<{ text: string; attachments: unknown } | null> {
  return db.message.findUnique({ where: { id }, select: { text: true, attachments: true } });
}

export async function leaseMessage(tx: Tx, id: string, commandId: string, mainMessageId: string | null): Promise<boolean> {
  const r = await tx.message.updateMany({ where: { id, status: 'pending' }, data: { status: 'leased', deliveryId: commandId, leaseOwner: null, mainMessageId } });
  return r.count === 1;
}

/** Receipt: stores the exact message ↔ native turn link in the same write that makes it `accepted`. */
export async function acceptReceipt(tx: Tx, r: { id: string; sessionId: string; nativeTurnId?: string; nativeRecordId?: string; now: Date }): Promise<boolean> {
  const u = await tx.message.updateMany({
    where: { id: r.id, sessionId: r.sessionId, status: 'leased' },
    data: { status: 'accepted', acceptedAt: r.now, nativeTurnId: r.nativeTurnId ?? null, nativeRecordId: r.nativeRecordId ?? null },
  });
  return u.count === 1;
}

/** Moves are conditional on the expected `from` status, so a concurrent or repeated write never downgrades. */
export async function applyStatusUpdates(tx: Tx, updates: readonly StatusUpdate[], o: { now: Date; detail?: string }): Promise<number> {
  let n = 0;
  for (const u of updates) {
    const r = await tx.message.updateMany({ where: { id: u.id, status: u.from }, data: { status: u.to, outcomeAt: o.now, outcomeDetail: o.detail ?? null } });
    n += r.count;
  }
  return n;
}

export async function findTurnMessage(db: DbOrTx, sessionId: string, ref: { messageId?: string; nativeTurnId?: string }): Promise<{ id: string; status: MessageStatus; mainMessageId: string | null; finalText: string | null } | null> {
  const select = { id: true, status: true, mainMessageId: true, finalText: true } as const;
  if (ref.messageId) {
    const m = await db.message.findFirst({ where: { id: ref.messageId, sessionId }, select });
    if (m) return m;
  }
  if (!ref.nativeTurnId) return null;
  return db.message.findFirst({ where: { sessionId, OR: [{ nativeTurnId: ref.nativeTurnId }, { nativeRecordId: ref.nativeTurnId }] }, orderBy: { seq: 'asc' }, select });
}

/**
 * TEST SEAM: lets a test make the final write fail at the storage layer (disk full, store exhausted)
 * without mocking Bria's code. Production never sets it. The hook runs before the write and throws to fail it.
 */
export const finalSaveFaults: { hook: ((info: { sessionId: string; messageId: string }) => void) | null } = { hook: null };

/**
 * Writes an already received final onto its request, atomically with the exact-session check. Writing
 * the same final again is a no-op (an uncertain earlier write never creates a second copy).
 * Returns true when this call stored it.
 */
export async function saveFinal(tx: Tx, f: { sessionId: string; messageId: string; text: string }): Promise<boolean> {
  finalSaveFaults.hook?.({ sessionId: f.sessionId, messageId: f.messageId });
  const r = await tx.message.updateMany({ where: { id: f.messageId, sessionId: f.sessionId, finalText: null }, data: { finalText: f.text } });
  return r.count === 1;
}

export async function lastFinal(db: DbOrTx, sessionId: string): Promise<{ messageId: string; text: string } | null> {
  const m = await db.message.findFirst({ where: { sessionId, finalText: { not: null } }, orderBy: { seq: 'desc' }, select: { id: true, finalText: true } });
  return m?.finalText ? { messageId: m.id, text: m.finalText } : null;
}
