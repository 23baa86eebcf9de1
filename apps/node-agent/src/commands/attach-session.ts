import type { Executor } from '../executors/index.ts';
import { bindSession } from './bind-session.ts';
import { safeIdentity } from './cli-process.ts';
import { identityFromReport, reportIdentity } from './host-event-map.ts';
import type { Result, SessionRuntime } from './session-runtime.ts';

export interface AttachParams {
  executor: Executor;
  folder: string;
  identity: Record<string, unknown>;
}

/**
 * `attach_session`: binds to the session's running CLI only if its whole identity still holds. A CLI
 * that is verifiably gone is reported as exited (the hub then resumes it exactly); anything else that
 * differs is a mismatch and never a reason to start another process.
 */
export async function attachSession(rt: SessionRuntime, sessionId: string, p: AttachParams): Promise<Result> {
  const rec = rt.registry.get(sessionId);
  const live = rt.hosts.get(sessionId);
  const dialog = rt.dialogs.get(sessionId);
  if (dialog && live === dialog.host && rec?.status === 'live' && !rec.identity) {
    // A start still waiting for the user on its dialog has nothing to re-attach to yet: its watch is
    // kept under this generation (as for a repeated start), so the answer on the computer still
    // makes the session Ready; dropping it here left the session recovering for ever.
    dialog.generation = rec.generation;
    return { ok: false, blocked: true, error: 'the CLI waits for the user to answer its dialog on the computer' };
  }
  if (live && rec?.status === 'live' && rec.identity) {
    rt.send(sessionId, 'reattached', { identity: reportIdentity(safeIdentity(live) ?? rec.identity) });
    rt.replayRecent(sessionId);
    return { ok: true, already: true };
  }
  const identity = rec?.identity ?? identityFromReport(p.identity);
  if (!rec) rt.registry.put(sessionId, { executor: p.executor, folder: p.folder, identity, status: 'live', deliveries: [] });
  return bindSession(rt, sessionId, identity);
}
