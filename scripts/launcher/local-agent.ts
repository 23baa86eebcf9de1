import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createNodeWithToken, findNodeByToken, issueAgentToken, type Db } from '../../packages/core/src/db/index.ts';
import { hostname } from 'node:os';

/**
 * Enrolls this computer's agent once: a node marked local plus a token kept in
 * `<data dir>/local-agent.json` (mode 0600). Later starts reuse it; a lost or revoked token
 * gets a fresh one for the same node, so its sessions stay where they are.
 */
export async function ensureLocalAgent(db: Db, dataDir: string): Promise<{ nodeId: string; token: string; created: boolean }> {
  const file = path.join(dataDir, 'local-agent.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { nodeId: string; token: string };
    const found = await findNodeByToken(db, saved.token);
    if (found && !found.revoked && found.nodeId === saved.nodeId) return { ...saved, created: false };
  }
  const local = await db.node.findFirst({ where: { isLocal: true }, select: { id: true } });
  let result: { nodeId: string; token: string };
  if (local) {
    const { token } = await issueAgentToken(db, local.id, 'local agent');
    result = { nodeId: local.id, token };
  } else {
    result = await createNodeWithToken(db, { name: hostname() || 'this computer', isLocal: true, label: 'local agent' });
  }
  writeFileSync(file, JSON.stringify(result), { mode: 0o600 });
  return { ...result, created: true };
}
