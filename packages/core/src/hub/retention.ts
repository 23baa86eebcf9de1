import { sweepPushAnswerTokens } from '../db/repos/push-answer.ts';
import type { Db } from '../db/client.ts';
import type { Logger } from '../log.ts';

/**
 * Database retention (docs/architecture.md, "Retention"): a periodic sweep in the hub process that
 * deletes, in small batches (each its own short statement, so no long locks), rows nothing needs
 * any more once they are older than `days`:
 * - `AgentCommand` rows that were answered: `done`/`failed`, or `acked` with a processed
 *   `command_result` event. Never `pending`/`sent` (the hub still sends those), never one with an
 *   unprocessed event (the engine reads the command's payload while applying its answer), never an
 *   `acked` one without an answer (the agent answers it as interrupted at its next start).
 * - `AgentEvent` rows processed more than `days` ago, except those a session still points to
 *   (`Session.pendingFinalEventId`, `deferredEventIds`: replayed by the final-save retry) and a
 *   `command_result` whose command row is still there (it is that row's proof of an answer).
 *   Unprocessed events are never touched. Evidence rows copy what they need (seq, command id as
 *   text), they do not refer to event rows. The usage chart reads `usage` events: it shows the
 *   retention window.
 * - `Outbox` rows `sent` more than `days` ago, except the newest row of each (channel, chat,
 *   session, kind): the bot reads the latest `final` (a held final) and `resume_status` of a chat
 *   and session. No dedupe depends on an old sent row: every dedupe key is derived from something
 *   that never comes back (a message's final is guarded by `Message.finalText`, cards and notices by
 *   the session's version or generation, an event's seq).
 * - `SessionActivity` rows (live progress: tool calls, edits, text between tools) last changed more
 *   than `days` ago. A row still `running` goes only when its session can no longer be in that
 *   turn (not Running, Stopping, ClosingAfterWork or AwaitingRecovery): that turn ended without its
 *   tool's result. The final's one-line summary was copied into the final's outbox payload and the journal keeps every call, so an old turn
 *   shows its final without the activity rows, as the usage chart shows the retention window.
 * - `PermissionPrompt` rows (the CLIs' permission requests and questions, with the tool input they
 *   showed) resolved more than `days` ago: only final states (`delivered`, `answered_at_computer`,
 *   `ended`, domain/prompt-machine.ts), never one still pending, answered on its way to the CLI or
 *   waiting at the computer (issue 30). Evidence keeps the request's line in the session's history.
 * - `AgentDeadLetter` rows (frames the hub refused, docs/reliability.md "Dead letters") received more
 *   than `days` ago.
 * Deletes by age only ever remove rows in a final state, so several hubs may sweep at once.
 */
export interface RetentionOptions {
  /** Rows older than this many days are deleted. */
  days: number;
  batchSize?: number;
  /** At most this many batches per kind in one sweep (the rest waits for the next sweep). */
  maxBatches?: number;
  /** Pause between batches, so the sweep never hogs the database. */
  pauseMs?: number;
  now?: Date;
  /** Checked between batches: a stopping hub ends the sweep there (the rest waits for the next one). */
  shouldStop?: () => boolean;
  /** Called after each batch (benchmarks: how long one delete statement holds its rows). */
  onBatch?: (kind: keyof SweepResult, deleted: number, ms: number) => void;
}

