import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { claudeDriver, codexDriver, type Executor, ExecutorError, type SessionHost, type SessionIdentity } from '../executors/index.ts';
import { folderTrustDialog } from '../executors/screen.ts';
import { crashPoint } from '../test-crash.ts';
import { bindSession } from './bind-session.ts';
import { waitOutStartDialog } from './blocked-start.ts';
import { processGone, safeIdentity } from './cli-process.ts';
import { deskCheck } from './desk-check.ts';
import { reportIdentity } from './host-event-map.ts';
import { journalFilesOnDisk } from './journal-content.ts';
import { launchFailed } from './launch-failed.ts';
import { nativeConversationOnDisk, setAsideEmptyClaudeJournal } from './native-conversation.ts';
import { mayHaveTyped, onlyUnboundMarks } from './record-checks.ts';
import { modeOf, type Result, type SessionRuntime } from './session-runtime.ts';

export interface StartParams {
  generation: number;
  executor: Executor;
  folder: string;
  permissionMode: string;
  model?: string;
  nativeSessionId?: string;
}

/** `start_session`: a new CLI for the session, or the one it already has; never a second one. */
export async function startSession(rt: SessionRuntime, sessionId: string, p: StartParams): Promise<Result> {
  const rec = rt.registry.get(sessionId);
  const live = rt.hosts.get(sessionId);
  if (rec?.status === 'live' && rec.identity && live) {
    // Idempotent: the CLI of this session already runs; it is reported, never started twice.
    rt.send(sessionId, 'session_ready', { identity: reportIdentity(rec.identity) });
    return { ok: true, alreadyRunning: true };
  }
  const dialog = rt.dialogs.get(sessionId);
  if (dialog && rt.hosts.get(sessionId) === dialog.host && !rec?.identity && rec?.status === 'live') {
    // Its CLI still waits for the user on a dialog: asked again (recovery retry), that same CLI is
    // kept and watched under the new generation — never ended and shown again every minute.
    dialog.generation = p.generation;
    return { ok: false, blocked: true, error: 'the CLI waits for the user to answer its dialog on the computer' };
  }
  if (rec?.identity && !(await processGone(rec.identity))) {
    // The CLI this session was bound to still runs (the hub asks for a start while recovering a
    // session that never took a message): it is bound again exactly, never doubled by a second CLI.
    return bindSession(rt, sessionId, rec.identity);
  }
  let typed = mayHaveTyped(rec, journalFilesOnDisk);
  if (typed && rec && onlyUnboundMarks(rec, journalFilesOnDisk) && (await nativeConversationOnDisk(rec, rt.o.env)) === false) {
    // Marks of pastes that never got a receipt, and the dead CLI's own store holds no conversation
    // under its id: no prompt was ever submitted, so nothing reached a model and there is nothing a
    // start again could replace (refusing here left the session waiting for ever; docs/reliability.md).
    rt.o.log('info', 'agent.start_past_unbound_marks', { sessionId, messages: rec.deliveries?.map((d) => d.messageId) ?? [] });
    typed = null;
  }
  if (typed) {
    // Starting again is only for a CLI that never held a conversation; here something may have
    // reached the earlier one. Nothing is started; the session keeps waiting with the reason.
    rt.o.log('warn', 'agent.start_refused', { sessionId, reason: typed });
    rt.send(sessionId, 'resume_failed', { reason: `not started again: ${typed}`, code: 'conversation_may_exist' });
    return { ok: false, error: `not started again: ${typed}`, refused: true };
  }
  await rt.dropDeadPane(rec);
  // A CLI of an earlier attempt that was never confirmed (no identity recorded) never received a
  // key and cannot be bound: it is ended first, so two CLIs never share one session id.
  const earlier = !rec?.identity && live ? safeIdentity(live) : null;
  if (earlier) {
    await rt.o.tmux.killSession(earlier.tmuxSession).catch(() => undefined);
    // Its last writes (a Claude ending before its first prompt leaves a journal of mode lines) come
    // before the journal check below; bounded, a CLI that will not die is not waited on for ever.
    for (let i = 0; i < 50 && !(await processGone(earlier)); i++) await sleep(100);
    if (!(await processGone(earlier))) {
      // Never a second CLI beside one that has not ended yet (a slow start on a busy machine): the
      // hub asks again on its recovery schedule, and this earlier CLI is ended again then.
      rt.o.log('warn', 'agent.start_waits_for_earlier_cli', { sessionId, pid: earlier.cliPid });
      rt.send(sessionId, 'observer_lost', { reason: 'the earlier CLI of this session has not ended yet' });
      return { ok: false, error: 'the earlier CLI of this session has not ended yet; not starting another beside it' };
    }
  }
  if (p.nativeSessionId) {
    const held = await deskCheck(rt, { sessionId, generation: p.generation, executor: p.executor, nativeId: p.nativeSessionId });
    if (held) return held;
  }
  rt.registry.put(sessionId, {
    executor: p.executor,
    folder: p.folder,
    generation: p.generation,
    status: 'live',
    identity: null,
    turns: [],
    unconfirmed: [],
    deliveries: [],
    recent: [],
    journalOffset: 0,
  });
  crashPoint('start:launching');
  if (p.executor === 'claude' && p.nativeSessionId) {
    const moved = await setAsideEmptyClaudeJournal(p.folder, p.nativeSessionId, rt.o.env);
    if (moved.length > 0) rt.o.log('info', 'agent.start_set_aside_empty_journal', { sessionId, files: moved.length });
  }
  const host = rt.newHost(sessionId, p.executor, p.nativeSessionId);
  const startedAt = Date.now();
  try {
    const id = await host.start({
      cwd: p.folder,
      permissionMode: modeOf(p.executor, p.permissionMode),
      ...(p.model ? { model: p.model } : {}),
      sessionName: rt.sessionName(sessionId, p.generation),
      ...rt.hookLaunch(sessionId, p.executor),
    });
    rt.registry.put(sessionId, { identity: id });
    rt.send(sessionId, 'session_ready', { identity: reportIdentity(id) });
    return { ok: true, nativeSessionId: id.nativeId };
  } catch (err) {
    if (err instanceof ExecutorError && err.code === 'blocked_on_prompt') watchBlockedStart(rt, sessionId, host, err, p, startedAt);
    return launchFailed(rt, sessionId, host, err, 'start');
  }
}

