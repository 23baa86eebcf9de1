import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { restoreJournal } from '../archive/index.ts';
import { type Executor, nativeIdRefusal } from '../executors/index.ts';
import { crashPoint } from '../test-crash.ts';
import { deskCheck } from './desk-check.ts';
import { reportIdentity } from './host-event-map.ts';
import { journalFilesOnDisk } from './journal-content.ts';
import { launchFailed } from './launch-failed.ts';
import { journalState } from './record-checks.ts';
import type { SessionRecord } from './registry.ts';
import { resumeFolderRefusal } from './resume-folder.ts';
import { modeOf, type Result, type SessionRuntime } from './session-runtime.ts';

export interface ResumeParams {
  generation: number;
  executor: Executor;
  folder: string;
  nativeSessionId: string;
  permissionMode?: string;
  model?: string;
  archivedJournal?: { path: string; sizeBytes: number; sha256: string };
  takeOver?: { pid: number; startTime: string };
}

/** `resume_session`: the session's CLI reopened by its native id, exactly; never another conversation. */
export async function resumeSession(rt: SessionRuntime, sessionId: string, given: ResumeParams): Promise<Result> {
  // The id lands on the CLI's command line: anything but the CLI's own id format is refused
  // before anything is touched.
  const refusal = nativeIdRefusal(given.executor, given.nativeSessionId);
  if (refusal) {
    rt.o.emit({ event: 'resume_failed', sessionId, generation: given.generation, payload: { reason: refusal } });
    return { ok: false, error: refusal, refused: true };
  }
  // An archived journal is read and copied only from this agent's own archive folder.
  const archiveRefusal =
    given.archivedJournal && !isInsideFolder(path.join(rt.o.dir, 'archive'), given.archivedJournal.path)
      ? `archived journal not used: ${JSON.stringify(given.archivedJournal.path.slice(0, 200))} is outside this agent's archive folder`
      : null;
  const p = archiveRefusal ? { ...given, archivedJournal: undefined } : given;
  if (archiveRefusal) rt.o.log('warn', 'agent.archive_path_refused', { sessionId });
  const rec = rt.registry.get(sessionId);
  const live = rt.hosts.get(sessionId);
  if (rec?.status === 'live' && rec.identity?.nativeId === p.nativeSessionId && live) {
    rt.send(sessionId, 'resume_confirmed', { identity: reportIdentity(rec.identity) });
    return { ok: true, alreadyRunning: true };
  }
  const noFolder = await resumeFolderRefusal(p.folder);
  if (noFolder) {
    // Under the command's generation: a discovered session has no record here yet to take it from.
    rt.o.emit({ event: 'resume_failed', sessionId, generation: p.generation, payload: { reason: noFolder } });
    return { ok: false, error: noFolder, refused: true };
  }
  if (
    rec?.status === 'closed' &&
    journalState(rec, [rec.identity?.journalPath, p.archivedJournal?.path, rec.archivedJournal?.path], journalFilesOnDisk) === 'none'
  ) {
    // Closed before its CLI held any conversation (no journal, or one with no conversation in it,
    // and nothing ever typed): there is nothing to reopen, and no CLI is started to find that out
    // (domain README, decision 15).
    const reason = 'nothing to resume: this session was closed before it held any conversation (no journal was written)';
    rt.send(sessionId, 'resume_failed', { reason });
    return { ok: false, error: reason, empty: true };
  }
  // Never two CLIs on one native session: a terminal at the computer that holds it refuses the
  // resume, unless the user chose to continue here from exactly that process (then it is ended first).
  const held = await deskCheck(rt, {
    sessionId,
    generation: p.generation,
    executor: p.executor,
    nativeId: p.nativeSessionId,
    ...(p.takeOver ? { takeOver: p.takeOver } : {}),
  });
  if (held) return held;
  // Turns the dead process held ended without an outcome this agent saw: unknown, never re-sent.
  // They are written down before anything is launched and forgotten only once reported.
  const orphans = [...new Set([...(rec?.orphans ?? []), ...(rec?.status === 'exited' ? rec.turns.map((t) => t.messageId) : [])])];
  const restored = archiveRefusal
    ? { restoreError: archiveRefusal }
    : await restoreArchivedJournal(rec, p).catch((err: Error) => ({ restoreError: err.message }));
  await rt.dropDeadPane(rec);
  // Outcomes this agent saw before the CLI died may have been refused as stale (sent under an
  // older generation, e.g. while the node was away): they are kept and re-reported after the
  // resume, matched by message and turn id, so a repeat never makes a second copy.
  const recent = rec?.recent ?? [];
  rt.registry.put(sessionId, {
    executor: p.executor,
    folder: p.folder,
    generation: p.generation,
    status: 'live',
    turns: [],
    orphans,
    unconfirmed: [],
    deliveries: rec?.deliveries ?? [],
    recent,
    journalOffset: 0,
  });
  crashPoint('resume:launching');
  const host = rt.newHost(sessionId, p.executor);
  try {
    const id = await host.resume({
      nativeId: p.nativeSessionId,
      cwd: p.folder,
      permissionMode: modeOf(p.executor, p.permissionMode),
      ...(p.model ? { model: p.model } : {}),
      sessionName: rt.sessionName(sessionId, p.generation),
      ...rt.hookLaunch(sessionId, p.executor),
    });
    crashPoint('resume:confirmed');
    rt.registry.put(sessionId, { identity: id });
    rt.send(sessionId, 'resume_confirmed', { identity: reportIdentity(id) });
    rt.replayRecent(sessionId);
    rt.reportOrphans(sessionId);
    return { ok: true, nativeSessionId: id.nativeId, ...restored };
  } catch (err) {
    return launchFailed(rt, sessionId, host, err, 'resume');
  }
}

/** Puts Bria's archived copy back where the CLI keeps the journal, if the CLI lost it. */
async function restoreArchivedJournal(rec: SessionRecord | undefined, p: { archivedJournal?: { path: string; sha256: string } }): Promise<Result> {
  const target = rec?.identity?.journalPath;
  if (!p.archivedJournal || !target || existsSync(target)) return {};
  const r = await restoreJournal({ archived: p.archivedJournal.path, targetPath: target, sha256: p.archivedJournal.sha256 });
  return { journalRestored: r.restored };
}

/** Whether `file` is inside `folder`, also once symbolic links are resolved (a missing file: by its path only). */
function isInsideFolder(folder: string, file: string): boolean {
  const within = (root: string, f: string) => {
    const rel = path.relative(root, f);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  };
  if (!path.isAbsolute(file) || !within(path.resolve(folder), path.resolve(file))) return false;
  try {
    return within(realpathSync(folder), realpathSync(file));
  } catch {
    return !existsSync(file);
  }
}
