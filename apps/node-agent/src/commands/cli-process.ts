import type { SessionHost, SessionIdentity } from '../executors/index.ts';
import { isAlive, procStat } from '../executors/process-table.ts';

/** The CLI process is gone: its pid is dead or now names another process (different start time). */
export async function processGone(id: SessionIdentity): Promise<boolean> {
  if (!(await isAlive(id.cliPid))) return true;
  const st = await procStat(id.cliPid);
  return !st || st.startTime !== id.cliStartTime || st.state === 'Z';
}

/** The host's identity, or null while it has none yet (never confirmed). */
export function safeIdentity(host: SessionHost): SessionIdentity | null {
  try {
    return host.identity();
  } catch {
    return null;
  }
}
