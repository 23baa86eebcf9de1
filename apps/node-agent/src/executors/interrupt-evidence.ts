import { setTimeout as sleep } from 'node:timers/promises';

export type InterruptEvidence = { kind: 'journal' } | { kind: 'idle'; evidence: string } | { kind: 'timeout' };

/**
 * After one Esc: waits for the journal to close the running turns, or (Claude, Esc before the first
 * response byte, when nothing is journaled) for the CLI's live status to turn idle after the Esc and
 * stay without a journal record for a moment, since the marker of a later interrupt lands just after.
 */
export async function awaitInterruptEvidence(o: {
  escAt: number;
  timeoutMs: number;
  settled: () => Promise<boolean>;
  idleStatus: () => Promise<{ idle: boolean; updatedAt: number | null; evidence: string } | null>;
}): Promise<InterruptEvidence> {
  const deadline = o.escAt + o.timeoutMs;
  let idleSince: number | null = null;
  while (Date.now() < deadline) {
    await sleep(100);
    if (await o.settled()) return { kind: 'journal' };
    const idle = await o.idleStatus();
    // Only an idle status written after our Esc counts; an older one predates the turn.
    if (!idle?.idle || idle.updatedAt === null || idle.updatedAt < o.escAt - 50) continue;
    idleSince ??= Date.now();
    if (Date.now() - idleSince >= 600) return { kind: 'idle', evidence: idle.evidence };
  }
  return { kind: 'timeout' };
}
