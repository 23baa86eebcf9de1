import { readFileSync, statSync } from 'node:fs';
import type { ChaosSystem } from './chaos-system.ts';
import { type AnswerGiven, sideEffect, type ToolSent } from './prompt-actions.ts';
import type { TrackedSession } from './user-actions.ts';

/** Tools a CLI in an asking mode asks about (Claude's Read inside its folder does not ask). */
const ASKING = new Set(['Bash', 'Write', 'Edit', 'exec_command']);
const TOKEN = /c\d+m\d+z/g;
const OPEN_STATES = new Set(['pending', 'answered', 'waiting_at_computer']);
const tokensIn = (x: unknown) => new Set(JSON.stringify(x ?? null).match(TOKEN) ?? []);

function mtimeOrNull(file: string): number | null {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The permission-request invariants: every request shown once in each front end, answered at most
 * once, the CLI got exactly the answer given (checked on disk and in what the model saw), no denied
 * or unanswered tool ran, and no user message went into a dialog. One line per violation.
 */
export async function checkPrompts(
  sys: ChaosSystem,
  o: {
    sessions: TrackedSession[];
    tools: ToolSent[];
    answers: AnswerGiven[];
    explained?: string[];
    /** Dialogs the person at the desk answered with Enter in an adopted CLI's pane (`EdgeFaults.answerAtDesk`). */
    deskAnswers?: { sessionId: string; at: number }[];
  },
): Promise<string[]> {
  const v: string[] = [];
  const ids = o.sessions.map((s) => s.id);
  const rows = await sys.db.permissionPrompt.findMany({ where: { sessionId: { in: ids } }, orderBy: { receivedAt: 'asc' } });
  const sessions = new Map((await sys.db.session.findMany({ where: { id: { in: ids } }, select: { id: true, state: true } })).map((s) => [s.id, s.state]));
  const toolBySession = new Map(o.tools.map((t) => [t.token, t]));
  const messageTokens = new Set(o.tools.map((t) => t.token));
  for (const m of await sys.db.message.findMany({ where: { sessionId: { in: ids } }, select: { text: true } }))
    for (const t of m.text.match(TOKEN) ?? []) messageTokens.add(t);

  // What the models asked for and what they were told back, per token.
  const calls = new Map<string, number>();
  const results = new Map<string, { denied: boolean; content: string }[]>();
  for (const ex of ['claude', 'codex'] as const) {
    for (const r of sys.mocks[ex].requests) {
      if (r.toolCall && ASKING.has(r.toolCall.name)) for (const t of tokensIn(r.toolCall.input)) calls.set(t, (calls.get(t) ?? 0) + 1);
      const res = r.toolResult;
      if (res && ASKING.has(res.toolName ?? '')) {
        // Claude marks a denial `is_error`; Codex hands back `Rejected("<message>")` as the command's output.
        const denied = res.isError || /Rejected\(/.test(res.content);
        for (const t of tokensIn(res.toolInput)) results.set(t, [...(results.get(t) ?? []), { denied, content: res.content.slice(0, 80) }]);
      }
    }
  }

  const commands = await sys.db.agentCommand.findMany({
    where: { sessionId: { in: ids }, type: { in: ['answer_permission', 'answer_dialog'] } },
    select: { type: true, payload: true },
  });
  const answeredEv = await sys.db.sessionEvidence.findMany({ where: { sessionId: { in: ids }, event: 'permission_answered' }, select: { evidence: true } });
  const sends = sys.fake.calls('sendMessage').filter((c) => c.status === 200 && c.outcome === 'answered');
  const perToken = new Map<string, typeof rows>();

  for (const p of rows) {
    const id = p.id.slice(0, 8);
    const own = p.kind === 'tool' ? [...tokensIn(p.toolInput)] : [];
    for (const t of own) perToken.set(t, [...(perToken.get(t) ?? []), p]);
    if (p.kind === 'tool' && own.length === 0) v.push(`prompt ${id} (${p.toolName}) names no tool call of the run`);
    // No message in a dialog: a prompt carries no token but its own tool call's, in what it asked or was answered.
    for (const t of new Set([...tokensIn(p.toolInput), ...tokensIn(p.answer)])) {
      if (!own.includes(t) && messageTokens.has(t)) v.push(`prompt ${id} (${p.kind}) carries the message token ${t}: a message went into a dialog`);
    }
    // Answered at most once: one answer recorded, one command to the agent, the answer one the user gave.
    const ev = answeredEv.filter((e) => (e.evidence as { requestId?: string }).requestId === p.id);
    if (ev.length > 1) v.push(`prompt ${id} answered ${ev.length} times`);
    const cmds = commands.filter((c) => (c.payload as { requestId?: string }).requestId === p.id);
    const cancel = p.kind === 'dialog' && (p.answer as { decision?: string } | null)?.decision === 'deny';
    const byUser = p.answeredFrom === 'telegram' || p.answeredFrom === 'dashboard';
    if (cmds.length > 1 || (byUser && !cancel && cmds.length !== 1) || (!byUser && cmds.length > 0))
      v.push(`prompt ${id} (${p.answeredFrom ?? 'unanswered'}) has ${cmds.length} answer commands`);
    for (const c of cmds)
      if ((c.payload as { answerId?: string }).answerId && (c.payload as { answerId?: string }).answerId !== p.answerId)
        v.push(`prompt ${id}: the command carries another answer than the one recorded`);
    const decision = (p.answer as { decision?: string } | null)?.decision;
    if (byUser) {
      const via = p.answeredFrom === 'dashboard' ? 'web' : 'bot';
      if (!o.answers.some((a) => a.promptId === p.id && a.via === via && a.decision === decision))
        v.push(`prompt ${id} recorded ${decision} from ${p.answeredFrom}, which the user never gave there`);
    }
    const webWins = o.answers.filter((a) => a.promptId === p.id && a.via === 'web' && a.result === 'answered');
    if (webWins.length > 1 || (webWins.length === 1 && (p.answeredFrom !== 'dashboard' || webWins[0]!.decision !== decision)))
      v.push(`prompt ${id}: the dashboard was told "answered" ${webWins.length} times, the row says ${decision} from ${p.answeredFrom}`);
    // Reported as what happened: at rest, no request of a settled session is still open.
    const st = sessions.get(p.sessionId) ?? '';
    if (OPEN_STATES.has(p.state) && ['Ready', 'Archived', 'ResumeFailed'].includes(st)) v.push(`prompt ${id} still ${p.state} while its session is ${st}`);
    // Shown once in Telegram: one answered sendMessage carrying its buttons (the bot-kill window allowed, as for finals).
    const shown = sends.filter((c) => JSON.stringify(c.params.reply_markup ?? '').includes(`pr:${p.id}:`));
    const key = `prompt:${p.id}:open:${sys.chatId}`;
    const first = shown[0];
    const answeredAt = first ? first.at + (first.durationMs ?? 0) : Number.POSITIVE_INFINITY;
    if (shown.length === 2 && sys.botKills.some((k) => k.sending.includes(key) && answeredAt <= k.at))
      o.explained?.push(`request message of prompt ${id} sent twice: the bot was SIGKILLed after Telegram answered and before the outbox row was marked sent`);
    else if (shown.length > 1) v.push(`prompt ${id} (${p.kind}) shown ${shown.length} times in Telegram`);
    if (!(await sys.db.outbox.findUnique({ where: { dedupeKey: key }, select: { id: true } })))
      v.push(`prompt ${id} (${p.kind}) was never queued for Telegram`);
  }

  // One row per CLI request; the answer the CLI got is the one given; no denied or unanswered tool ran.
  for (const t of o.tools) {
    const prompts = perToken.get(t.token) ?? [];
    const asked = calls.get(t.token) ?? 0;
    if (prompts.length > asked) v.push(`tool ${t.token}: ${prompts.length} prompt rows for ${asked} tool calls`);
    for (const p of prompts) if (p.sessionId !== t.sessionId) v.push(`tool ${t.token}: its prompt belongs to another session`);
    const { file, ran } = sideEffect(t);
    const didRun = ran(readOrNull(file));
    const allows = prompts.filter((p) => (p.answer as { decision?: string } | null)?.decision === 'allow');
    const seen = results.get(t.token) ?? [];
    // An adopted CLI (begun by hand) has no Bria hooks: its dialog stays in its pane and the person at
    // the desk may allow it there. Only a tool whose file was written after that Enter in its own
    // session counts as allowed at the desk (a paste that answered the dialog would come before it).
    const written = didRun ? mtimeOrNull(file) : null;
    const atDesk = (o.deskAnswers ?? []).find((d) => d.sessionId === t.sessionId && written !== null && written >= d.at);
    if (didRun && allows.length === 0 && prompts.length === 0 && atDesk)
      o.explained?.push(
        `tool ${t.token} (${t.word}) ran after the person at the desk answered its dialog in the adopted pane (Enter at ${new Date(atDesk.at).toISOString().slice(11, 23)})`,
      );
    else if (didRun && allows.length === 0)
      v.push(
        `tool ${t.token} (${t.word}) ran without an allow (${prompts.map((p) => `${p.state}/${(p.answer as { decision?: string } | null)?.decision ?? '-'}`).join(', ') || 'no prompt'})`,
      );
    for (const p of prompts.filter((x) => x.state === 'delivered')) {
      const d = (p.answer as { decision?: string } | null)?.decision;
      if (d === 'deny' && seen.some((r) => !r.denied)) v.push(`tool ${t.token}: denied, but the model saw a result that is not a denial`);
      if (d === 'allow' && seen.some((r) => r.denied))
        v.push(`tool ${t.token}: allowed, but the model saw a denial (${seen.map((r) => r.content).join(' | ')})`);
      if (d === 'allow' && seen.length > 0 && !didRun)
        v.push(`tool ${t.token}: allowed and reported done to the model, but ${file.split('/').pop()} shows it never ran`);
    }
    if (seen.length > 1) v.push(`tool ${t.token}: the model got its result ${seen.length} times`);
  }
  for (const token of perToken.keys()) if (!toolBySession.has(token)) v.push(`a prompt for ${token}, which no coding turn of the run asked for`);

  // Visible to the dashboard: its list of each session's prompts holds every open one, once.
  for (const id of ids) {
    const listed = await sys.services
      .prompts(id)
      .then((r) => r.prompts.map((p) => p.id))
      .catch(() => null);
    if (!listed) continue;
    if (new Set(listed).size !== listed.length) v.push(`the dashboard lists a prompt of ${id.slice(0, 8)} twice`);
    for (const p of rows.filter((x) => x.sessionId === id && OPEN_STATES.has(x.state)))
      if (!listed.includes(p.id)) v.push(`open prompt ${p.id.slice(0, 8)} missing from the dashboard`);
  }
  return v;
}
