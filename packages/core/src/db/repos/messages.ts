import { randomUUID } from 'node:crypto';
import type { DeliveryHold, MessageStatus, QueueMessage, SessionState, StatusUpdate } from '../../domain/index.ts';
import type { Prisma } from '../generated/client.ts';
import { noticeOutcome } from './outcome-notices.ts';
import { preparedQuery } from './prepared.ts';
import type { DbOrTx, Tx } from './sessions.ts';

const ACTIVE: MessageStatus[] = ['pending', 'leased', 'accepted'];

export interface MessageDto {
  id: string;
  sessionId: string;
  seq: number;
  source: string;
  sourceKey: string | null;
  status: MessageStatus;
  mainMessageId: string | null;
  nativeTurnId: string | null;
  nativeRecordId: string | null;
  finalText: string | null;
  outcomeDetail: string | null;
  createdAt: Date;
  acceptedAt: Date | null;
  outcomeAt: Date | null;
}
const dtoSelect = {
  id: true,
  sessionId: true,
  seq: true,
  source: true,
  sourceKey: true,
  status: true,
  mainMessageId: true,
  nativeTurnId: true,
  nativeRecordId: true,
  finalText: true,
  outcomeDetail: true,
  createdAt: true,
  acceptedAt: true,
  outcomeAt: true,
} as const satisfies Prisma.MessageSelect;

/** The queue as the domain gates see it: only messages without a final outcome (no text). */
export async function listQueue(db: DbOrTx, sessionId: string): Promise<(QueueMessage & { finalText: boolean })[]> {
  const rows = await db.message.findMany({
    where: { sessionId, status: { in: ACTIVE } },
    orderBy: { seq: 'asc' },
    select: { id: true, seq: true, status: true, mainMessageId: true, nativeTurnId: true, nativeRecordId: true, leaseOwner: true, finalText: true },
  });
  return rows.map((r) => ({
    id: r.id,
    seq: r.seq,
    status: r.status,
    mainMessageId: r.mainMessageId,
    nativeTurnId: r.nativeTurnId ?? r.nativeRecordId,
    claimedBy: claimOf(r.leaseOwner),
    finalText: r.finalText !== null,
  }));
}

/**
 * A `pending` message whose hand-over the agent refused (`typed: false`) waits before it is handed
 * over again (`engine/untyped-delivery.ts`): `leaseOwner` = `untyped@v<session version>` and
 * `leaseUntil` = when the wait ends. The wait is over when that time has passed or the session's
 * version moved on (any transition: a new observer generation, Ready confirmed, recovery…). It is
 * not a dispatcher claim, so the domain gates never see it as one (`claimedBy` stays null).
 */
const HOLD_PREFIX = 'untyped@v';
export const holdOwner = (version: number): string => `${HOLD_PREFIX}${version}`;
const claimOf = (leaseOwner: string | null): string | null => (leaseOwner?.startsWith(HOLD_PREFIX) ? null : leaseOwner);
function holdOf(r: { id: string | null; status: string | null; leaseOwner: string | null; leaseUntil: Date | null }): DeliveryHold | null {
  if (r.id === null || r.status !== 'pending' || !r.leaseOwner?.startsWith(HOLD_PREFIX) || r.leaseUntil === null) return null;
  const version = Number(r.leaseOwner.slice(HOLD_PREFIX.length));
  return Number.isInteger(version) ? { messageId: r.id, version, until: r.leaseUntil } : null;
}

/**
 * `leased → pending` for the exact delivery the agent answered `typed: false`, held until `hold.until`
 * while the session stays at `hold.version` (no hold: handed over again at once). Returns whether it moved.
 */
export async function releaseUntypedLease(
  tx: Tx,
  m: { id: string; sessionId: string; commandId: string; hold: { version: number; until: Date } | null },
): Promise<boolean> {
  const u = await tx.message.updateMany({
    where: { id: m.id, sessionId: m.sessionId, status: 'leased', deliveryId: m.commandId },
    data: {
      status: 'pending',
      deliveryId: null,
      mainMessageId: null,
      leaseOwner: m.hold ? holdOwner(m.hold.version) : null,
      leaseUntil: m.hold?.until ?? null,
    },
  });
  return u.count === 1;
}

export interface PumpView {
  row: { state: SessionState; pendingFinalEventId: bigint | null; lifetimeExpired: boolean; version: number; openPrompts: number; turnAsked: boolean };
  queue: (QueueMessage & { finalText: boolean })[];
  /** The head's wait after a `typed: false` answer (whether it still applies: `holdActive`, domain). */
  hold: DeliveryHold | null;
}

