import type { Db } from '../db/client.ts';
import { encodeDraftNotice, notifyDraft, sessionNodeId } from '../db/repos/drafts.ts';
import type { Logger } from '../log.ts';
import { applyDraft, type Draft } from '../protocol/index.ts';

/**
 * Keeps each session's current draft in memory (only the hub process that holds the agent's socket)
 * and announces it to the dashboards with one NOTIFY. Nothing is written to a table. A frame that
 * cannot follow the kept one (a lost frame) is dropped until the agent starts over with a whole
 * draft; a frame for a session of another node is dropped.
 */
export class DraftRelay {
  private readonly drafts = new Map<string, { nodeId: string; messageId: string; v: number; text: string }>();
  private readonly owners = new Map<string, string | null>();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  /** Relays in arrival order per session, without holding up the socket's other frames. */
  relay(nodeId: string, d: Draft): void {
    const prev = this.chains.get(d.sessionId) ?? Promise.resolve();
    const next = prev
      .then(() => this.apply(nodeId, d))
      .catch((err: Error) => this.log.warn({ err: err.message, sessionId: d.sessionId }, 'hub.draft_relay_failed'));
    this.chains.set(d.sessionId, next);
    void next.finally(() => {
      if (this.chains.get(d.sessionId) === next) this.chains.delete(d.sessionId);
    });
  }

  /** The node's connection ended: its drafts start over with the next connection. */
  dropNode(nodeId: string): void {
    for (const [id, d] of this.drafts) if (d.nodeId === nodeId) this.drafts.delete(id);
  }

  private async owner(sessionId: string): Promise<string | null> {
    if (!this.owners.has(sessionId)) {
      if (this.owners.size > 10_000) this.owners.clear();
      this.owners.set(sessionId, await sessionNodeId(this.db, sessionId));
    }
    return this.owners.get(sessionId) ?? null;
  }

  private async apply(nodeId: string, d: Draft): Promise<void> {
    if ((await this.owner(d.sessionId)) !== nodeId) return;
    const kept = this.drafts.get(d.sessionId);
    const text = applyDraft(kept?.nodeId === nodeId ? kept : null, d);
    if (text === null) return;
    this.drafts.set(d.sessionId, { nodeId, messageId: d.messageId, v: d.v, text });
    await notifyDraft(this.db, encodeDraftNotice({ sessionId: d.sessionId, messageId: d.messageId, v: d.v, text }));
  }
}
