import type { Db } from '../../db/client.ts';
import { AppError } from '../../domain/errors.ts';

/**
 * Removes a computer (issue 16): it is no longer listed or offered, and every token of it is revoked
 * (a hub holding its agent's socket closes it, `pg_notify('bria_token_revoked')`). The node row stays,
 * so its closed sessions stay in the archive, shown as from a removed computer. Refused while it has
 * open sessions: they would be left without a computer to run on (close them first).
 */
export async function removeComputer(opts: { db: Db; nodeId: string; now?: Date }): Promise<{ nodeId: string; revokedTokens: number }> {
  const now = opts.now ?? new Date();
  return opts.db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string; removedAt: Date | null }[]>`select id, "removedAt" from "Node" where id = ${opts.nodeId}::uuid for update`;
    const node = locked[0];
    if (!node || node.removedAt) throw new AppError('NOT_FOUND', { message: 'computer not found', userMessage: 'nodes.remove.notFound' });
    const open = await tx.session.count({ where: { nodeId: opts.nodeId, state: { notIn: ['Archived', 'ResumeFailed'] } } });
    if (open > 0) throw new AppError('CONFLICT', { message: `computer has ${open} open session(s)`, userMessage: 'nodes.remove.hasOpenSessions' });
    const tokens = await tx.agentToken.findMany({ where: { nodeId: opts.nodeId, revokedAt: null }, select: { id: true } });
    await tx.agentToken.updateMany({ where: { nodeId: opts.nodeId, revokedAt: null }, data: { revokedAt: now } });
    for (const t of tokens) await tx.$executeRaw`select pg_notify('bria_token_revoked', ${t.id})`;
    await tx.node.update({ where: { id: opts.nodeId }, data: { removedAt: now, online: false }, select: { id: true } });
    return { nodeId: opts.nodeId, revokedTokens: tokens.length };
  });
}
