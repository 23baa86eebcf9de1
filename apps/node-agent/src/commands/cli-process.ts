import type { SessionHost, SessionIdentity } from '../executors/index.ts';
import { isAlive, procStat, sameStart } from '../executors/process-table.ts';

/**
 * The CLI process is gone: its pid is dead or now names another process (different start time). A
 * start that cannot be compared (recorded under the other process layer where /proc is missing) is
 * not proof of an exit: not gone, and binding to it fails on the identity check instead.
 */
export async function processGone(id: SessionIdentity): Promise<boolean> {
  if (!(await isAlive(id.cliPid))) return true;
  const st = await procStat(id.cliPid);
  return !st || st.state === 'Z' || sameStart(id.cliStartTime, st.startTime) === false;
}

/** The host's identity, or null while it has none yet (never confirmed). */
export function safeIdentity(host: SessionHost): SessionIdentity | null {
  try {
    return host.identity();
  } catch {
    return null;
  }
}
