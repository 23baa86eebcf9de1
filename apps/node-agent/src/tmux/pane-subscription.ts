/** Pane id → dead, for every pane of the server; null while unknown (no control client). */
export type PaneStates = ReadonlyMap<string, boolean> | null;

/** Name of the control-mode subscription to every pane's dead flag. */
export const PANES_SUB = 'bria-panes';
// Evaluated by the tmux server once a second; a notification comes only when the value changes.
export const PANES_FORMAT = '#{S:#{P:#{pane_id}=#{pane_dead} }}';

/** The pane states in a control-mode notification line, or null when the line is not about them. */
export function parsePanesNotification(line: string): Map<string, boolean> | null {
  const prefix = `%subscription-changed ${PANES_SUB} `;
  if (!line.startsWith(prefix)) return null;
  const value = line.slice(line.indexOf(' : ', prefix.length) + 3);
  const panes = new Map<string, boolean>();
  for (const m of value.matchAll(/(%\d+)=([01])/g)) panes.set(m[1]!, m[2] === '1');
  return panes;
}
