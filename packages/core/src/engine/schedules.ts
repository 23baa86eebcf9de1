import { AppError } from '../domain/index.ts';
import { decideScheduleRun, type ScheduleRunDecision } from '../domain/schedule.ts';
import { nextAfterOccurrence } from '../services/sessions/schedule-time.ts';
import { acceptMessage } from '../services/sessions/accept-message.ts';
import { resumeSession } from '../services/sessions/resume-session.ts';
import { getSessionRow } from '../db/repos/sessions.ts';
import type { EngineDeps } from './session-work.ts';
import { notifyChats } from './step/session-notices.ts';

/**
 * Fires due scheduled messages (issue 33). Each occurrence becomes an ordinary queued message with
 * `sourceKey` `schedule:<id>:<occurrence ms>`: the key makes the firing idempotent, so an engine that
 * dies after queueing and before moving the schedule on, or two engines firing at once, store it
 * once — the repeat is a duplicate and only moves the schedule on. A claim (`leaseUntil`, taken with
 * `FOR UPDATE SKIP LOCKED`) keeps a second engine from even trying while one works on a row.
 */
const LEASE_MS = 60_000;
const BATCH = 20;
const FINAL = new Set(['completed', 'terminal_failed', 'failed', 'unknown', 'cancelled']);
const CLOSED = new Set(['Archived', 'ResumeFailed']);
const TURN = new Set(['Running', 'Stopping', 'ClosingAfterWork']);

export async function fireDueSchedules(d: EngineDeps): Promise<number> {
  const now = d.clock.now();
  const claimed = await d.db.$queryRaw<{ id: string }[]>`
    update "ScheduledMessage" s set "leaseUntil" = ${new Date(now.getTime() + LEASE_MS)}
    where s.id in (
      select id from "ScheduledMessage"
      where status = 'active' and "nextRunAt" <= ${now} and ("leaseUntil" is null or "leaseUntil" < ${now})
      order by "nextRunAt" limit ${BATCH}
      for update skip locked)
    returning s.id::text as id`;
  for (const { id } of claimed) {
    try {
      await fireOne(d, id);
    } catch (err) {
      d.log.error({ scheduleId: id, err: (err as Error).message }, 'engine.schedule_failed');
    }
  }
  return claimed.length;
}

const WORDS: Record<Exclude<ScheduleRunDecision['do'], 'send' | 'resume_then_send'>, (r?: string) => string> = {
  wait: () => 'waiting: the previous run or a turn is still going',
  skip: (r) => (r === 'busy' ? 'skipped: a turn was running' : 'skipped: the session is closed'),
  end: (r) => (r === 'gone' ? 'not sent: the session no longer exists' : 'not sent: the session is closed'),
};

