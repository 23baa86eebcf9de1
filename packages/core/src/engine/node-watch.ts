import type { SessionState } from '../domain/index.ts';
import { getSessionRow, sessionIdsInStates } from '../db/repos/sessions.ts';
import { pushEvent } from './step/push-notices.ts';
import { applyHubFact, type EngineDeps } from './session-work.ts';

const WORKING: SessionState[] = ['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'Closing'];
const WAITING_FOR_NODE: SessionState[] = ['AwaitingRecovery', 'Closing'];

interface Seen {
  online: boolean;
  instanceId: string | null;
}

/**
 * Turns node connectivity (kept by the hub in the Node table) into `node_lost` / `node_returned`.
 * Level-triggered at start: every working session of an offline node is marked lost, every
 * recovering session of an online node gets an immediate exact re-attach. A new agent process
 * (instance id changed) means the old observers are gone even if the node never looked offline.
 */
export class NodeWatch {
  private seen = new Map<string, Seen>();
  constructor(private readonly d: EngineDeps) {}

  async tick(): Promise<void> {
    const nodes = await this.d.db.node.findMany({ select: { id: true, online: true, agentInstanceId: true } });
    for (const n of nodes) {
      const prev = this.seen.get(n.id);
      this.seen.set(n.id, { online: n.online, instanceId: n.agentInstanceId });
      const restarted = prev?.online === true && n.online && prev.instanceId !== n.agentInstanceId;
      if ((!n.online && (!prev || prev.online)) || restarted) await this.each(n.id, WORKING, 'node_lost');
      if (n.online && (!prev?.online || restarted)) await this.each(n.id, WAITING_FOR_NODE, 'node_returned');
    }
  }

  private async each(nodeId: string, states: SessionState[], type: 'node_lost' | 'node_returned'): Promise<void> {
    for (const id of await sessionIdsInStates(this.d.db, nodeId, states)) {
      try {
        await applyHubFact(this.d, id, { type });
        if (type === 'node_lost') await this.pushAway(id);
      } catch (err) {
        this.d.log.error({ sessionId: id, nodeId, event: type, err: (err as Error).message }, 'engine.node_fact_failed');
      }
    }
  }

  /**
   * The computer went away under a working session (issue 32): a push per session, once per move
   * into AwaitingRecovery (its version is in the key). Telegram already shows the recovery on the card.
   */
  private async pushAway(sessionId: string): Promise<void> {
    await this.d.db.$transaction(async (tx) => {
      const row = await getSessionRow(tx, sessionId);
      if (row?.state !== 'AwaitingRecovery') return;
      await pushEvent(tx, row, { event: 'computer_away', key: `node_lost:${row.id}:${row.version}`, now: this.d.clock.now() });
    });
  }
}