const PUMP_VIEW_SQL = `
    select s.state::text as state, s."pendingFinalEventId", s."lifetimeExpired", s.version, s."openPrompts",
      exists (select 1 from "PermissionPrompt" p where p."sessionId" = s.id and p."createdAt" >= (
        select min(c."createdAt") from "Message" x join "AgentCommand" c on c.id = x."deliveryId"
          where x."sessionId" = s.id and x.status in ('leased', 'accepted') and x."mainMessageId" is null)) as "turnAsked",
      m.id, m.seq, m.status, m."mainMessageId", m."nativeTurnId",
      m."nativeRecordId", m."leaseOwner", m."leaseUntil", m."hasFinal"
    from "Session" s left join lateral (
      (select id, seq, status::text as status, "mainMessageId", "nativeTurnId", "nativeRecordId", "leaseOwner", "leaseUntil", "finalText" is not null as "hasFinal"
        from "Message" where "sessionId" = s.id and status in ('leased', 'accepted'))
      union all
      (select id, seq, status::text, "mainMessageId", "nativeTurnId", "nativeRecordId", "leaseOwner", "leaseUntil", "finalText" is not null
        from "Message" where "sessionId" = s.id and status = 'pending' order by seq limit 1)
    ) m on true
    where s.id = $1::uuid`;

/**
 * `turnAsked`: a prompt row was made after the hub handed the running turn's main request over (its
 * `deliver` command's time; both times are the hub's), i.e. the turn asked the user something.
 *
 * The dispatcher's view in one round trip, without a lock: the session fields the pump decides on,
 * the messages in flight and only the HEAD of the pending ones. The gates (`nextDeliverable`,
 * `summarizeQueue`) look at nothing else — FIFO means only the oldest pending message can go next —
 * so a session with a long backlog costs the same as one with a single waiting message.
 */
export async function readPumpView(db: DbOrTx, sessionId: string): Promise<PumpView | null> {
  const rows = await preparedQuery<{
    state: SessionState;
    pendingFinalEventId: bigint | string | null;
    lifetimeExpired: boolean;
    version: number;
    openPrompts: number;
    turnAsked: boolean;
    id: string | null;
    seq: number | null;
    status: MessageStatus | null;
    mainMessageId: string | null;
    nativeTurnId: string | null;
    nativeRecordId: string | null;
    leaseOwner: string | null;
    leaseUntil: Date | null;
    hasFinal: boolean | null;
  }>(db, 'bria_pump_view_v3', PUMP_VIEW_SQL, [sessionId]);
  const first = rows[0];
  if (!first) return null;
  const present = rows.filter((r) => r.id !== null);
  const queue = present
    .map((r) => ({
      id: r.id as string,
      seq: r.seq as number,
      status: r.status as MessageStatus,
      mainMessageId: r.mainMessageId,
      nativeTurnId: r.nativeTurnId ?? r.nativeRecordId,
      claimedBy: claimOf(r.leaseOwner),
      finalText: r.hasFinal === true,
    }))
    .sort((a, b) => a.seq - b.seq);
  const hold = present.map(holdOf).find((h) => h !== null) ?? null;
  const pendingFinalEventId = first.pendingFinalEventId === null ? null : BigInt(first.pendingFinalEventId);
  return {
    row: {
      state: first.state,
      pendingFinalEventId,
      lifetimeExpired: first.lifetimeExpired,
      version: first.version,
      openPrompts: first.openPrompts,
      turnAsked: first.turnAsked,
    },
    queue,
    hold,
  };
}

export async function listMessages(db: DbOrTx, sessionId: string): Promise<MessageDto[]> {
  return db.message.findMany({ where: { sessionId }, orderBy: { seq: 'asc' }, select: dtoSelect });
}

export async function findMessageBySourceKey(db: DbOrTx, sourceKey: string): Promise<MessageDto | null> {
  return db.message.findUnique({ where: { sourceKey }, select: dtoSelect });
}

/** Inserts at the end of the session's queue. The caller holds the session row lock, so seq is gap-free and ordered. */
export async function insertMessage(
  tx: Tx,
  m: { sessionId: string; source: string; sourceKey?: string; text: string; attachments?: unknown },
): Promise<MessageDto> {
  const last = await tx.message.findFirst({ where: { sessionId: m.sessionId }, orderBy: { seq: 'desc' }, select: { seq: true } });
  return tx.message.create({
    data: {
      id: randomUUID(),
      sessionId: m.sessionId,
      seq: (last?.seq ?? 0) + 1,
      source: m.source,
      sourceKey: m.sourceKey ?? null,
      text: m.text,
      ...(m.attachments === undefined ? {} : { attachments: m.attachments as object }),
    },
    select: dtoSelect,
  });
}

/** What `appendMessageIfUnchanged` checks again under the row lock: every field the accept gate reads. */
export interface MessageGate {
  id: string;
  state: string;
  version: number;
  observerGeneration: number;
  nativeSessionId: string | null;
  lifetimeDeadline: Date | null;
  lifetimeExpired: boolean;
  exitVerified: boolean;
}
export type AppendResult = { kind: 'stored'; message: MessageDto } | { kind: 'not_stored'; locked: boolean };

