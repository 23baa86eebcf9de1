import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { obj, str } from './line-bytes.ts';

// Claude writes `~/.claude/sessions/<pid>.json` while a process holds a session and deletes it on
// exit. A crash leaves the file behind, so the pid must still be alive, and still be the same
// process (its start time matches `procStart`) rather than a recycled pid.

export function liveClaudeSessions(claudeHome: string): Set<string> {
  const dir = join(claudeHome, 'sessions');
  const live = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return live;
  }
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
    if (isAlive(pid, record.procStart)) live.add(sessionId);
  }
  return live;
}

export function isAlive(pid: number, procStart?: unknown): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (typeof procStart !== 'string' && typeof procStart !== 'number') return true;
  const started = processStartTicks(pid);
  return started === null || started === String(procStart);
}

function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); the command name in field 2 may contain spaces, so count after ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