export interface SweepResult {
  commands: number;
  events: number;
  outbox: number;
  activity: number;
  prompts: number;
  deadLetters: number;
  pushes: number;
  /** Push answer tokens a day past their expiry (whatever `days`: they are of no use once expired). */
  answerTokens: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface BatchOpts {
  batchSize: number;
  maxBatches: number;
  pauseMs: number;
  shouldStop: () => boolean;
  onBatch?: RetentionOptions['onBatch'];
}

/** One batch: how many rows it deleted, how many candidates it looked at, and where the next one starts. */
interface Step<K> {
  deleted: number;
  scanned: number;
  last: K | null;
}

/**
 * Runs batches until one looks at fewer candidates than a batch. Each batch starts after the last
 * candidate of the one before (a keyset cursor), so rows kept and the dead index entries of rows
 * just deleted are never scanned again: a first sweep over millions of rows stays linear.
 */
async function inBatches<K>(o: BatchOpts, kind: keyof SweepResult, first: K, run: (after: K) => Promise<Step<K>>): Promise<number> {
  let total = 0;
  let after = first;
  for (let i = 0; i < o.maxBatches && !o.shouldStop(); i++) {
    const t0 = performance.now();
    const r = await run(after);
    o.onBatch?.(kind, r.deleted, performance.now() - t0);
    total += r.deleted;
    if (r.scanned < o.batchSize || r.last === null) break;
    after = r.last;
    if (o.pauseMs > 0) await pause(o.pauseMs);
  }
  return total;
}

type Row = { deleted: number; scanned: number; lastAt: Date | null; lastId: string | bigint | null };
const EPOCH = new Date(0);

export async function sweepRetention(db: Db, opts: RetentionOptions): Promise<SweepResult> {
  const batchSize = opts.batchSize ?? 1_000;
  const b: BatchOpts = {
    batchSize,
    maxBatches: opts.maxBatches ?? 500,
    pauseMs: opts.pauseMs ?? 20,
    shouldStop: opts.shouldStop ?? (() => false),
    onBatch: opts.onBatch,
  };
  const cutoff = new Date((opts.now ?? new Date()).getTime() - opts.days * 24 * 3600_000);

  // Commands first, so the answers of the ones deleted here may go in the same sweep. Per node and
  // status, so each batch is a range of the (nodeId, status, createdAt) index.
  let commands = 0;
  const nodes = await db.node.findMany({ select: { id: true } });
  for (const { id: nodeId } of nodes) {
    for (const status of ['done', 'failed', 'acked'] as const) {
      commands += await inBatches(b, 'commands', { at: EPOCH, id: '00000000-0000-0000-0000-000000000000' }, async (after) => {
        const [r] = await db.$queryRaw<Row[]>`
          with batch as (
            select c.id, c."createdAt" from "AgentCommand" c
            where c."nodeId" = ${nodeId}::uuid and c.status = ${status}::"CommandStatus" and c."createdAt" < ${cutoff}
              and (c."createdAt", c.id) > (${after.at}, ${after.id}::uuid)
            order by c."createdAt", c.id limit ${batchSize}),
          del as (
            delete from "AgentCommand" d using batch
            where d.id = batch.id
              and (d.status <> 'acked' or exists (
                select 1 from "AgentEvent" e where e."commandId" = d.id and e.type = 'command_result' and e."processedAt" is not null))
              and not exists (select 1 from "AgentEvent" e where e."commandId" = d.id and e."processedAt" is null)
            returning d.id)
          select (select count(*) from del)::int as deleted, (select count(*) from batch)::int as scanned,
                 l."createdAt" as "lastAt", l.id::text as "lastId"
          from (select 1) one left join (select * from batch order by "createdAt" desc, id desc limit 1) l on true`;
        return { deleted: r!.deleted, scanned: r!.scanned, last: r!.lastAt ? { at: r!.lastAt, id: String(r!.lastId) } : null };
      });
    }
  }

  const events = await inBatches(b, 'events', { at: EPOCH, id: 0n }, async (after) => {
    const [r] = await db.$queryRaw<Row[]>`
      with kept as (
        select "pendingFinalEventId" as id from "Session" where "pendingFinalEventId" is not null
        union select unnest("deferredEventIds") from "Session" where cardinality("deferredEventIds") > 0),
      batch as (
        select e.id, e."processedAt" from "AgentEvent" e
        where e."processedAt" < ${cutoff} and (e."processedAt", e.id) > (${after.at}, ${after.id})
        order by e."processedAt", e.id limit ${batchSize}),
      del as (
        delete from "AgentEvent" d using batch
        where d.id = batch.id
          and not exists (select 1 from kept where kept.id = d.id)
          and not (d.type = 'command_result' and d."commandId" is not null
                   and exists (select 1 from "AgentCommand" c where c.id = d."commandId"))
        returning d.id)
      select (select count(*) from del)::int as deleted, (select count(*) from batch)::int as scanned,
             l."processedAt" as "lastAt", l.id as "lastId"
      from (select 1) one left join (select * from batch order by "processedAt" desc, id desc limit 1) l on true`;
    return { deleted: r!.deleted, scanned: r!.scanned, last: r!.lastAt ? { at: r!.lastAt, id: BigInt(r!.lastId!) } : null };
  });

  // The newest row of each group is kept; computed once (rows written meanwhile only keep more).
  const newest = (
    await db.$queryRaw<{ id: bigint }[]>`
    select max(id) as id from "Outbox" group by channel, "chatId", "sessionId", kind`
  ).map((r) => r.id);
  const outbox = await inBatches(b, 'outbox', 0n, async (after) => {
    const [r] = await db.$queryRaw<Row[]>`
      with batch as (
        select o.id from "Outbox" o
        where o.id > ${after} and o.status = 'sent' and o."sentAt" < ${cutoff}
        order by o.id limit ${batchSize}),
      del as (
        delete from "Outbox" d using batch where d.id = batch.id and d.id <> all(${newest}::bigint[]) returning d.id)
      select (select count(*) from del)::int as deleted, (select count(*) from batch)::int as scanned,
             null::timestamptz as "lastAt", (select max(id) from batch) as "lastId"`;
    return { deleted: r!.deleted, scanned: r!.scanned, last: r!.lastId === null ? null : BigInt(r!.lastId) };
  });

  const activity = await inBatches(b, 'activity', 0n, async (after) => {
    const [r] = await db.$queryRaw<Row[]>`
      with batch as (
        select a.id from "SessionActivity" a
        where a.id > ${after} and a."updatedAt" < ${cutoff}
        order by a.id limit ${batchSize}),
      del as (
        delete from "SessionActivity" d using batch
        where d.id = batch.id
          and (d.status <> 'running' or not exists (
            select 1 from "Session" s where s.id = d."sessionId" and s.state in ('Running', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery')))
        returning d.id)
      select (select count(*) from del)::int as deleted, (select count(*) from batch)::int as scanned,
             null::timestamptz as "lastAt", (select max(id) from batch) as "lastId"`;
    return { deleted: r!.deleted, scanned: r!.scanned, last: r!.lastId === null ? null : BigInt(r!.lastId) };
  });

  const prompts = await inBatches(b, 'prompts', { at: EPOCH, id: '00000000-0000-0000-0000-000000000000' }, async (after) => {
    const [r] = await db.$queryRaw<Row[]>`
      with batch as (
        select p.id, p."resolvedAt" from "PermissionPrompt" p
        where p.state in ('delivered', 'answered_at_computer', 'ended') and p."resolvedAt" < ${cutoff}
          and (p."resolvedAt", p.id) > (${after.at}, ${after.id}::uuid)
        order by p."resolvedAt", p.id limit ${batchSize}),
      del as (delete from "PermissionPrompt" d using batch where d.id = batch.id returning d.id)
      select (select count(*) from del)::int as deleted, (select count(*) from batch)::int as scanned,
             l."resolvedAt" as "lastAt", l.id::text as "lastId"
      from (select 1) one left join (select * from batch order by "resolvedAt" desc, id desc limit 1) l on true`;
    return { deleted: r!.deleted, scanned: r!.scanned, last: r!.lastAt ? { at: r!.lastAt, id: String(r!.lastId) } : null };
  });

  // Dead letters (frames the hub could not accept) are a diagnostic record only: kept `days` too.
  const deadLetters = await inBatches(b, 'deadLetters', 0n, async (after) => {
    const [r] = await db.$queryRaw<Row[]>`
      with batch as (
        select d.id from "AgentDeadLetter" d
        where d.id > ${after} and d."receivedAt" < ${cutoff}
        order by d.id limit ${batchSize}),
      del as (delete from "AgentDeadLetter" x using batch where x.id = batch.id returning x.id)
      select (select count(*) from del)::int as deleted, (select count(*) from batch)::int as scanned,
             null::timestamptz as "lastAt", (select max(id) from batch) as "lastId"`;
    return { deleted: r!.deleted, scanned: r!.scanned, last: r!.lastId === null ? null : BigInt(r!.lastId) };
  });

  // Pushes (issue 32) sent or failed `days` ago: a prompt's close is long past, a device's last push is on its row.
  const pushes = await inBatches(b, 'pushes', 0n, async (after) => {
    const [r] = await db.$queryRaw<Row[]>`
      with batch as (
        select p.id from "PushOutbox" p
        where p.id > ${after} and p.status in ('sent', 'failed') and p."createdAt" < ${cutoff}
        order by p.id limit ${batchSize}),
      del as (delete from "PushOutbox" x using batch where x.id = batch.id returning x.id)
      select (select count(*) from del)::int as deleted, (select count(*) from batch)::int as scanned,
             null::timestamptz as "lastAt", (select max(id) from batch) as "lastId"`;
    return { deleted: r!.deleted, scanned: r!.scanned, last: r!.lastId === null ? null : BigInt(r!.lastId) };
  });

  const answerTokens = b.shouldStop() ? 0 : await sweepPushAnswerTokens(db, new Date());

  return { commands, events, outbox, activity, prompts, deadLetters, pushes, answerTokens };
}

/** Retention settings from the environment (`BRIA_RETENTION_DAYS`, `BRIA_RETENTION_SWEEP_MINUTES`). */
export interface RetentionConfig {
  days: number;
  sweepMinutes: number;
}

/**
 * Runs the sweep every `sweepMinutes` (the first one a minute after start, so a start is never
 * slowed by it). `days: 0` turns retention off. Failures are logged and retried at the next sweep.
 */
export function startRetention(db: Db, log: Logger, cfg: RetentionConfig): { stop: () => Promise<void> } {
  if (cfg.days <= 0) {
    log.info('hub.retention_off');
    return { stop: async () => {} };
  }
  let running: Promise<void> | undefined;
  let stopped = false;
  const sweep = () => {
    if (running || stopped) return;
    const t0 = Date.now();
    running = sweepRetention(db, { days: cfg.days, shouldStop: () => stopped })
      .then((r) => log.info({ ...r, days: cfg.days, ms: Date.now() - t0 }, 'hub.retention_sweep'))
      .catch((err) => log.warn({ err: (err as Error).message }, 'hub.retention_sweep_failed'))
      .finally(() => (running = undefined));
  };
  const first = setTimeout(sweep, Math.min(60_000, cfg.sweepMinutes * 60_000));
  const timer = setInterval(sweep, cfg.sweepMinutes * 60_000);
  first.unref();
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