const APPEND_SQL = `
    with s as (
      select id from "Session"
      where id = $1::uuid and version = $2::int and state::text = $3::text
        and "observerGeneration" = $4::int and "nativeSessionId" is not distinct from $5::text
        and "lifetimeDeadline" is not distinct from $6::timestamptz
        and "lifetimeExpired" = $7::boolean and "exitVerified" = $8::boolean
      for update),
    ins as (
      insert into "Message" (id, "sessionId", seq, source, "sourceKey", text, attachments)
      select $9::uuid, s.id, (select coalesce(max(seq), 0) + 1 from "Message" where "sessionId" = $1::uuid),
        $10::text, $11::text, $12::text, $13::jsonb
      from s
      on conflict do nothing
      returning seq, "createdAt")
    select (select count(*) from s)::int as locked, ins.seq, ins."createdAt",
      case when ins.seq is null then null else pg_notify('bria_session_wake', $1::uuid::text)::text end as n
    from (select 1) one left join ins on true`;

/**
 * Appends a message at the end of its session's queue in ONE statement (its own transaction, durable
 * when it returns), if the session still has exactly the gate fields the caller decided on, and
 * wakes the dispatcher on commit.
 *
 * The caller ran the domain gate on `gate` read without a lock. Here the session row is locked
 * (`for update`); under READ COMMITTED a row changed meanwhile is re-checked in its newest version,
 * so the insert happens only if every gate field is still what the decision saw — the same result
 * as deciding under the lock. The next `seq` is taken from the statement's snapshot, which may miss
 * a message committed by a concurrent append while this one waited for the lock: then the unique
 * (sessionId, seq) makes the insert do nothing, exactly like a repeated source key.
 * `not_stored` + `locked: false` = the session changed (or is gone): decide again.
 * `not_stored` + `locked: true` = the source key is already stored, or the seq raced: look up the key, else retry.
 */
export async function appendMessageIfUnchanged(
  db: DbOrTx,
  gate: MessageGate,
  m: { source: string; sourceKey?: string; text: string; attachments?: unknown },
): Promise<AppendResult> {
  const id = randomUUID();
  const attachments = m.attachments === undefined ? null : JSON.stringify(m.attachments);
  // A named prepared statement (`prepared.ts`): parsed and planned once per connection, not per message.
  const rows = await preparedQuery<{ locked: number; seq: number | null; createdAt: Date | null }>(db, 'bria_append_message_v1', APPEND_SQL, [
    gate.id,
    gate.version,
    gate.state,
    gate.observerGeneration,
    gate.nativeSessionId,
    gate.lifetimeDeadline,
    gate.lifetimeExpired,
    gate.exitVerified,
    id,
    m.source,
    m.sourceKey ?? null,
    m.text,
    attachments,
  ]);
  const r = rows[0];
  if (!r || r.seq === null || r.createdAt === null) return { kind: 'not_stored', locked: (r?.locked ?? 0) > 0 };
  return {
    kind: 'stored',
    message: {
      id,
      sessionId: gate.id,
      seq: r.seq,
      source: m.source,
      sourceKey: m.sourceKey ?? null,
      status: 'pending',
      mainMessageId: null,
      nativeTurnId: null,
      nativeRecordId: null,
      finalText: null,
      outcomeDetail: null,
      createdAt: r.createdAt,
      acceptedAt: null,
      outcomeAt: null,
    },
  };
}

export async function getMessageForDelivery(db: DbOrTx, id: string): Promise<{ text: string; attachments: unknown } | null> {
  return db.message.findUnique({ where: { id }, select: { text: true, attachments: true } });
}

export async function leaseMessage(tx: Tx, id: string, commandId: string, mainMessageId: string | null): Promise<boolean> {
  const r = await tx.message.updateMany({
    where: { id, status: 'pending' },
    data: { status: 'leased', deliveryId: commandId, leaseOwner: null, leaseUntil: null, mainMessageId },
  });
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

/**
 * Moves are conditional on the expected `from` status, so a concurrent or repeated write never
 * downgrades. A move that ends a message's turn without a final writes its chat notice in the same
 * transaction (`outcome-notices.ts`), whichever rule decided the outcome.
 */
export async function applyStatusUpdates(tx: Tx, updates: readonly StatusUpdate[], o: { now: Date; detail?: string }): Promise<number> {
  let n = 0;
  for (const u of updates) {
    const r = await tx.message.updateMany({ where: { id: u.id, status: u.from }, data: { status: u.to, outcomeAt: o.now, outcomeDetail: o.detail ?? null } });
    n += r.count;
    if (r.count === 1) await noticeOutcome(tx, { messageId: u.id, to: u.to, detail: o.detail ?? null, now: o.now });
  }
  return n;
}

export async function findTurnMessage(
  db: DbOrTx,
  sessionId: string,
  ref: { messageId?: string; nativeTurnId?: string },
): Promise<{ id: string; status: MessageStatus; mainMessageId: string | null; finalText: string | null } | null> {
  const select = { id: true, status: true, mainMessageId: true, finalText: true } as const;
  if (ref.messageId) {
    const m = await db.message.findFirst({ where: { id: ref.messageId, sessionId }, select });
    if (m) return m;
  }
  if (!ref.nativeTurnId) return null;
  return db.message.findFirst({
    where: { sessionId, OR: [{ nativeTurnId: ref.nativeTurnId }, { nativeRecordId: ref.nativeTurnId }] },
    orderBy: { seq: 'asc' },
    select,
  });
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
