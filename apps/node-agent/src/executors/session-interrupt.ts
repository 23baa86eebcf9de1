import type { Tmux } from '../tmux/tmux.ts';
import { awaitInterruptEvidence } from './interrupt-evidence.ts';
import { clearRefilledPrompt } from './prompt-box.ts';
import type { HostTurn } from './session-turns.ts';
import type { ExecutorDriver, HostEvent } from './types.ts';

export interface InterruptResult {
  sent: boolean;
  confirmed: boolean;
  reason: string;
}

/**
 * One Esc for the running `turns`, and what the CLI confirmed: the journal's record of the interrupt,
 * or the CLI idle again without one (the turns end as interrupted before their first response byte,
 * and the text the CLI put back into its input box is cleared), or nothing in time (`unknown`).
 * `onPaneDirty`: the dropped text could not be cleared, so nothing more may be typed into this pane.
 */
export async function interruptTurns(o: {
  tmux: Tmux;
  paneId: string;
  turns: HostTurn[];
  timeoutMs: number;
  readNow: () => Promise<void>;
  idleStatus: () => ReturnType<ExecutorDriver['idleStatus']>;
  emit: (e: HostEvent) => void;
  onPaneDirty: () => void;
}): Promise<InterruptResult> {
  const escAt = Date.now();
  await o.tmux.sendKeys(o.paneId, ['Escape']);
  const found = await awaitInterruptEvidence({
    escAt,
    timeoutMs: o.timeoutMs,
    settled: async () => {
      await o.readNow();
      return o.turns.every((t) => t.done);
    },
    idleStatus: o.idleStatus,
  });
  if (found.kind === 'journal') return { sent: true, confirmed: true, reason: 'journal' };
  const open = o.turns.filter((x) => !x.done);
  if (found.kind === 'idle') {
    for (const t of open) {
      t.done = true;
      o.emit({
        type: 'interrupted',
        messageId: t.messageId,
        reason: 'interrupted before the first response byte',
        evidence: { status: found.evidence, nativeRef: t.nativeRef },
      });
    }
    if (!(await clearRefilledPrompt(o.tmux, o.paneId))) {
      // A later paste would be appended to the leftover text: no more deliveries into this pane.
      o.onPaneDirty();
      o.emit({ type: 'unknown', messageId: null, reason: 'prompt box still holds the dropped text', evidence: { paneId: o.paneId } });
    }
    return { sent: true, confirmed: true, reason: 'idle status without a journal record' };
  }
  for (const t of open) {
    o.emit({ type: 'unknown', messageId: t.messageId, reason: 'no interrupt evidence in time', evidence: { nativeRef: t.nativeRef } });
  }
  return { sent: true, confirmed: false, reason: 'no evidence in time' };
}
