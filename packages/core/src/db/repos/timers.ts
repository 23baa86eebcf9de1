import { randomUUID } from 'node:crypto';
import type { TimerName } from '../../domain/index.ts';
import type { Db } from '../client.ts';
import type { DbOrTx, Tx } from './sessions.ts';

/**
 * Timers of the domain's table, plus the hub's own `delivery_retry`: it only wakes the queue pump when
 * a hand-over the agent refused (`typed: false`) may be tried again (`engine/untyped-delivery.ts`);
 * it is no session event, so the domain does not know it. `limit_reset` likewise wakes the pump when a
 * usage limit that held the session's next message resets (`engine/step/usage.ts`).
 */
export type AnyTimerName = TimerName | 'delivery_retry' | 'limit_reset';
export interface TimerDto {
  id: string;
  sessionId: string;
  name: AnyTimerName;
  dueAt: Date;
  attempt: number;
}

/** One timer per (session, name): scheduling again replaces the due time. */
export async function scheduleTimer(tx: Tx, t: { sessionId: string; name: AnyTimerName; dueAt: Date; attempt?: number }): Promise<void> {
  const data = { dueAt: t.dueAt, attempt: t.attempt ?? 0, claimedUntil: null };
  await tx.sessionTimer.upsert({
    where: { sessionId_name: { sessionId: t.sessionId, name: t.name } },
    create: { id: randomUUID(), sessionId: t.sessionId, name: t.name, ...data },
    update: data,
  });
}

export async function cancelTimer(tx: Tx, sessionId: string, name: AnyTimerName): Promise<void> {
  await tx.sessionTimer.deleteMany({ where: { sessionId, name } });
}

/**
 * Claims due timers for `leaseMs` (FOR UPDATE SKIP LOCKED, so several engines never fire one twice
 * at once). The claim is only a lease: the timer is consumed by `consumeTimer` under the session lock.
 */
export async function claimDueTimers(db: Db, now: Date, o: { limit: number; leaseMs: number }): Promise<TimerDto[]> {
  const until = new Date(now.getTime() + o.leaseMs);
  const rows = await db.$queryRaw<{ id: string; sessionId: string; name: string; dueAt: Date; attempt: number }[]>`
    update "SessionTimer" t set "claimedUntil" = ${until}
    where t.id in (
      select id from "SessionTimer"
      where "dueAt" <= ${now} and ("claimedUntil" is null or "claimedUntil" < ${now})
      order by "dueAt" limit ${o.limit} for update skip locked)
    returning t.id, t."sessionId", t.name, t."dueAt", t.attempt`;
  return rows.map((r) => ({ ...r, name: r.name as AnyTimerName }));
}

/** Deletes the timer if it is still the one claimed (not rescheduled or cancelled meanwhile). */
export async function consumeTimer(tx: Tx, t: TimerDto): Promise<boolean> {
  const r = await tx.sessionTimer.deleteMany({ where: { id: t.id, dueAt: t.dueAt } });
  return r.count === 1;
}

export async function listTimers(db: DbOrTx, sessionId: string): Promise<TimerDto[]> {
  const rows = await db.sessionTimer.findMany({
    where: { sessionId },
    orderBy: { dueAt: 'asc' },
    select: { id: true, sessionId: true, name: true, dueAt: true, attempt: true },
  });
  return rows.map((r) => ({ ...r, name: r.name as AnyTimerName }));
}

export async function nextTimerDue(db: Db): Promise<Date | null> {
  const r = await db.sessionTimer.findFirst({ orderBy: { dueAt: 'asc' }, select: { dueAt: true } });
  return r?.dueAt ?? null;
}
