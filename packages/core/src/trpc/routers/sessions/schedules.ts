import { z } from 'zod';
import { SCHEDULE_IF_BUSY } from '../../../domain/schedule.ts';
import { cancelSchedule, createSchedule, listSchedules } from '../../../services/sessions/schedules.ts';
import { authedProcedure } from '../../init.ts';
import { zId, zIsoDate, zIsoDateOrNull } from '../zod-shared.ts';

/** Scheduled and recurring messages of a session (issue 33): list, create, cancel. */
const ZSchedule = z.object({
  id: z.string(),
  sessionId: z.string(),
  text: z.string(),
  kind: z.enum(['once', 'recurring']),
  cron: z.string().nullable(),
  timeZone: z.string(),
  nextRunAt: zIsoDateOrNull,
  ifBusy: z.enum(SCHEDULE_IF_BUSY),
  resumeIfClosed: z.boolean(),
  status: z.enum(['active', 'done', 'cancelled', 'failed']),
  createdFrom: z.enum(['web', 'telegram']),
  createdAt: zIsoDate,
  runs: z.number().int(),
  skips: z.number().int(),
  lastRunAt: zIsoDateOrNull,
  lastResult: z.string().nullable(),
});

const zWhen = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('once'), runAt: z.iso.datetime({ offset: true }) }),
  z.object({ kind: z.literal('recurring'), cron: z.string().trim().min(1).max(120), ifBusy: z.enum(SCHEDULE_IF_BUSY).default('wait') }),
]);

export const schedulesRoute = authedProcedure
  .input(z.object({ sessionId: zId }))
  .output(z.object({ schedules: z.array(ZSchedule) }))
  .query(async ({ ctx, input }) => ({ schedules: await listSchedules({ db: ctx.db }, input.sessionId) }));

export const scheduleMessageRoute = authedProcedure
  .input(
    z.object({
      sessionId: zId,
      text: z.string().min(1).max(200_000),
      timeZone: z.string().min(1).max(64),
      resumeIfClosed: z.boolean().default(false),
      when: zWhen,
    }),
  )
  .output(ZSchedule)
  .mutation(({ ctx, input }) =>
    createSchedule(
      { db: ctx.db },
      input.when.kind === 'once'
        ? {
            sessionId: input.sessionId,
            text: input.text,
            timeZone: input.timeZone,
            resumeIfClosed: input.resumeIfClosed,
            from: 'web',
            kind: 'once',
            runAt: new Date(input.when.runAt),
          }
        : {
            sessionId: input.sessionId,
            text: input.text,
            timeZone: input.timeZone,
            resumeIfClosed: input.resumeIfClosed,
            from: 'web',
            kind: 'recurring',
            cron: input.when.cron,
            ifBusy: input.when.ifBusy,
          },
    ),
  );

export const cancelScheduleRoute = authedProcedure
  .input(z.object({ sessionId: zId, scheduleId: zId }))
  .output(ZSchedule)
  .mutation(({ ctx, input }) => cancelSchedule({ db: ctx.db }, input));
