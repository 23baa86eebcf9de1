import { randomUUID } from 'node:crypto';
import type { DiscoveredSession } from '../protocol/index.ts';
import { handoffOf } from '../domain/index.ts';
import { applyHandoff, deskFields } from './handoff.ts';
import type { StepContext } from './step/step-context.ts';

const ms = (t?: number) => (t === undefined ? null : new Date(t));

/**
 * Native sessions the agent found on its node enter Bria as archive records of that node. A session
 * Bria already knows (same node, executor and native id) only gets its metadata refreshed. Nothing is
 * ever deleted because the native journal disappeared: the record is marked (`nativeGoneAt`), which
 * the archive shows and which makes a resume without Bria's own archive copy refuse at once with the
 * reason instead of starting a CLI that cannot find it; found again, the mark is cleared.
 */
export async function applyDiscoveryDiff(
  ctx: StepContext,
  nodeId: string,
  diff: { added: DiscoveredSession[]; changed: DiscoveredSession[]; removed?: { executor: 'claude' | 'codex'; nativeSessionId: string }[] },
): Promise<void> {
  for (const r of diff.removed ?? []) {
    await ctx.tx.session.updateMany({
      where: { nodeId, executor: r.executor, nativeSessionId: r.nativeSessionId, nativeGoneAt: null },
      data: { nativeGoneAt: ctx.now },
    });
  }
  for (const d of [...diff.added, ...diff.changed]) {
    const meta = {
      nativeGoneAt: null,
      title: d.title ?? null,
      firstPrompt: d.firstPrompt ?? null,
      journalPath: d.journalPath ?? null,
      nativeStartedAt: ms(d.startedAt),
      nativeLastActivity: ms(d.lastActivityAt),
      ...(d.userTurns === undefined ? {} : { userTurns: d.userTurns }),
    };
    const existing = await ctx.tx.session.findUnique({
      where: { nodeId_executor_nativeSessionId: { nodeId, executor: d.executor, nativeSessionId: d.nativeSessionId } },
      select: { id: true, state: true, folder: true },
    });
    if (existing) {
      const sort = existing.state === 'Archived' && meta.nativeLastActivity ? { archiveSortAt: meta.nativeLastActivity } : {};
      // A record entered before its journal named the folder gets it from a later report; a known
      // folder is never replaced (a resume must run where the conversation happened).
      const folder = existing.folder === '' && d.folder !== '' ? { folder: d.folder } : {};
      await ctx.tx.session.update({ where: { id: existing.id }, data: { ...meta, ...sort, ...folder }, select: { id: true } });
      // `outside` absent: an agent that does not look at processes; nothing is known, nothing changes.
      if (d.outside !== undefined) await applyHandoff(ctx, existing.id, d.outside ? 'desk_seen' : 'desk_gone', d.outside);
      continue;
    }
    // Without its folder a session cannot be resumed (both CLIs resume from the original folder),
    // so it is entered only once a report names it.
    if (d.folder === '') continue;
    await ctx.tx.session.create({
      data: {
        id: randomUUID(),
        nodeId,
        executor: d.executor,
        nativeSessionId: d.nativeSessionId,
        folder: d.folder,
        state: 'Archived',
        launchSource: 'discovered',
        observerGeneration: 0,
        archivedAt: ctx.now,
        archiveSortAt: meta.nativeLastActivity ?? ctx.now,
        ...meta,
        // Begun by hand and still running: shown under open sessions until its process ends.
        ...(d.outside ? { handoff: handoffOf('desk'), ...deskFields(d.outside, ctx.now) } : {}),
      },
      select: { id: true },
    });
  }
}
