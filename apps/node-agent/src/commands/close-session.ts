import { existsSync } from 'node:fs';
import path from 'node:path';
import { type ArchivedJournal, archiveJournal } from '../archive/index.ts';
import { crashPoint } from '../test-crash.ts';
import { isAdopted } from '../handoff/adopt.ts';
import { processGone, safeIdentity } from './cli-process.ts';
import { reportIdentity } from './host-event-map.ts';
import { journalFilesOnDisk } from './journal-content.ts';
import { closeJournal } from './record-checks.ts';
import type { SessionRecord } from './registry.ts';
import type { Result, SessionRuntime } from './session-runtime.ts';

/** `close_session`: the CLI ended and verified gone, its journal archived, the facts sent (again when asked again). */
export async function closeSession(rt: SessionRuntime, sessionId: string): Promise<Result> {
  const rec = rt.registry.get(sessionId);
  if (!rec) return { ok: false, error: 'unknown session' };
  if (rec.status === 'closed') {
    // Asked again (the hub re-issues a close after a reconnect): the same verified facts, once more.
    rt.send(sessionId, 'session_closed', {
      evidence: {
        verified: true,
        repeated: true,
        nativeSessionId: rec.identity?.nativeId ?? null,
        journal: closeJournal(rec, null, rec.archivedJournal, journalFilesOnDisk),
      },
      ...(rec.archivedJournal ? { archivedJournal: rec.archivedJournal } : {}),
    });
    return { ok: true, already: true };
  }
  if (rec.identity && isAdopted(rec.identity)) return release(rt, sessionId, rec);
  let host = rt.hosts.get(sessionId);
  if (!host && rec.identity) {
    host = rt.newHost(sessionId, rec.executor);
    const a = await host.attach(rec.identity, { journalOffset: rec.journalOffset });
    if (!a.ok && !(await processGone(rec.identity))) {
      rt.send(sessionId, 'identity_mismatch', { reason: 'identity_mismatch', expected: reportIdentity(rec.identity) });
      return { ok: false, error: 'identity mismatch', mismatches: a.mismatches.map((m) => m.field) };
    }
    if (!a.ok) return closed(rt, sessionId, rec, { pids: [rec.identity.cliPid], lingering: [], exitStatus: null, paneDead: true, escalation: [] });
  }
  if (!host) return closed(rt, sessionId, rec, { pids: [], lingering: [], exitStatus: null, paneDead: true, escalation: [] });
  const ev = await host.close();
  crashPoint('close:ended');
  return closed(rt, sessionId, rec, ev);
}

/**
 * Closing an adopted session releases the user's pane (docs/handoff.md): Bria stops observing and
 * typing; the CLI and its pane are left exactly as they are, running at the desk (no key, no signal,
 * no kill-session). Evidence says so: `released`, the pid left running. Discovery then shows the
 * session as running in a terminal again.
 */
async function release(rt: SessionRuntime, sessionId: string, rec: SessionRecord): Promise<Result> {
  const id = rec.identity!;
  rt.hosts.get(sessionId)?.detach();
  rt.hosts.delete(sessionId);
  rt.drafts.get(sessionId)?.close();
  rt.drafts.delete(sessionId);
  const running = !(await processGone(id));
  rt.registry.put(sessionId, { status: 'closed', turns: [], unconfirmed: [], archivedJournal: null });
  const evidence = {
    verified: true,
    released: true,
    cliLeftRunning: running ? id.cliPid : null,
    pids: '',
    lingering: '',
    exitStatus: null,
    paneDead: !running,
    escalation: '',
    nativeSessionId: id.nativeId,
    journal: closeJournal(rec, id.journalPath, null, journalFilesOnDisk),
  };
  rt.o.log('info', 'agent.adopted_released', { sessionId, pid: id.cliPid, running });
  rt.send(sessionId, 'session_closed', { evidence });
  return { ok: true, released: true, evidence };
}

async function closed(
  rt: SessionRuntime,
  sessionId: string,
  rec: SessionRecord,
  ev: { pids: number[]; lingering: number[]; exitStatus: number | null; paneDead: boolean; escalation: string[] },
): Promise<Result> {
  const verified = ev.paneDead && ev.lingering.length === 0 && (rec.identity ? await processGone(rec.identity) : true);
  const journal = rec.identity?.journalPath ?? (rt.hosts.get(sessionId) ? safeIdentity(rt.hosts.get(sessionId)!)?.journalPath : null) ?? null;
  let archivedJournal: ArchivedJournal | undefined;
  if (verified && journal && existsSync(journal) && rec.identity?.nativeId) {
    archivedJournal = await archiveJournal({ file: journal, executor: rec.executor, nativeId: rec.identity.nativeId, dataDir: path.join(rt.o.dir, 'archive') });
  }
  const evidence = {
    verified,
    pids: ev.pids.join(','),
    lingering: ev.lingering.join(','),
    exitStatus: ev.exitStatus,
    paneDead: ev.paneDead,
    escalation: ev.escalation.join(','),
    nativeSessionId: rec.identity?.nativeId ?? null,
    journal: closeJournal(rec, journal, archivedJournal, journalFilesOnDisk),
  };
  if (verified) {
    if (rec.identity) await rt.o.tmux.killSession(rec.identity.tmuxSession).catch(() => undefined);
    rt.hosts.delete(sessionId);
    rt.registry.put(sessionId, {
      status: 'closed',
      turns: [],
      unconfirmed: [],
      archivedJournal: archivedJournal ?? null,
      ...(journal && rec.identity ? { identity: { ...rec.identity, journalPath: journal } } : {}),
    });
  }
  rt.send(sessionId, 'session_closed', { evidence, ...(archivedJournal ? { archivedJournal } : {}) });
  return { ok: verified, evidence };
}
