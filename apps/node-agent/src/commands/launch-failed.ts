import { ExecutorError, type SessionHost } from '../executors/index.ts';
import type { Result, SessionRuntime } from './session-runtime.ts';

/** The answer and events of a start or resume whose CLI did not come up as the session asked for. */
export async function launchFailed(rt: SessionRuntime, sessionId: string, host: SessionHost, err: unknown, what: 'start' | 'resume'): Promise<Result> {
  const e = err instanceof ExecutorError ? err : new ExecutorError(what === 'start' ? 'start_failed' : 'resume_failed', (err as Error).message);
  const said = typeof e.details.cliSaid === 'string' ? e.details.cliSaid : '';
  // The CLI's own failure words are the diagnosis (a timeout under load, a refusal); kept short.
  rt.o.log('warn', `agent.${what}_failed`, { sessionId, code: e.code, reason: e.message.slice(0, 300), ...(said ? { cliSaid: said.slice(0, 300) } : {}) });
  if (e.code === 'blocked_on_prompt' && what === 'start') return { ok: false, error: e.message, blocked: true };
  if (what === 'resume') {
    // A CLI that came up but did not confirm the id, or never reached its prompt in time, is
    // ended: it is not (or not yet proven to be) the session asked for, and the hub's next
    // attempt launches another one, which it would hold the conversation against (Codex: "This
    // conversation is open in another app"; docs/reliability.md).
    await host.close().catch(() => undefined);
    rt.registry.put(sessionId, { status: 'exited' });
    // A dialog before the conversation reopens (folder trust, login) fails the resume too, with its
    // text as the cause: Bria never answers it, and a CLI left on it would be a second one beside
    // the next attempt's.
    const dialog = e.code === 'blocked_on_prompt' && typeof e.details.promptText === 'string' ? e.details.promptText.trim() : '';
    const reason = dialog
      ? `the CLI asks on the computer before it reopens the conversation (Bria never answers it): ${dialog}`
      : `${e.message}${said ? `: ${said}` : ''}`;
    rt.send(sessionId, 'resume_failed', { reason: reason.slice(0, 500) });
    return { ok: false, error: e.message };
  }
  const exitStatus = typeof e.details.exitStatus === 'number' ? e.details.exitStatus : null;
  rt.registry.put(sessionId, { status: 'exited' });
  if (e.code === 'start_failed') rt.send(sessionId, 'process_exited', { pids: [], exitStatus, paneDead: true, verified: true });
  else rt.send(sessionId, 'observer_lost', { reason: e.message.slice(0, 200) });
  return { ok: false, error: e.message };
}