/**
 * A start that ended on a dialog the CLI shows (trust, permission, login): the CLI is left on it
 * (never answered by Bria; the chat was told its text as `blocked_on_prompt`) and watched until the
 * user answers it on the computer. Then the start is finished and `session_ready` sent, so the
 * session does not stay Starting for ever; a CLI that died instead is a verified exit (the hub
 * starts it again on its recovery schedule). Nothing was ever typed into it.
 */
function watchBlockedStart(
  rt: SessionRuntime,
  sessionId: string,
  host: SessionHost,
  err: ExecutorError,
  p: { generation: number; executor: Executor; nativeSessionId?: string },
  startedAt: number,
): void {
  const identity = err.details.identity as SessionIdentity | undefined;
  if (!identity) return;
  const watch = { host, generation: p.generation, since: p.generation, paneId: identity.paneId };
  rt.dialogs.set(sessionId, watch);
  const current = () => {
    const rec = rt.registry.get(sessionId);
    return (
      rt.dialogs.get(sessionId) === watch && rt.hosts.get(sessionId) === host && rec?.generation === watch.generation && rec.status === 'live' && !rec.identity
    );
  };
  const driver = p.executor === 'claude' ? claudeDriver : codexDriver;
  const reported = typeof err.details.promptText === 'string' ? err.details.promptText : null;
  void waitOutStartDialog({
    tmux: rt.o.tmux,
    driver,
    env: rt.o.env,
    identity,
    expectedId: p.nativeSessionId ?? null,
    startedAt,
    current,
    reported,
    onBlocked: (text) =>
      rt.send(sessionId, 'blocked_on_prompt', { text: text.slice(0, 4000), ...(folderTrustDialog(text) ? { dialog: 'folder_trust' as const } : {}) }),
  })
    .then((r) =>
      rt.serial(sessionId, async () => {
        const still = current();
        if (rt.dialogs.get(sessionId) === watch) rt.dialogs.delete(sessionId);
        if (!still) return;
        rt.o.log('info', 'agent.blocked_start_ended', { sessionId, state: r.state, ...(r.state === 'mismatch' ? { reason: r.reason } : {}) });
        if (r.state === 'ready') {
          const h = rt.newHost(sessionId, p.executor, r.identity.nativeId);
          // Claude's journal appears only with the first prompt: until then it is found at the first delivery.
          const j = r.identity.journalPath;
          const a = await h.attach({ ...r.identity, journalPath: j && existsSync(j) ? j : null });
          if (a.ok) {
            const id = safeIdentity(h) ?? r.identity;
            rt.registry.put(sessionId, { identity: id });
            rt.send(sessionId, 'session_ready', { identity: reportIdentity(id) });
            return;
          }
        }
        if (r.state === 'abandoned') return;
        // Died on (or after) its dialog, or not the CLI asked for: ended, never bound.
        if (r.state !== 'dead') await rt.o.tmux.killSession(identity.tmuxSession).catch(() => undefined);
        rt.registry.put(sessionId, { status: 'exited' });
        rt.send(sessionId, 'process_exited', { pids: [identity.cliPid], exitStatus: r.state === 'dead' ? r.exitStatus : null, paneDead: true, verified: true });
      }),
    )
    .catch((e: Error) => rt.o.log('error', 'agent.blocked_start_watch_failed', { sessionId, err: e.message }));
}
