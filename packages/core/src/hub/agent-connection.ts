import type { WebSocket } from 'ws';
import type { Logger } from '../log.ts';
import { CloseCode, type Command, type HubToAgent } from '../protocol/index.ts';

/**
 * A queued command as the hub forwards it. Its type is the row's, unchecked here: an agent answers a
 * type it does not know as `unsupported` (a hub newer than the agent), so the frame's `command` is
 * any string, while everything the agent parses is the protocol's `Command`.
 */
export type CommandFrame = Omit<Command, 'command'> & { command: string };

/** One authenticated agent socket as the hub sees it. */
export class AgentConnection {
  lastHeard = Date.now();
  helloDone = false;
  /** The optional commands (OPTIONAL_COMMANDS) this agent's hello listed; no others of them are sent. */
  capabilities: ReadonlySet<string> = new Set();
  private inFlight = new Set<string>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly ws: WebSocket,
    readonly nodeId: string,
    readonly tokenId: string,
    readonly log: Logger,
  ) {}

  /**
   * Set once the hub closes this socket (a failed frame, a gap, a newer connection, a revoked
   * token…). Its frames still queued are then dropped: the agent replays every unacknowledged event
   * on its next connection, from the mark stored in the database.
   */
  private retired = false;

  /** Frames of one socket are handled strictly in arrival order (event seqs depend on it). */
  serial(fn: () => Promise<void>): void {
    const run = () => (this.retired ? Promise.resolve() : fn());
    this.chain = this.chain.then(run, run);
  }

  send(msg: HubToAgent | CommandFrame): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  sendCommand(cmd: CommandFrame): boolean {
    if (this.inFlight.has(cmd.id)) return false;
    const sent = this.send(cmd);
    if (sent) this.inFlight.add(cmd.id);
    return sent;
  }

  acked(id: string): void {
    this.inFlight.delete(id);
  }

  isInFlight(id: string): boolean {
    return this.inFlight.has(id);
  }

  close(code: number = CloseCode.normal, reason = ''): void {
    this.retired = true;
    try {
      this.ws.close(code, reason.slice(0, 120));
    } catch {
      this.ws.terminate();
    }
  }
}
