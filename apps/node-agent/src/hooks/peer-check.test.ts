import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTree, kernelPeerPids, peerPidsFromSs } from './peer-check.ts';

const SS = [
  'u_str ESTAB 0      0      /run/bria/agent.sock 727107 * 727106 users:(("node",pid=2808,fd=21))',
  'u_str ESTAB 0      0      * 727106 * 727107 users:(("node",pid=4242,fd=20),("sh",pid=4243,fd=20))',
  'u_str ESTAB 0      0      * 900001 * 900002',
  'u_str LISTEN 0     511    /run/bria/agent.sock 727000 * 0 users:(("node",pid=2808,fd=19))',
].join('\n');

describe('peer pids from ss -xpnH', () => {
  it.each([
    { inode: 727107, pids: [4242, 4243] },
    { inode: 727106, pids: [2808] },
    // A peer row without a process (not ours to see, or gone): nobody verified.
    { inode: 900002, pids: [] },
    { inode: 5, pids: [] },
  ])('the peer of $inode', ({ inode, pids }) => {
    expect(peerPidsFromSs(SS, inode)).toEqual(pids);
  });
});

describe('inTree', () => {
  const parents: Record<number, number> = { 50: 40, 40: 30, 30: 1, 60: 1 };
  const parentOf = (p: number) => parents[p] ?? null;
  it.each([
    { pid: 50, root: 30, in: true },
    { pid: 30, root: 30, in: true },
    { pid: 60, root: 30, in: false },
    { pid: 30, root: 50, in: false },
    { pid: 99, root: 30, in: false },
  ])('$pid under $root: $in', ({ pid, root, in: expected }) => {
    expect(inTree(pid, root, parentOf)).toBe(expected);
  });
});

describe('kernelPeerPids on a real socket', () => {
  it('names the process that connected, not the one it claims to be', async () => {
    const root = await mkdtemp(join(tmpdir(), 'bria-peer-'));
    const path = join(root, 's.sock');
    const server = createServer();
    const accepted = new Promise<Socket>((resolve) => server.on('connection', resolve));
    await new Promise<void>((r) => server.listen(path, () => r()));
    const child = spawn(process.execPath, ['-e', `const c = require('node:net').connect(${JSON.stringify(path)}); setTimeout(() => c.end(), 30000);`]);
    const socket = await accepted;
    try {
      expect(await kernelPeerPids(socket)).toEqual([child.pid]);
    } finally {
      child.kill();
      socket.destroy();
      server.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