async function fireOne(d: EngineDeps, id: string): Promise<void> {
  const now = d.clock.now();
  const s = await d.db.scheduledMessage.findUnique({ where: { id } });
  if (!s || s.status !== 'active' || !s.nextRunAt || s.nextRunAt > now) return;
  const occurrence = s.nextRunAt;
  const session = await d.db.session.findUnique({ where: { id: s.sessionId }, select: { state: true } });
  const previous = s.lastMessageId ? await d.db.message.findUnique({ where: { id: s.lastMessageId }, select: { status: true } }) : null;
  const decision = decideScheduleRun({
    kind: s.kind === 'recurring' ? 'recurring' : 'once',
    ifBusy: s.ifBusy === 'skip' ? 'skip' : 'wait',
    resumeIfClosed: s.resumeIfClosed,
    session: !session ? 'gone' : CLOSED.has(session.state) ? 'closed' : 'open',
    busy: (session !== null && TURN.has(session.state)) || (previous !== null && !FINAL.has(previous.status)),
  });

  /**
   * Moves the schedule past this occurrence (only if nobody cancelled or moved it meanwhile). An
   * occurrence that was not sent (`notSent`) is told to the session's chats in the same transaction,
   * once: only the call that moved the schedule writes the notice.
   */
  const advance = async (o: {
    result: string;
    messageId?: string;
    failed?: boolean;
    skipped?: boolean;
    notSent?: { reason: 'closed' | 'refused'; detail: string };
  }) => {
    const next = s.kind === 'recurring' && s.cron && !o.failed ? nextAfterOccurrence(s.cron, s.timeZone, occurrence, d.clock.now()) : null;
    await d.db.$transaction(async (tx) => {
      const moved = await tx.scheduledMessage.updateMany({
        where: { id, status: 'active', nextRunAt: occurrence },
        data: {
          nextRunAt: next,
          status: next ? 'active' : o.failed ? 'failed' : 'done',
          lastResult: o.result.slice(0, 300),
          lastRunAt: now,
          leaseUntil: null,
          ...(o.skipped ? { skips: { increment: 1 } } : { runs: { increment: 1 } }),
          ...(o.messageId ? { lastMessageId: o.messageId } : {}),
        },
      });
      if (moved.count === 0 || !o.notSent) return;
      const row = await getSessionRow(tx, s.sessionId);
      if (!row) return;
      const { reason, detail } = o.notSent;
      await notifyChats(tx, row, now, () => ({
        key: `schedule_failed:${id}:${occurrence.getTime()}`,
        payload: {
          kind: 'schedule_failed',
          sessionId: row.id,
          nodeId: row.nodeId,
          scheduleId: id,
          reason,
          detail: detail.slice(0, 300),
          text: s.text.slice(0, 200),
        },
      }));
    });
  };

  // This occurrence may be in the queue already: the engine died, or the database went away, after
  // queueing and before moving the schedule on (chaos seed 360039). It was sent, whatever the session
  // is doing now (closed since, busy): moved on as sent, never "not sent" nor skipped.
  const queued = await d.db.message.findUnique({ where: { sourceKey: `schedule:${id}:${occurrence.getTime()}` }, select: { id: true, seq: true } });
  if (queued) {
    await advance({ result: `sent as #${queued.seq}`, messageId: queued.id });
    return;
  }

  switch (decision.do) {
    case 'wait':
      await d.db.scheduledMessage.updateMany({ where: { id, status: 'active' }, data: { lastResult: WORDS.wait(), leaseUntil: null } });
      return;
    case 'skip':
      // A recurring message of a closed session is told once, not at every occurrence while it stays closed.
      await advance({
        result: WORDS.skip(decision.reason),
        skipped: true,
        ...(decision.reason === 'closed' && s.lastResult !== WORDS.skip('closed') ? { notSent: { reason: 'closed' as const, detail: '' } } : {}),
      });
      return;
    case 'end':
      await advance({
        result: WORDS.end(decision.reason),
        failed: true,
        ...(decision.reason === 'gone' ? {} : { notSent: { reason: 'closed' as const, detail: '' } }),
      });
      return;
    case 'resume_then_send':
    case 'send': {
      try {
        if (decision.do === 'resume_then_send') await resumeSession({ db: d.db, clock: d.clock, log: d.log }, { sessionId: s.sessionId });
        const r = await acceptMessage(
          { db: d.db, clock: d.clock, log: d.log },
          { sessionId: s.sessionId, text: s.text, source: 'schedule', sourceKey: `schedule:${id}:${occurrence.getTime()}` },
        );
        const resumed = decision.do === 'resume_then_send' ? ' (after resuming the session)' : '';
        await advance({ result: `sent as #${r.message.seq}${resumed}`, messageId: r.message.id });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        // Refused in words (the lifetime ended, the session takes no messages now…): recorded, never retried in a loop.
        await advance({ result: `not sent: ${err.message}`, failed: s.kind === 'once', notSent: { reason: 'refused', detail: err.message } });
      }
      return;
    }
    default:
      decision satisfies never;
  }
}
