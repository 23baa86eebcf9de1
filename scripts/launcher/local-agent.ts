import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createNodeWithToken, findNodeByToken, issueAgentToken, type Db } from '../../packages/core/src/db/index.ts';
import { hostname } from 'node:os';

export type LocalAgent =
  | { status: 'ready'; nodeId: string; token: string; created: boolean }
  /** Every token of this computer's node was revoked (dashboard or `npm run nodes -- revoke`): no agent runs. */
  | { status: 'revoked'; nodeId: string; name: string; revokedAt: Date };

const credentialFile = (dataDir: string) => path.join(dataDir, 'local-agent.json');

/**
 * Enrolls this computer's agent once: a node marked local plus a token kept in
 * `<data dir>/local-agent.json` (mode 0600). Later starts reuse it. A lost credential file gets a
 * fresh token for the same node, so its sessions stay where they are. A revoked token is never
 * replaced behind the user's back: while the node has no token left that is not revoked, the
 * computer stays off until the user enables it again (`enableLocalAgent`, `npm run nodes -- enable-local`).
 */
export async function ensureLocalAgent(db: Db, dataDir: string): Promise<LocalAgent> {
  const file = credentialFile(dataDir);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { nodeId: string; token: string };
    const found = await findNodeByToken(db, saved.token);
    if (found && !found.revoked && found.nodeId === saved.nodeId) return { status: 'ready', ...saved, created: false };
  }
  const local = await db.node.findFirst({ where: { isLocal: true }, select: { id: true, name: true, tokens: { select: { revokedAt: true } } } });
  if (local && local.tokens.length > 0 && local.tokens.every((t) => t.revokedAt !== null)) {
    const revokedAt = new Date(Math.max(...local.tokens.map((t) => (t.revokedAt as Date).getTime())));
    return { status: 'revoked', nodeId: local.id, name: local.name, revokedAt };
  }
  const result = local
    ? { nodeId: local.id, token: (await issueAgentToken(db, local.id, 'local agent')).token }
    : await createNodeWithToken(db, { name: hostname() || 'this computer', isLocal: true, label: 'local agent' });
  writeFileSync(file, JSON.stringify(result), { mode: 0o600 });
  return { status: 'ready', ...result, created: true };
}

/**
 * The user enables this computer again after revoking its token: a fresh token for the same node
 * (its sessions stay where they are), saved for the next `npm start`. Refused when there is no
 * local node yet (the first `npm start` enrolls it) and when it already has a token in force.
 */
export async function enableLocalAgent(db: Db, dataDir: string): Promise<{ nodeId: string; name: string }> {
  const local = await db.node.findFirst({
    where: { isLocal: true },
    select: { id: true, name: true, tokens: { where: { revokedAt: null }, select: { id: true } } },
  });
  if (!local) throw new Error('this computer is not enrolled yet; `npm start` enrolls it');
  if (local.tokens.length > 0) throw new Error(`"${local.name}" is already enabled`);
  const { token } = await issueAgentToken(db, local.id, 'local agent');
  writeFileSync(credentialFile(dataDir), JSON.stringify({ nodeId: local.id, token }), { mode: 0o600 });
  return { nodeId: local.id, name: local.name };
}

/** What `npm start` says about a computer whose token was revoked. */
export function revokedLocalAgentNotice(a: { name: string; revokedAt: Date }): string {
  return `This computer ("${a.name}") is off: its agent token was revoked at ${a.revokedAt.toISOString()} (dashboard or \`npm run nodes -- revoke\`), so its agent is not started and its sessions cannot be reached. It stays off until you enable it again: \`npm run nodes -- enable-local\`, then \`npm start\`.`;
}
