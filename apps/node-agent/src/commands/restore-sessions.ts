import { bindSession } from './bind-session.ts';
import type { SessionRecord } from './registry.ts';
import type { SessionRuntime } from './session-runtime.ts';

/** After an agent restart: every session that was live is re-attached exactly (or reported gone). */
export async function restoreSessions(rt: SessionRuntime): Promise<void> {
  for (const rec of rt.registry.all()) {
    if (rec.status !== 'live') continue;
    if (!rec.identity) {
      await endUnconfirmed(rt, rec);
      continue;
    }
    await bindSession(rt, rec.sessionId, rec.identity).catch((err: Error) =>
      rt.o.log('error', 'agent.reattach_failed', { sessionId: rec.sessionId, err: err.message }),
    );
  }
}

/**
 * A CLI this agent launched but never confirmed, found after its own restart: a start that ended
 * on a dialog and was being watched (the watch died with the earlier run). Nobody can bind it —
 * its identity was never recorded — and no key was ever sent to it, so it is ended and reported as
 * a verified exit: the hub starts the session again, and the new CLI shows its dialog (and the
 * chat its notice) once more. Left running, a second CLI would be started beside it.
 */
async function endUnconfirmed(rt: SessionRuntime, rec: SessionRecord): Promise<void> {
  const name = rt.sessionName(rec.sessionId, rec.generation);
  const ended = await rt.o.tmux.killSession(name).then(
    () => true,
    () => false,
  );
  rt.registry.put(rec.sessionId, { status: 'exited' });
  rt.o.log('info', 'agent.unconfirmed_cli_ended', { sessionId: rec.sessionId, tmuxSession: name, ended });
  rt.send(rec.sessionId, 'process_exited', { pids: [], exitStatus: null, paneDead: true, verified: true });
}
