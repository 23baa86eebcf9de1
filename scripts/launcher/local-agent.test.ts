import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileDatabase } from '../../packages/testkit/src/file-database.ts';
import { revokeToken } from '../../packages/core/src/services/nodes/index.ts';
import { enableLocalAgent, ensureLocalAgent, revokedLocalAgentNotice } from './local-agent.ts';

const { db } = await fileDatabase({ max: 2 });
const dataDir = mkdtempSync(path.join(tmpdir(), 'bria-local-agent-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const saved = () => JSON.parse(readFileSync(path.join(dataDir, 'local-agent.json'), 'utf8')) as { nodeId: string; token: string };
const liveTokens = (nodeId: string) => db.agentToken.count({ where: { nodeId, revokedAt: null } });

describe('the local agent token (npm start)', () => {
  it('enrolls once, reuses the token, stays revoked after a revoke until enabled again, then works again', async () => {
    const first = await ensureLocalAgent(db, dataDir);
    expect(first).toMatchObject({ status: 'ready', created: true });
    if (first.status !== 'ready') throw new Error('unreachable');
    expect(statSync(path.join(dataDir, 'local-agent.json')).mode & 0o777).toBe(0o600);
    expect(await ensureLocalAgent(db, dataDir)).toEqual({ ...first, created: false });

    // Revoked in the dashboard (the same service): the next starts issue nothing and say so.
    const [token] = await db.agentToken.findMany({ where: { nodeId: first.nodeId }, select: { id: true } });
    await revokeToken({ db, tokenId: token!.id });
    for (let start = 0; start < 2; start++) {
      const again = await ensureLocalAgent(db, dataDir);
      expect(again).toMatchObject({ status: 'revoked', nodeId: first.nodeId });
      expect(await liveTokens(first.nodeId)).toBe(0);
      expect(saved().token).toBe(first.token);
      if (again.status === 'revoked') expect(revokedLocalAgentNotice(again)).toMatch(/is off: its agent token was revoked at .*npm run nodes -- enable-local/);
    }
    // A lost credential file does not bring it back either.
    rmSync(path.join(dataDir, 'local-agent.json'));
    expect(await ensureLocalAgent(db, dataDir)).toMatchObject({ status: 'revoked' });
    expect(await liveTokens(first.nodeId)).toBe(0);

    // The user enables it again: a fresh token for the same node, used by the next start.
    expect(await enableLocalAgent(db, dataDir)).toMatchObject({ nodeId: first.nodeId });
    await expect(enableLocalAgent(db, dataDir)).rejects.toThrow(/already enabled/);
    const back = await ensureLocalAgent(db, dataDir);
    expect(back).toMatchObject({ status: 'ready', nodeId: first.nodeId, created: false });
    if (back.status === 'ready') expect(back.token).not.toBe(first.token);
    expect(await liveTokens(first.nodeId)).toBe(1);
    expect(await db.node.count()).toBe(1);
  });

  it('a lost credential file of a computer still enabled gets a fresh token for the same node', async () => {
    const before = saved();
    rmSync(path.join(dataDir, 'local-agent.json'));
    const r = await ensureLocalAgent(db, dataDir);
    expect(r).toMatchObject({ status: 'ready', nodeId: before.nodeId, created: true });
    expect(saved().token).not.toBe(before.token);
  });
});
