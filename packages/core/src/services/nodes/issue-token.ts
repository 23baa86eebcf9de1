import type { Db } from '../../db/client.ts';
import { issueAgentToken } from '../../db/repos/nodes.ts';
import { AppError } from '../../domain/errors.ts';
import { isInsecureRemote } from './add-computer.ts';
import { type BundleRef, type HubCaRef, installCommand } from './install-command.ts';

/**
 * A new agent token for a computer whose token was revoked or lost (issue 16), shown once with the
 * same one command "Add a computer" shows. Decision (issue 30): the new token **replaces** the
 * computer's other live tokens: they are revoked in the same call (the agent using one is
 * disconnected at once, `bria_token_revoked`) and `revokedTokens` says how many, which the dashboard
 * shows. A token that leaked stays useless once a new one is issued; the computer reconnects when
 * the new command runs there. This computer's own node is refused: its token lives in the
 * launcher's local-agent.json (`npm run nodes -- enable-local`).
 */
export async function issueToken(opts: {
  db: Db;
  nodeId: string;
  hubPublicUrl: string;
  bundle: BundleRef | null;
  hubCa?: HubCaRef | null;
}): Promise<{ nodeId: string; tokenId: string; token: string; command: string; revokedTokens: number }> {
  const node = await opts.db.node.findUnique({ where: { id: opts.nodeId }, select: { id: true, removedAt: true, isLocal: true } });
  if (!node || node.removedAt) throw new AppError('NOT_FOUND', { message: 'computer not found', userMessage: 'nodes.remove.notFound' });
  if (node.isLocal)
    throw new AppError('INVALID_INPUT', { message: "this computer's own agent uses the launcher's token", userMessage: 'nodes.issueToken.local' });
  if (!opts.bundle) {
    throw new AppError('NOT_FOUND', { message: 'the agent bundle is not built on this server: run `npm run build:agent` (npm start builds it)' });
  }
  const { tokenId, token } = await issueAgentToken(opts.db, opts.nodeId, 'dashboard');
  const old = await opts.db.agentToken.findMany({ where: { nodeId: opts.nodeId, revokedAt: null, id: { not: tokenId } }, select: { id: true } });
  for (const t of old) await revokeOne(opts.db, t.id);
  const command = installCommand({
    hubUrl: opts.hubPublicUrl,
    bundle: opts.bundle,
    token,
    insecure: isInsecureRemote(opts.hubPublicUrl),
    ...(opts.hubCa ? { ca: opts.hubCa } : {}),
  });
  return { nodeId: opts.nodeId, tokenId, token, command, revokedTokens: old.length };
}

async function revokeOne(db: Db, tokenId: string): Promise<void> {
  // Only a live token: a revocation time once set is kept.
  await db.agentToken.updateMany({ where: { id: tokenId, revokedAt: null }, data: { revokedAt: new Date() } });
  await db.$executeRaw`select pg_notify('bria_token_revoked', ${tokenId})`;
}
