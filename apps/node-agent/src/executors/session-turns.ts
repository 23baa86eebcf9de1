/**
 * One delivered message bound to its native turn. Codex steers a message typed during a running turn
 * into that same turn (same turn id): such follow-ups share the main request's outcome.
 */
export interface HostTurn {
  messageId: string;
  nativeRef: string;
  promptOffset: number | null;
  done: boolean;
}
