import { randomUUID } from 'node:crypto';
import type { DiscoveredSession } from '../protocol/index.ts';
import type { StepContext } from '../services/sessions/step-context.ts';

const ms = (t?: number) => (t === undefined ? null : new Date(t));

/**
 * Native sessions the agent found on its node enter Bria as archive records of that node. A session
 * Bria already knows (same node, executor and native id) only gets its metadata refreshed; nothing
 * is ever deleted because the native journal disappeared (the archive keeps its own copy).
 */
export async function applyDiscoveryDiff(ctx: StepContext, nodeId: string, diff: { added: DiscoveredSession[]; changed: DiscoveredSession[] }): Promise<void> {
  for (const d of [...diff.added, ...diff.changed]) {
    const meta = {
      title: d.title ?? null, firstPrompt: d.firstPrompt ?? null, journalPath: d.journalPath ?? null,
      nativeStartedAt: ms(d.startedAt), nativeLastActivity: ms(d.lastActivityAt), ...(d.userTurns === undefined ? {} : { userTurns: d.userTurns }),
    };
    const existing = await ctx.tx.session.findUnique({ where: { nodeId_executor_nativeSessionId: { nodeId, executor: d.executor, nativeSessionId: d.nativeSessionId } }, select: { id: true, state: true } });
    if (existing) {
      const sort = existing.state === 'Archived' && meta.nativeLastActivity ? { archiveSortAt: meta.nativeLastActivity } : {};
      await ctx.tx.session.update({ where: { id: existing.id }, data: { ...meta, ...sort }, select: { id: true } });
      continue;
    }
    await ctx.tx.session.create({
      data: { id: randomUUID(), nodeId, executor: d.executor, nativeSessionId: d.nativeSessionId, folder: d.folder, state: 'Archived', launchSource: 'discovered',
        observerGeneration: 0, archivedAt: ctx.now, archiveSortAt: meta.nativeLastActivity ?? ctx.now, ...meta },
      select: { id: true },
    });
  }
}
