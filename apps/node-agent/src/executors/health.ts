import type { Tmux } from '../tmux/tmux.ts';
import { detectBlockingPrompt } from './screen.ts';
import { procStat, processTree } from './proc-tree.ts';
import type { SessionIdentity } from './types.ts';

export type Health =
  | { alive: true; pids: number[] }
  | { alive: false; paneDead: boolean; paneGone: boolean; cliAlive: boolean };

/** Is the pane alive and is its CLI still the very process we started (same pid and start time)? */
export async function probeHealth(tmux: Tmux, id: SessionIdentity): Promise<Health> {
  const pane = await tmux.paneInfo(id.paneId);
  const st = await procStat(id.cliPid);
  const cliAlive = st !== null && st.state !== 'Z' && st.startTime === id.cliStartTime;
  if (pane && !pane.dead && cliAlive) return { alive: true, pids: await processTree(id.panePid) };
  return { alive: false, paneDead: pane?.dead ?? true, paneGone: pane === null, cliAlive };
}

/** A question on screen (trust, permission…) that the CLI waits on; null when there is none. */
export async function blockingPrompt(tmux: Tmux, paneId: string): Promise<string | null> {
  return detectBlockingPrompt(await tmux.capture(paneId).catch(() => ''));
}
