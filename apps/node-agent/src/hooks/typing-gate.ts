/**
 * The typing gate for a message typed into a session whose turn is running (a follow-up): Claude
 * draws a permission or question dialog only after its PreToolUse hook returns, and a paste + Enter
 * on that dialog answers it with its first choice and loses the text (docs/cli-facts.md, "Typing into
 * a dialog"). So typing may begin only while no tool call of the session is open (its PreToolUse
 * seen, its end not yet) and no request is pending; while it lasts, every PreToolUse of the session
 * waits. Pure state with an injected clock; the channel holds the hooks' sockets behind `go`.
 */

/** A tool call whose end the journal never showed stops holding messages back after this long. */
export const OPEN_TOOL_BOUND_MS = 10 * 60_000;

export class TypingGate {
  /** Claude tool calls whose PreToolUse reached the agent and whose end was not seen yet, per session (start times). */
  private readonly openTools = new Map<string, Map<string, number>>();
  /** Sessions being typed into now, with the PreToolUse hooks that wait for the typing to end. */
  private readonly typing = new Map<string, (() => void)[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Why typing may not begin now, or null when it began (`requestPending`: the channel's word). */
  begin(sessionId: string, requestPending: boolean): string | null {
    if (this.typing.has(sessionId)) return 'another message is being typed';
    if (requestPending) return 'a permission request is waiting for an answer';
    const open = this.openTools.get(sessionId);
    if (open) {
      for (const [id, at] of open) if (this.now() - at > OPEN_TOOL_BOUND_MS) open.delete(id);
      if (open.size > 0) return 'a tool call is in progress (it may still ask for permission)';
    }
    this.typing.set(sessionId, []);
    return null;
  }

  /** The typing ended (the CLI took the Enter): the tool calls that waited go on. */
  end(sessionId: string): void {
    const waiting = this.typing.get(sessionId) ?? [];
    this.typing.delete(sessionId);
    for (const go of waiting) go();
  }

  /** A tool call begins (its PreToolUse): `go` now, or once the typing in progress ends. */
  toolStarted(sessionId: string, toolUseId: string, go: () => void): void {
    const open = this.openTools.get(sessionId) ?? new Map<string, number>();
    this.openTools.set(sessionId, open);
    open.set(toolUseId, this.now());
    const waiting = this.typing.get(sessionId);
    if (waiting) waiting.push(go);
    else go();
  }

  openToolCount(sessionId: string): number {
    return this.openTools.get(sessionId)?.size ?? 0;
  }

  /** The journal shows the tool call's result: it can ask nothing any more. */
  toolEnded(sessionId: string, toolUseId: string): void {
    this.openTools.get(sessionId)?.delete(toolUseId);
  }

  /** The turn ended (or the CLI is gone): no tool call of it is open. */
  turnEnded(sessionId: string): void {
    this.openTools.delete(sessionId);
  }
}
