import type { SessionIdentity } from '../executors/index.ts';
import { processGone, safeIdentity } from './cli-process.ts';
import { reportIdentity } from './host-event-map.ts';
import { journalFilesOnDisk } from './journal-content.ts';
import { closeJournal, journalNotYetWritten } from './record-checks.ts';
import type { Result, SessionRuntime } from './session-runtime.ts';

/** Re-attach after an agent restart (or an attach command): the truthful event is sent either way. */
export async function bindSession(rt: SessionRuntime, sessionId: string, identity: SessionIdentity | null): Promise<Result> {
  const rec = rt.registry.get(sessionId)!;
  if (!identity) {
    rt.send(sessionId, 'identity_mismatch', { reason: 'not_found' });
    return { ok: false, error: 'no identity known for this session' };
  }
  if (await processGone(identity)) {
    rt.registry.put(sessionId, { status: 'exited' });
    const exitStatus = await rt.o.tmux.readExitStatus(identity.exitFile).catch(() => null);
    // What its journal holds, as a close reports it: a session closing when the agent went away is
    // archived on this exit (a Codex CLI closed before its first message leaves no rollout, and the
    // archive must say why it has no copy; docs/reliability.md).
    const journal = closeJournal(rec, null, rec.archivedJournal, journalFilesOnDisk);
    rt.send(sessionId, 'process_exited', { pids: [identity.cliPid], exitStatus, paneDead: true, verified: true, journal });
    return { ok: true, exited: true };
  }
  // An adopted session's pane lives on the user's own server (`SessionRuntime.tmuxFor`).
  const host = rt.newHost(sessionId, rec.executor, undefined, rt.tmuxFor(identity));
  const watch = rec.turns.map((t) => ({ messageId: t.messageId, nativeRef: t.nativeRef }));
  const a = await host.attach(journalNotYetWritten(rec, identity, journalFilesOnDisk) ? { ...identity, journalPath: null } : identity, {
    journalOffset: rec.journalOffset,
    watch,
  });
  if (!a.ok) {
    rt.hosts.delete(sessionId);
    rt.o.log('warn', 'agent.attach_mismatch', { sessionId, fields: a.mismatches.map((m) => m.field) });
    rt.send(sessionId, 'identity_mismatch', { reason: 'identity_mismatch', expected: reportIdentity(identity) });
    return { ok: false, mismatches: a.mismatches.map((m) => m.field) };
  }
  rt.registry.put(sessionId, { status: 'live', identity: safeIdentity(host) ?? identity });
  rt.send(sessionId, 'reattached', { identity: reportIdentity(safeIdentity(host) ?? identity) });
  rt.replayRecent(sessionId);
  rt.reportOrphans(sessionId);
  // Typed before the crash without a receipt the agent saw: only a re-check, never a second paste.
  for (const m of rec.unconfirmed) rt.sendFact(sessionId, 'evidence_unknown', { messageId: m, processAlive: true });
  if (rec.unconfirmed.length > 0) rt.registry.put(sessionId, { unconfirmed: [] });
  return { ok: true };
}
