// tmux reports panes through a `-F` format; these helpers keep the format and its parser together.

export interface PaneInfo {
  sessionName: string;
  paneId: string;
  panePid: number;
  dead: boolean;
  /** tmux's own idea of the exit status; unreliable, prefer the wrapper's exit file. */
  deadStatus: number | null;
  currentCommand: string;
}

const FIELDS = ['#{session_name}', '#{pane_id}', '#{pane_pid}', '#{pane_dead}', '#{pane_dead_status}', '#{pane_current_command}'] as const;

/** Tab-separated so that session names and commands with spaces stay intact. */
export const PANE_FORMAT = FIELDS.join('\t');

export function parsePaneLine(line: string): PaneInfo | null {
  const parts = line.split('\t');
  if (parts.length !== FIELDS.length) return null;
  const [sessionName, paneId, pid, dead, deadStatus, currentCommand] = parts as [string, string, string, string, string, string];
  const panePid = Number(pid);
  if (!/^%\d+$/.test(paneId) || !Number.isInteger(panePid) || panePid <= 0) return null;
  return {
    sessionName,
    paneId,
    panePid,
    dead: dead === '1',
    deadStatus: /^\d+$/.test(deadStatus) ? Number(deadStatus) : null,
    currentCommand,
  };
}

export function parsePaneList(output: string): PaneInfo[] {
  return output
    .split('\n')
    .filter((l) => l.length > 0)
    .map(parsePaneLine)
    .filter((p): p is PaneInfo => p !== null);
}

/** tmux treats `.` and `:` as target separators, so such names could address another pane. */
export function assertSessionName(name: string): void {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new Error(`invalid tmux session name: ${JSON.stringify(name)}`);
}
