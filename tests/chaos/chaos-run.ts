import { readFileSync } from 'node:fs';
import { claudeConfigDir } from '../../apps/node-agent/src/executors/claude-driver.ts';
import type { Db } from '../../packages/core/src/db/client.ts';
import { waitUntil } from '../../packages/testkit/src/system.ts';
import type { ChaosCluster } from './chaos-cluster.ts';
import { type ChaosSystem, startChaosSystem } from './chaos-system.ts';
import { checkEdgeFaults } from './edge-faults.ts';
import { FAULT_KINDS, FaultInjector, type FaultKind } from './faults.ts';
import { checkInvariants } from './invariants.ts';
import { NativeSampler } from './native-sampler.ts';
import { Prng } from './prng.ts';
import { pendingPrompts, sideEffect } from './prompt-actions.ts';
import { type ActionKind, User } from './user-actions.ts';

export interface RunOptions {
  seed: number;
  /** How long users act and faults strike; the heal-and-settle phase comes on top, bounded too. */
  activeMs: number;
  settleMs?: number;
  log?: (line: string) => void;
  /** Fault kinds picked ten times as often (`npm run chaos -- --focus a,b`). */
  focus?: FaultKind[];
}
export interface RunResult {
  seed: number;
  ms: number;
  actions: Record<ActionKind, number>;
  faults: Record<FaultKind, number>;
  sessions: number;
  messages: number;
  violations: string[];
  /** Sessions left AwaitingRecovery because their exact resume failed (kept, never replaced). */
  unrecoverable: number;
  /** Harness trouble (a fault that could not be injected or healed): not Bria's violations. */
  harness: string[];
  /** Repeats the invariants allow by design, each with its proof (the bot-kill duplicate window). */
  explained: string[];
  /** Final writes the engine refused under `final_save` (its evidence rows): proof the fault bit. */
  finalSaveFailures: number;
  /** Aimed faults whose moment (an open request, a request message on its way, a start dialog) did not come. */
  missed: Partial<Record<FaultKind, number>>;
  /** The issue-35 faults' records: schedules due during an outage, push pairs, forged lines, take-over races by outcome. */
  edge: { schedules: number; pushes: number; forges: number; takeovers: Record<string, number>; deskAnswers: number };
  /** Permission requests and start dialogs the CLIs raised, how they ended, and the answers given. */
  prompts: {
    tool: number;
    dialog: number;
    allowed: number;
    denied: number;
    unanswered: number;
    web: number;
    bot: number;
    withButtons: number;
    toolsRan: number;
    toolTurns: number;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SETTLED = new Set(['Ready', 'Archived', 'ResumeFailed']);

/** One seeded run: start everything, act and break things until `activeMs`, heal, settle, check. */
export async function runSeed(cluster: ChaosCluster, o: RunOptions): Promise<RunResult> {
  const t0 = Date.now();
  const rng = new Prng(o.seed);
  const sys = await startChaosSystem(cluster, { slowChunks: rng.int(10, 30), slowChunkMs: 100 });
  const user = new User(sys, rng, o.seed);
  const faults = new FaultInjector(sys, rng, () => user.sessions.map((s) => s.id), user, o.focus);
  // Never two CLIs on one native id, sampled through the whole run (`desk_start` starts CLIs by hand).
  const sampler = new NativeSampler({ claudeHome: claudeConfigDir(sys.cliEnv), tmuxSocket: sys.tmuxSocket });
  const natives = new Map<string, Set<string>>();
  const harness: string[] = [];
  // A run that fails keeps its folder (journals, agent, hub and bot logs): seed 350011 could not be
  // studied because its folder was gone and its replay was clean.
  let failed = true;
  const watchNatives = async () => {
    const rows = await sys.db.session
      .findMany({ where: { id: { in: user.sessions.map((s) => s.id) } }, select: { id: true, nativeSessionId: true } })
      .catch(() => []);
    for (const r of rows) if (r.nativeSessionId) natives.set(r.id, (natives.get(r.id) ?? new Set()).add(r.nativeSessionId));
  };
  try {
    await sys.startHub();
    await sys.startBot();
    await sys.startAgent();
    await sys.waitOnline();
    sampler.start();
    const end = Date.now() + o.activeMs;
    while (Date.now() < end) {
      if (user.sessions.length > 0 && rng.chance(0.3)) {
        const kind = await faults.inject();
        if (kind) o.log?.(`  fault ${kind} ${new Date().toISOString().slice(11, 23)}`);
      } else {
        const kind = await user.act();
        o.log?.(`  action ${kind} ${JSON.stringify(user.refusals)}`);
        const control = await user.queueControl();
        if (control) o.log?.(`  action ${control} ${JSON.stringify(user.refusals)}`);
      }
      await watchNatives();
      await sleep(rng.int(100, 1500));
    }
    await faults.healAll();
    if (!sys.agentRunning) await sys.startAgent();
    if (!sys.botRunning) await sys.startBot();
    await sys.waitOnline(60_000);
    // Settle: every queue drained and every session at rest, every final out of the outbox.
    const settleMs = o.settleMs ?? 120_000;
    await waitUntil(
      'the system at rest',
      async () => {
        await watchNatives();
        const ids = user.sessions.map((s) => s.id);
        // The user comes back to every request still waiting and answers it from either front end
        // (neither CLI gives up on a request by itself within the run: Bria's bound is 30 minutes).
        for (const p of await pendingPrompts(sys, ids)) await user.prompts.answerAny(p.sessionId, p.id).catch(() => undefined);
        // A dialog in an adopted CLI's pane is answered where it is, by the person at the desk.
        await faults.edge.answerAtDesk(ids).catch(() => 0);
        const busy = (await restless(sys.db, ids)).length;
        const stuck = new Set(await unrecoverable(sys.db, ids));
        const queued = await sys.db.message.count({ where: { sessionId: { in: ids.filter((i) => !stuck.has(i)) }, status: { in: ['pending', 'leased'] } } });
        const outbox = await sys.db.outbox.count({ where: { status: { in: ['pending', 'sending'] } } });
        // Every schedule due has fired (or ended), and every push went out or ended (sent, failed, device gone).
        const due = await sys.db.scheduledMessage.count({ where: { sessionId: { in: ids }, status: 'active', nextRunAt: { lte: new Date() } } });
        const pushes = await sys.db.pushOutbox.count({ where: { status: { in: ['pending', 'sending'] } } });
        return busy === 0 && queued === 0 && outbox === 0 && due === 0 && pushes === 0;
      },
      settleMs,
      500,
    ).catch(async (err: Error) => {
      const rows = await sys.db.session.findMany({ where: { id: { in: user.sessions.map((s) => s.id) } }, select: { id: true, state: true } });
      const msgs = await sys.db.message.groupBy({ by: ['status'], _count: true });
      const out = await sys.db.outbox.groupBy({ by: ['status'], _count: true });
      const still = new Set(
        await restless(
          sys.db,
          rows.map((r) => r.id),
        ),
      );
      // A session can look settled (Ready) while its queue is stuck: print those too.
      const blocked = await sys.db.message.findMany({
        where: { sessionId: { in: rows.map((r) => r.id) }, status: { in: ['pending', 'leased'] } },
        select: { sessionId: true },
        distinct: ['sessionId'],
      });
      for (const b of blocked) still.add(b.sessionId);
      for (const r of rows.filter((x) => still.has(x.id))) {
        if (o.log) await logTimeline(sys.db, r.id, o.log);
      }
      if (o.log) {
        const events = await sys.db.agentEvent.findMany({
          where: { processedAt: null },
          orderBy: { id: 'asc' },
          take: 20,
          select: { seq: true, type: true, sessionId: true, receivedAt: true },
        });
        for (const e of events)
          o.log(`    unprocessed event #${e.seq} ${e.type} ${e.sessionId?.slice(0, 8) ?? '-'} received ${e.receivedAt.toISOString().slice(11, 23)}`);
        for (const line of sys.diagnose()) o.log(`    ${line}`);
      }
      harness.push(
        `not at rest after ${settleMs} ms: sessions ${rows.map((r) => `${r.id.slice(0, 8)}=${r.state}`).join(' ')}; messages ${msgs.map((m) => `${m.status}=${m._count}`).join(' ')}; outbox ${out.map((m) => `${m.status}=${m._count}`).join(' ')} (${err.message.slice(0, 80)})`,
      );
    });
    // Telegram finals need the outbox sender's last round trip.
    await sleep(500);
    const waiting = await unrecoverable(
      sys.db,
      user.sessions.map((s) => s.id),
    );
    if (o.log) {
      // Why each of them waits: the exact resume's refusal, as the agent reported it.
      for (const id of waiting) {
        const why = await sys.db.sessionEvidence.findFirst({
          where: { sessionId: id, event: { in: ['resume_failed', 'reattach_refused'] } },
          orderBy: { id: 'desc' },
        });
        const s = await sys.db.session.findUnique({ where: { id }, select: { executor: true, lastResumeError: true } });
        o.log(
          `    waiting ${id.slice(0, 8)} (${s?.executor}): ${why?.event} ${JSON.stringify(why?.evidence ?? null).slice(0, 300)} ${s?.lastResumeError ?? ''}`,
        );
        await logTimeline(sys.db, id, o.log);
      }
    }
    sampler.stop();
    const explained: string[] = [...sampler.explained];
    const finalSaveFailures = await sys.db.sessionEvidence.count({ where: { event: 'final_save_failed' } });
    const violations = await checkInvariants(sys, {
      sessions: user.sessions,
      sent: user.sent,
      natives,
      explained,
      tools: user.tools,
      answers: user.prompts.answers,
      outaged: faults.edge.schedules,
      deskAnswers: faults.edge.deskAnswers,
    });
    violations.push(...sampler.violations);
    violations.push(...(await checkEdgeFaults(sys, faults.edge)));
    if (sampler.samples === 0) harness.push('the process-table sampler never completed a look');
    const prompts = await promptSummary(sys, user);
    if (violations.length && o.log) {
      for (const m of sys.fake.chatMessages()) o.log(`    chat ${m.message_id}: ${(m.text ?? '').slice(0, 120).replace(/\n/g, ' | ')}`);
      for (const m of await sys.db.message.findMany({ orderBy: [{ sessionId: 'asc' }, { seq: 'asc' }] }))
        o.log(
          `    msg ${m.sessionId.slice(0, 8)} #${m.seq} ${m.status} main=${m.mainMessageId?.slice(0, 8) ?? '-'} id=${m.id.slice(0, 8)} "${m.text}" final=${(m.finalText ?? '').slice(0, 60)} ${m.outcomeDetail ?? ''}`,
        );
      for (const r of await sys.db.outbox.findMany({ orderBy: { id: 'asc' } }))
        o.log(
          `    outbox ${r.id} ${r.kind} ${r.status} a=${r.attempts} next=${r.nextAttemptAt.toISOString().slice(11, 23)} err=${r.lastError ?? ''} ${r.dedupeKey.slice(0, 20)}`,
        );
      for (const s of await sys.db.session.findMany({
        where: { id: { in: user.sessions.map((x) => x.id) } },
        select: { id: true, executor: true, nativeSessionId: true, state: true },
      })) {
        o.log(`    session ${s.id.slice(0, 8)} ${s.executor} ${s.state} native=${s.nativeSessionId ?? '-'}`);
        await logTimeline(sys.db, s.id, o.log);
      }
      for (const ex of ['claude', 'codex'] as const) {
        for (const r of sys.mocks[ex].requests.filter((q) => q.kind === 'turn'))
          o.log(
            `    ${ex} turn native=${r.sessionId ?? '-'} "${(r.userText ?? '').slice(-40)}"${r.toolCall ? ` call ${r.toolCall.name} ${JSON.stringify(r.toolCall.input).slice(0, 60)}` : ''}${r.toolResult ? ` result error=${r.toolResult.isError} ${r.toolResult.content.slice(0, 60)}` : ''}`,
          );
      }
      for (const p of await sys.db.permissionPrompt.findMany({ orderBy: { receivedAt: 'asc' } })) {
        o.log(
          `    prompt ${p.id.slice(0, 8)} ${p.sessionId.slice(0, 8)} ${p.kind} ${p.toolName} ${JSON.stringify(p.toolInput).slice(0, 60)} ${p.state} ${JSON.stringify(p.answer)} from=${p.answeredFrom ?? '-'} ${JSON.stringify(p.resolution ?? null).slice(0, 120)}`,
        );
      }
      for (const a of user.prompts.answers)
        o.log(`    answer ${a.promptId.slice(0, 8)} ${a.decision} via ${a.via} ${new Date(a.at).toISOString().slice(11, 23)} ${a.result}`);
    }
    failed = violations.length > 0 || harness.length > 0 || faults.errors.length > 0;
    return {
      seed: o.seed,
      ms: Date.now() - t0,
      actions: user.counts,
      faults: faults.counts,
      sessions: user.sessions.length,
      messages: user.sent.length,
      violations,
      explained,
      finalSaveFailures,
      unrecoverable: waiting.length,
      harness: [...harness, ...faults.errors],
      missed: faults.missed,
      prompts,
      edge: {
        schedules: faults.edge.schedules.length,
        pushes: faults.edge.pushes.length,
        forges: faults.edge.forges.length,
        takeovers: faults.edge.takeovers,
        deskAnswers: faults.edge.deskAnswers.length,
      },
    };
  } finally {
    sampler.stop();
    faults.dispose();
    await sys.dispose(failed).catch(() => undefined);
  }
}

async function promptSummary(sys: ChaosSystem, user: User): Promise<RunResult['prompts']> {
  const rows = await sys.db.permissionPrompt.findMany({
    where: { sessionId: { in: user.sessions.map((s) => s.id) } },
    select: { id: true, kind: true, answer: true, answeredFrom: true },
  });
  const buttons = sys.fake
    .calls('sendMessage')
    .filter((c) => c.status === 200)
    .map((c) => JSON.stringify(c.params.reply_markup ?? ''));
  const decision = (a: unknown) => (a as { decision?: string } | null)?.decision;
  return {
    tool: rows.filter((r) => r.kind === 'tool').length,
    dialog: rows.filter((r) => r.kind === 'dialog').length,
    allowed: rows.filter((r) => decision(r.answer) === 'allow').length,
    denied: rows.filter((r) => decision(r.answer) === 'deny').length,
    unanswered: rows.filter((r) => !r.answer).length,
    web: rows.filter((r) => r.answeredFrom === 'dashboard').length,
    bot: rows.filter((r) => r.answeredFrom === 'telegram').length,
    withButtons: rows.filter((r) => buttons.some((b) => b.includes(`pr:${r.id}:`))).length,
    toolsRan: user.tools.filter((t) => sideEffect(t).ran(readText(sideEffect(t).file))).length,
    toolTurns: user.tools.length,
  };
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** One session's queue, agent commands and evidence timeline, for a run that needs explaining. */
async function logTimeline(db: Db, sessionId: string, log: (line: string) => void): Promise<void> {
  const id = sessionId.slice(0, 8);
  for (const m of await db.message.findMany({ where: { sessionId }, orderBy: { seq: 'asc' } })) {
    log(`    ${id} msg #${m.seq} ${m.status} id=${m.id.slice(0, 8)} ${m.outcomeDetail ?? ''}`);
  }
  for (const c of await db.agentCommand.findMany({ where: { sessionId }, orderBy: { createdAt: 'asc' } })) {
    log(
      `    ${id} cmd ${c.createdAt.toISOString().slice(11, 23)} ${c.type} ${c.status} a=${c.attempts} id=${c.id.slice(0, 8)} ${JSON.stringify(c.payload).slice(0, 160)} -> ${JSON.stringify(c.result ?? null).slice(0, 200)}`,
    );
  }
  for (const e of await db.sessionEvidence.findMany({ where: { sessionId }, orderBy: { id: 'asc' } })) {
    log(`    ${id} ${e.createdAt.toISOString().slice(11, 23)} ${e.fromState}->${e.toState} ${e.event} ${e.actor} ${JSON.stringify(e.evidence).slice(0, 300)}`);
  }
}

/**
 * Sessions that cannot get back by themselves: AwaitingRecovery whose last exact resume failed (for
 * example a CLI killed before it ever wrote a journal). Bria keeps them waiting, never replaced.
 */
async function unrecoverable(db: Db, ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const s of await db.session.findMany({ where: { id: { in: ids }, state: 'AwaitingRecovery' }, select: { id: true } })) {
    const last = await db.sessionEvidence.findFirst({
      where: { sessionId: s.id, event: { in: ['resume_failed', 'reattach_refused', 'reattached', 'process_exited_verified'] } },
      orderBy: { id: 'desc' },
    });
    if (last && ['resume_failed', 'reattach_refused'].includes(last.event)) out.push(s.id);
  }
  return out;
}

/** Sessions not at rest: neither settled nor waiting unrecoverably. */
async function restless(db: Db, ids: string[]): Promise<string[]> {
  const stuck = new Set(await unrecoverable(db, ids));
  const rows = await db.session.findMany({ where: { id: { in: ids } }, select: { id: true, state: true } });
  return rows.filter((r) => !SETTLED.has(r.state) && !stuck.has(r.id)).map((r) => r.id);
}

export function emptyFaultCounts(): Record<FaultKind, number> {
  return Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
}
