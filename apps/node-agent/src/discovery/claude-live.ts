import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { procStatsSync, sameStart } from '../executors/process-table.ts';
import { obj, str } from './line-bytes.ts';

// Claude writes `~/.claude/sessions/<pid>.json` while a process holds a session and deletes it on
// exit. A crash leaves the file behind, so the pid must still be alive, and still be the same
// process (its start time, from the agent's process layer, matches `procStart`) rather than a
// recycled pid.

export function liveClaudeSessions(claudeHome: string): Set<string> {
  const dir = join(claudeHome, 'sessions');
  const live = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return live;
  }
  const found: { sessionId: string; pid: number; procStart: unknown }[] = [];
  for (const name of names) {
    if (!/^\d+\.json$/.test(name)) continue;
    let record: Record<string, unknown> | null;
    try {
      record = obj(JSON.parse(readFileSync(join(dir, name), 'utf8')));
    } catch {
      continue;
    }
    const sessionId = record && str(record.sessionId);
    const pid = record && typeof record.pid === 'number' ? record.pid : Number.parseInt(name, 10);
    if (!record || !sessionId || !Number.isInteger(pid) || pid <= 0) continue;
    found.push({ sessionId, pid, procStart: record.procStart });
  }
  // One look at all of them (a discovery scan runs up to every 150 ms while journals grow).
  const signalledNow = found.filter((f) => signalled(f.pid));
  const starts = startTimes(signalledNow.map((f) => f.pid));
  for (const f of signalledNow) if (sameProcess(starts.get(f.pid) ?? null, f.procStart)) live.add(f.sessionId);
  return live;
}

export function isAlive(pid: number, procStart?: unknown): boolean {
  return signalled(pid) && sameProcess(startTimes([pid]).get(pid) ?? null, procStart);
}

function signalled(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function startTimes(pids: number[]): Map<number, string> {
  try {
    return new Map([...procStatsSync(pids)].map(([pid, st]) => [pid, st.startTime]));
  } catch {
    return new Map(); // `ps` could not run: alive as far as the signal can tell
  }
}

/**
 * Claude records `procStart` as it reads it: /proc's clock ticks on Linux, `ps -o lstart=` (C locale,
 * UTC) elsewhere — the two forms the agent's layers hold (`sameStart` compares across them on Linux).
 * When the start cannot be read or compared, the signal alone decides.
 */
function sameProcess(started: string | null, procStart: unknown): boolean {
  if (typeof procStart !== 'string' && typeof procStart !== 'number') return true;
  return started === null || sameStart(String(procStart), started) !== false;
}
