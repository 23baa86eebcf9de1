import type { Db } from '../db/client.ts';
import { sessionNodeId } from '../db/repos/drafts.ts';
import { notifyPane, paneNotices, parseTerminalNotice } from '../db/repos/terminal-notices.ts';
import type { Logger } from '../log.ts';
import { type Pane, TERMINAL_CAPABILITY } from '../protocol/index.ts';
import type { AgentConnection } from './agent-connection.ts';

/**
 * The hub's part of the live terminal: a dashboard's `bria_terminal` NOTIFY goes to the agent of the
 * session's node as a `terminal` frame (only to an agent that lists the capability), and the agent's
 * `pane` frames go to the dashboards as `bria_pane` NOTIFYs, in order per session. Nothing is kept.
 */
export class TerminalRelay {
  private readonly owners = new Map<string, string | null>();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly connection: (nodeId: string) => AgentConnection | undefined,
  ) {}

  private async owner(sessionId: string): Promise<string | null> {
    if (!this.owners.has(sessionId)) {
      if (this.owners.size > 10_000) this.owners.clear();
      this.owners.set(sessionId, await sessionNodeId(this.db, sessionId));
    }
    return this.owners.get(sessionId) ?? null;
  }

  /** A `bria_terminal` notice from a dashboard. */
  onNotice(payload: string): void {
    const n = parseTerminalNotice(payload);
    if (!n) return;
    void this.owner(n.sessionId)
      .then((nodeId) => {
        const conn = nodeId ? this.connection(nodeId) : undefined;
        if (!conn?.helloDone || !conn.capabilities.has(TERMINAL_CAPABILITY)) return;
        conn.send({ type: 'terminal', sessionId: n.sessionId, op: n.op, ...(n.data !== undefined ? { data: n.data } : {}) });
      })
      .catch((err: Error) => this.log.warn({ err: err.message }, 'hub.terminal_notice_failed'));
  }

  /** A `pane` frame from the agent of `nodeId`: relayed if the session is that node's. */
  relay(nodeId: string, p: Pane): void {
    const prev = this.chains.get(p.sessionId) ?? Promise.resolve();
    const next = prev
      .then(async () => {
        if ((await this.owner(p.sessionId)) !== nodeId) return;
        await notifyPane(this.db, paneNotices(p));
      })
      .catch((err: Error) => this.log.warn({ err: err.message, sessionId: p.sessionId }, 'hub.pane_relay_failed'));
    this.chains.set(p.sessionId, next);
    void next.finally(() => {
      if (this.chains.get(p.sessionId) === next) this.chains.delete(p.sessionId);
    });
  }
}
