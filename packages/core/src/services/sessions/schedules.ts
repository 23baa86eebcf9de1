import { randomUUID } from 'node:crypto';
import { AppError } from '../../domain/index.ts';
import { checkScheduleSpec, SCHEDULES_PER_SESSION, type ScheduleIfBusy, type ScheduleSpecRefusal } from '../../domain/schedule.ts';
import { checkMessageText } from './accept-message.ts';
import { depsOf, type ServiceDeps } from './session-dto.ts';

/** A scheduled message as both front ends show it. */
export interface ScheduleDto {
  id: string;
  sessionId: string;
  text: string;
  kind: 'once' | 'recurring';
  cron: string | null;
  timeZone: string;
  nextRunAt: Date | null;
  ifBusy: ScheduleIfBusy;
  resumeIfClosed: boolean;
  status: 'active' | 'done' | 'cancelled' | 'failed';
  createdFrom: 'web' | 'telegram';
  createdAt: Date;
  runs: number;
  skips: number;
  lastRunAt: Date | null;
  lastResult: string | null;
}

type Row = Awaited<ReturnType<ServiceDeps['db']['scheduledMessage']['findFirstOrThrow']>>;
export function toScheduleDto(r: Row): ScheduleDto {
  return {
    id: r.id,
    sessionId: r.sessionId,
    text: r.text,
    kind: r.kind === 'recurring' ? 'recurring' : 'once',
    cron: r.cron,
    timeZone: r.timeZone,
    nextRunAt: r.nextRunAt,
    ifBusy: r.ifBusy === 'skip' ? 'skip' : 'wait',
    resumeIfClosed: r.resumeIfClosed,
    status: (['active', 'done', 'cancelled', 'failed'] as const).find((s) => s === r.status) ?? 'failed',
    createdFrom: r.createdFrom === 'telegram' ? 'telegram' : 'web',
    createdAt: r.createdAt,
    runs: r.runs,
    skips: r.skips,
    lastRunAt: r.lastRunAt,
    lastResult: r.lastResult,
  };
}

const SPEC_WORDS: Record<ScheduleSpecRefusal, string> = {
  bad_cron: 'schedules.bad_cron',
  cron_seconds: 'schedules.cron_seconds',
  bad_time_zone: 'schedules.bad_time_zone',
  in_past: 'schedules.in_past',
  too_far: 'schedules.too_far',
  never_runs: 'schedules.never_runs',
};

export type CreateScheduleInput = {
  sessionId: string;
  text: string;
  timeZone: string;
  resumeIfClosed?: boolean;
  from: 'web' | 'telegram';
} & ({ kind: 'once'; runAt: Date } | { kind: 'recurring'; cron: string; ifBusy?: ScheduleIfBusy });

/**
 * Stores a scheduled or recurring message for a session (issue 33). The text meets the bounds of
 * any message now (a text its CLI cannot take is refused here, not at 3 am); the time or cron is
 * checked by the pure `checkScheduleSpec`. The engine fires it (engine/schedules.ts).
 */
export async function createSchedule(deps: ServiceDeps, input: CreateScheduleInput): Promise<ScheduleDto> {
  const { db, clock } = depsOf(deps);
  const session = await db.session.findUnique({ where: { id: input.sessionId }, select: { id: true } });
  if (!session) throw new AppError('NOT_FOUND', { message: 'session not found' });
  if (input.text.trim() === '') throw new AppError('INVALID_INPUT', { message: 'empty message', reason: 'empty' });
  await checkMessageText(db, input.sessionId, input.text);
  const now = clock.now();
  const spec =
    input.kind === 'once'
      ? checkScheduleSpec({ kind: 'once', runAt: input.runAt, timeZone: input.timeZone }, now)
      : checkScheduleSpec({ kind: 'recurring', cron: input.cron, timeZone: input.timeZone }, now);
  if (!spec.ok) throw new AppError('INVALID_INPUT', { message: `schedule refused: ${spec.reason}`, userMessage: SPEC_WORDS[spec.reason] });
  const active = await db.scheduledMessage.count({ where: { sessionId: input.sessionId, status: 'active' } });
  if (active >= SCHEDULES_PER_SESSION)
    throw new AppError('INVALID_INPUT', { message: `at most ${SCHEDULES_PER_SESSION} active schedules per session`, userMessage: 'schedules.too_many' });
  const row = await db.scheduledMessage.create({
    data: {
      id: randomUUID(),
      sessionId: input.sessionId,
      text: input.text,
      kind: input.kind,
      cron: input.kind === 'recurring' ? input.cron.trim() : null,
      timeZone: input.timeZone,
      nextRunAt: spec.firstRunAt,
      ifBusy: input.kind === 'recurring' ? (input.ifBusy ?? 'wait') : 'wait',
      resumeIfClosed: input.resumeIfClosed ?? false,
      createdFrom: input.from,
    },
  });
  return toScheduleDto(row);
}

/** A session's schedules: active first (soonest first), then the ended ones, newest first. */
export async function listSchedules(deps: ServiceDeps, sessionId: string, o: { limit?: number } = {}): Promise<ScheduleDto[]> {
  const { db } = depsOf(deps);
  const rows = await db.scheduledMessage.findMany({ where: { sessionId }, orderBy: [{ createdAt: 'desc' }], take: o.limit ?? 50 });
  const active = rows.filter((r) => r.status === 'active').sort((a, b) => (a.nextRunAt?.getTime() ?? 0) - (b.nextRunAt?.getTime() ?? 0));
  return [...active, ...rows.filter((r) => r.status !== 'active')].map(toScheduleDto);
}

/** Every active schedule of the sessions a chat may see (Telegram's /schedules). */
export async function listActiveSchedules(deps: ServiceDeps, o: { sessionIds?: string[]; limit?: number } = {}): Promise<ScheduleDto[]> {
  const { db } = depsOf(deps);
  const rows = await db.scheduledMessage.findMany({
    where: { status: 'active', ...(o.sessionIds ? { sessionId: { in: o.sessionIds } } : {}) },
    orderBy: { nextRunAt: 'asc' },
    take: o.limit ?? 30,
  });
  return rows.map(toScheduleDto);
}

/**
 * Cancels an active schedule: nothing more is sent. An occurrence already in the queue is an
 * ordinary message by then (it can be cancelled as one while it waits).
 */
export async function cancelSchedule(deps: ServiceDeps, input: { scheduleId: string; sessionId?: string }): Promise<ScheduleDto> {
  const { db } = depsOf(deps);
  const r = await db.scheduledMessage.updateMany({
    where: { id: input.scheduleId, status: 'active', ...(input.sessionId ? { sessionId: input.sessionId } : {}) },
    data: { status: 'cancelled', nextRunAt: null },
  });
  const row = await db.scheduledMessage.findUnique({ where: { id: input.scheduleId } });
  if (!row || (input.sessionId && row.sessionId !== input.sessionId))
    throw new AppError('NOT_FOUND', { message: 'schedule not found', userMessage: 'schedules.not_found' });
  if (r.count === 0 && row.status !== 'cancelled')
    throw new AppError('CONFLICT', { message: `the schedule is ${row.status}`, userMessage: 'schedules.not_active' });
  return toScheduleDto(row);
}
