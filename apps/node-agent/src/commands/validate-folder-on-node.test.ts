import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { createLogger } from '@bria/core/log';
import { validateFolderOnNode } from '../../../../packages/core/src/services/nodes/index.ts';
import { fileDatabase } from '../../../../packages/testkit/src/file-database.ts';
import { Agent } from '../agent.ts';
import { scratchDir } from '@bria/testkit/scratch';

const { tdb, db } = await fileDatabase();
let hub: Hub;
let agent: Agent;
let nodeId: string;
const base = scratchDir('bria-vf-');

beforeAll(async () => {
  const created = await createNodeWithToken(db, { name: 'vf' });
  nodeId = created.nodeId;
  hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 1000, log: createLogger({ name: 't', level: 'silent' }) });
  await hub.start();
  agent = new Agent(
    {
      hubUrl: `ws://127.0.0.1:${hub.port}/agent`,
      token: created.token,
      dir: scratchDir('bria-agent-'),
      claudeBin: '/nonexistent',
      codexBin: '/nonexistent',
      tmuxSocket: `bria-vf-${process.pid}`,
      logLevel: 'silent',
    },
    () => {},
  );
  await agent.start();
  const end = Date.now() + 15_000;
  while (!(await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
});
afterAll(async () => {
  await agent?.stop();
  await hub?.stop();
});

describe('validateFolderOnNode (asks the real agent)', () => {
  it('returns the real path of an existing folder', async () => {
    const dir = path.join(base, 'project');
    mkdirSync(dir);
    expect(await validateFolderOnNode({ db, nodeId, folder: dir })).toEqual({ folder: dir });
  });

  it.each([
    ['a missing folder', () => path.join(base, 'missing'), /does not exist/],
    [
      'a file',
      () => {
        const f = path.join(base, 'file.txt');
        writeFileSync(f, 'x');
        return f;
      },
      /file, not a folder/,
    ],
    [
      'a symlink to a folder elsewhere',
      () => {
        const l = path.join(base, 'link');
        symlinkSync(tmpdir(), l);
        return l;
      },
      /symbolic link/,
    ],
  ])("refuses %s with the node's reason, and nothing else is created", async (_name, make, reason) => {
    const folder = make();
    await expect(validateFolderOnNode({ db, nodeId, folder })).rejects.toMatchObject({ code: 'INVALID_INPUT', userMessage: expect.stringMatching(reason) });
    expect(await db.session.count()).toBe(0);
  });

  it('says the computer is offline instead of waiting when its agent is away', async () => {
    const other = await createNodeWithToken(db, { name: 'away' });
    await expect(validateFolderOnNode({ db, nodeId: other.nodeId, folder: base })).rejects.toMatchObject({ code: 'NODE_OFFLINE' });
  });
});
