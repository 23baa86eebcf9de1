import { isRecordedProcess } from '../../packages/testkit/src/system.ts';
import type { ChaosSystem, Executor } from './chaos-system.ts';
import type { AnswerGiven, ToolSent } from './prompt-actions.ts';
import { type ScheduleRecord, scheduleViolations } from './edge-invariants.ts';
import { checkPrompts } from './prompt-invariants.ts';
import type { SentText, TrackedSession } from './user-actions.ts';

const STATES = new Set(['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery', 'Closing', 'Archived', 'ResumeFailed']);
/** Statuses that prove the text was typed into the CLI and accepted by it. */
const TYPED = new Set(['accepted', 'completed', 'terminal_failed']);

const endsWith = (userText: string | null | undefined, text: string) => (userText ?? '').trimEnd().endsWith(text);

/**
 * The run's invariants, read from the mock models' request logs, tmux, /proc and the database
 * after everything healed. Returns one line per violation (empty when the run kept every promise).
 * `natives` holds every native id each session was ever seen with during the run.
 */
export async function checkInvariants(
  sys: ChaosSystem,
  o: {
    sessions: TrackedSession[];
    sent: SentText[];
    natives: Map<string, Set<string>>;
    explained?: string[];
    tools?: ToolSent[];
    answers?: AnswerGiven[];
    outaged?: ScheduleRecord[];
    deskAnswers?: { sessionId: string; at: number }[];
  },
): Promise<string[]> {
  const v: string[] = [];
  // The requests that carry a user's message. Codex's request after a tool call repeats the turn's
  // prompt as its latest user message (the last input item is the call's output): that is the same
  // turn going on, not the message typed again. Claude's shows the tool result as its latest message.
  const turns = (ex: Executor) => sys.mocks[ex].requests.filter((r) => r.kind === 'turn' && !(ex === 'codex' && r.toolResult));
  const byText = new Map(o.sent.map((s) => [s.text, s]));
  const rows = await sys.db.session.findMany({ include: { archive: true } });
  const mine = new Set(o.sessions.map((s) => s.id));

  // Sessions: a known state, their own node, one native id for life, one row per native id.
  for (const s of rows) {
    if (!STATES.has(s.state)) v.push(`session ${s.id.slice(0, 8)} in a made-up state ${s.state}`);
    if (s.nodeId !== sys.nodeId) v.push(`session ${s.id.slice(0, 8)} moved to node ${s.nodeId}`);
    if (s.launchSource !== 'discovered' && !mine.has(s.id)) v.push(`session ${s.id.slice(0, 8)} was created by nobody (a replacement session)`);
    if (s.nativeSessionId && rows.filter((r) => r.nativeSessionId === s.nativeSessionId).length !== 1)
      v.push(`native id ${s.nativeSessionId} maps to several Bria sessions`);
  }
  // One exception, by decision (domain README 7): a Codex CLI that died before any conversation began
  // is started again and shows a new id. Allowed only with the engine's `native_id_replaced`
  // evidence for exactly that change, and only if no model ever saw the id that was replaced.
  const replaced = await sys.db.sessionEvidence.findMany({ where: { event: 'native_id_replaced' }, select: { sessionId: true, evidence: true } });
  const modelSaw = new Set((['claude', 'codex'] as const).flatMap((ex) => turns(ex)).map((r) => r.sessionId));
  for (const t of o.sessions) {
    const seen = new Set(o.natives.get(t.id) ?? []);
    for (const r of replaced.filter((x) => x.sessionId === t.id)) {
      const e = r.evidence as { previous?: string; now?: string };
      if (!e.previous || !seen.has(e.previous)) continue;
      if (modelSaw.has(e.previous)) v.push(`session ${t.id.slice(0, 8)} replaced native id ${e.previous}, which a model had already seen`);
      else seen.delete(e.previous);
    }
    if (seen.size > 1) v.push(`session ${t.id.slice(0, 8)} changed its native id: ${[...seen].join(', ')}`);
  }
  // Every native session the models were asked about is one Bria session's.
  for (const ex of ['claude', 'codex'] as const) {
    for (const r of turns(ex)) {
      if (r.sessionId && !rows.some((s) => s.nativeSessionId === r.sessionId)) v.push(`${ex} turn for native ${r.sessionId} that no Bria session owns`);
    }
  }

  // Messages: typed exactly once, in order, only into their own session; never typed when not proven.
  for (const t of o.sessions) {
    const s = rows.find((r) => r.id === t.id);
    if (!s) {
      v.push(`session ${t.id.slice(0, 8)} disappeared from the database`);
      continue;
    }
    const msgs = await sys.db.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' } });
    const mineTurns = s.nativeSessionId ? turns(t.executor).filter((r) => r.sessionId === s.nativeSessionId) : [];
    let lastSeq = -1;
    for (const r of mineTurns) {
      const m = msgs.find((x) => endsWith(r.userText, x.text));
      if (!m) continue;
      if (m.seq < lastSeq) v.push(`session ${s.id.slice(0, 8)}: "${m.text}" reached the model after a later message`);
      lastSeq = Math.max(lastSeq, m.seq);
    }
    for (const m of msgs) {
      const n = mineTurns.filter((r) => endsWith(r.userText, m.text)).length;
      const elsewhere = (['claude', 'codex'] as const)
        .flatMap((ex) => turns(ex))
        .filter((r) => r.sessionId !== s.nativeSessionId && endsWith(r.userText, m.text)).length;
      if (elsewhere > 0) v.push(`"${m.text}" reached another native session`);
      if (m.status === 'cancelled' && n !== 0) v.push(`cancelled "${m.text}" reached the model ${n} times`);
      // An edit won before any hand-over: the text as first sent must never have been typed anywhere.
      if (m.originalText !== null) {
        const draft = (['claude', 'codex'] as const).flatMap((ex) => turns(ex)).filter((r) => endsWith(r.userText, m.originalText as string)).length;
        if (draft > 0) v.push(`"${m.originalText}" (edited to "${m.text}") reached the model ${draft} times as first sent`);
      }
      if (TYPED.has(m.status) && n !== 1) v.push(`"${m.text}" (${m.status}) reached the model ${n} times`);
      else if (m.status === 'unknown' && n > 1) v.push(`unknown "${m.text}" was re-sent (${n} times)`);
      else if (['pending', 'failed'].includes(m.status) && n !== 0) v.push(`"${m.text}" (${m.status}) reached the model ${n} times without proof`);
      else if (m.status === 'leased' && n > 1) v.push(`leased "${m.text}" reached the model ${n} times`);
      const sentAs = byText.get(m.text);
      if (sentAs?.outcome === 'refused') v.push(`refused "${m.text}" was queued`);
    }
  }
  // Scheduled messages (issue 33): never lost — a schedule that says it sent holds its message, and
  // nothing due is left unfired once the system is at rest; never twice — one message per occurrence
  // (its source key is unique), and that message follows every rule above.
  const schedules = await sys.db.scheduledMessage.findMany({ where: { sessionId: { in: [...mine] } } });
  const scheduled = [];
  for (const sc of schedules) scheduled.push({ ...sc, queued: await sys.db.message.count({ where: { sourceKey: { startsWith: `schedule:${sc.id}:` } } }) });
  v.push(...scheduleViolations(scheduled, Date.now(), o.outaged ?? []));

  // Nothing refused (or never stored) reached any model.
  const stored = new Set((await sys.db.message.findMany({ select: { text: true } })).map((m) => m.text));
  for (const s of o.sent) {
    if (stored.has(s.text)) continue;
    const n = (['claude', 'codex'] as const).flatMap((ex) => turns(ex)).filter((r) => endsWith(r.userText, s.text)).length;
    if (n > 0) v.push(`"${s.text}" (${s.via}, ${s.outcome}, never stored) reached a model ${n} times`);
  }

  // Closed means closed: process gone, pane gone or dead, archive copy stored. Except an adopted CLI
  // (docs/handoff.md, "Close releases the pane"): its close leaves the CLI and its pane in the
  // person's own tmux as they were, and says so (`released`, `cliLeftRunning: <pid>`); its pane id
  // names a pane of that server, not of Bria's.
  const panes = sys.panes();
  for (const s of rows.filter((r) => r.state === 'Archived' && r.launchSource !== 'discovered')) {
    const host = (s.identity as { host?: { cliPid: number; cliStartTime: string; paneId: string; tmuxSocket?: string } } | null)?.host;
    const lastEnd = await sys.db.sessionEvidence.findFirst({
      where: { sessionId: s.id, event: 'process_exited_verified' },
      orderBy: { id: 'desc' },
      select: { evidence: true },
    });
    const end = (lastEnd?.evidence ?? {}) as { released?: boolean; cliLeftRunning?: number };
    const released = host !== undefined && end.released === true && end.cliLeftRunning === host.cliPid;
    const socket = host?.tmuxSocket ?? (s.identity as { tmuxSocket?: string } | null)?.tmuxSocket;
    const userServer = socket?.startsWith('/') === true;
    if (host && !released && isRecordedProcess(host.cliPid, host.cliStartTime))
      v.push(`archived session ${s.id.slice(0, 8)} still has its CLI process ${host.cliPid}`);
    if (host && !userServer && panes.get(host.paneId)?.dead === false) v.push(`archived session ${s.id.slice(0, 8)} still has a live pane ${host.paneId}`);
    if (!s.archive && !(await closedWithoutJournal(sys, s.id))) v.push(`archived session ${s.id.slice(0, 8)} has no archive record`);
  }

  // Every saved final reached Telegram exactly once: one answered sendMessage carrying it (the fake's
  // call log, since the chat's current view changes as cards are redrawn) and no delete of it after.
  // A "waiting for an answer on the computer" notice quotes the pane's screen, which may show an earlier
  // final: it is a picture of the terminal, not a delivery of that final (seed 350102).
  const sends = sys.fake
    .calls('sendMessage')
    .filter((c) => c.status === 200 && c.outcome === 'answered' && !String(c.params.text ?? '').includes('is waiting for an answer on the computer:'));
  const deleted = new Set(
    sys.fake
      .calls('deleteMessage')
      .filter((c) => c.status === 200)
      .map((c) => Number(c.params.message_id)),
  );
  for (const m of await sys.db.message.findMany({ where: { finalText: { not: null } } })) {
    // The mock's finals are unique (a per-server counter and the user's unique text); the bot may
    // render or split them, so the first line, shortened, identifies one.
    const head = (m.finalText ?? '').split('\n')[0]!.slice(0, 60);
    const hits = sends.filter((c) => String(c.params.text ?? '').includes(head));
    const row = await sys.db.outbox.findUnique({ where: { dedupeKey: `final:${m.id}:${sys.chatId}` } });
    // A background session's final is held until the user opens that session (its notice offers it).
    const held = (row?.payload as { active?: boolean } | undefined)?.active === false;
    // The outbox's one duplicate window, by design (Telegram has no idempotency key): the bot was
    // SIGKILLed while it held this row (`sending`) after Telegram had answered the send, so the row
    // came back after its lease and was sent once more. Allowed only for exactly that: two sends,
    // the first answered before a kill that found the row still `sending`.
    const first = hits[0];
    const answeredAt = first ? first.at + (first.durationMs ?? 0) : Number.POSITIVE_INFINITY;
    const killWindow = row && hits.length === 2 && sys.botKills.some((k) => k.sending.includes(row.dedupeKey) && answeredAt <= k.at);
    if (!row) v.push(`final of "${m.text}" was never queued for Telegram`);
    else if (killWindow)
      o.explained?.push(`final of "${m.text}" sent twice: the bot was SIGKILLed after Telegram answered and before the outbox row was marked sent`);
    else if (held ? hits.length > 1 : hits.length !== 1)
      v.push(`final of "${m.text}"${held ? ' (held, background)' : ''} reached Telegram ${hits.length} times`);
    for (const h of hits) {
      const id = (h.response as { result?: { message_id?: number } } | undefined)?.result?.message_id;
      if (id !== undefined && deleted.has(id)) v.push(`final of "${m.text}" was deleted from the chat afterwards`);
    }
  }
  v.push(
    ...(await checkPrompts(sys, {
      sessions: o.sessions,
      tools: o.tools ?? [],
      answers: o.answers ?? [],
      ...(o.explained ? { explained: o.explained } : {}),
      ...(o.deskAnswers ? { deskAnswers: o.deskAnswers } : {}),
    })),
  );
  return v;
}

/**
 * An archived session may lack an archive record only when its CLI never wrote a journal: the agent's
 * close evidence (the latest verified exit while Closing) says `journal: 'none'` and no message of it
 * was ever typed or possibly typed (domain README, decision 15).
 */
async function closedWithoutJournal(sys: ChaosSystem, sessionId: string): Promise<boolean> {
  const close = await sys.db.sessionEvidence.findFirst({
    where: { sessionId, event: 'process_exited_verified', fromState: 'Closing' },
    orderBy: { id: 'desc' },
  });
  if ((close?.evidence as { journal?: unknown } | null)?.journal !== 'none') return false;
  const typed = await sys.db.message.count({ where: { sessionId, status: { in: ['accepted', 'completed', 'terminal_failed', 'unknown'] } } });
  return typed === 0;
}
