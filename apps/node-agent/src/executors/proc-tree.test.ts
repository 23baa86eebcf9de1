import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { claudeProjectDirName } from './claude-driver.ts';
import { isAlive, parseProcStat, processTree, procStat } from './proc-tree.ts';

describe('proc helpers', () => {
  it('parses /proc/<pid>/stat even when the command name has spaces and parentheses', () => {
    const line = '4242 (tmux: server (x)) S 1 4242 4242 0 -1 4194624 100 0 0 0 1 2 0 0 20 0 1 0 987654 12345 678 18446744073709551615';
    expect(parseProcStat(line)).toEqual({ pid: 4242, comm: 'tmux: server (x)', state: 'S', ppid: 1, startTime: '987654' });
  });
  it('collects a real process tree and sees it end', async () => {
    const child = spawn('sh', ['-c', 'sleep 30 & sleep 30; wait'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 200));
    const tree = await processTree(child.pid!);
    expect(tree[0]).toBe(child.pid);
    expect(tree).toHaveLength(3);
    expect((await procStat(child.pid!))?.startTime).toMatch(/^\d+$/);
    for (const p of tree.slice(1)) process.kill(p, 'SIGKILL');
    await new Promise((r) => child.on('exit', r));
    for (const p of tree) expect(await isAlive(p)).toBe(false);
  });
  it('encodes Claude project folder names like the CLI', () => {
    expect(claudeProjectDirName('/work-dir/c5')).toBe('-work-dir-c5');
    expect(claudeProjectDirName('My.Proj_dir with space-ü~x')).toBe('My-Proj-dir-with-space---x');
    const long = `/${'a'.repeat(250)}`;
    expect(claudeProjectDirName(long)).toMatch(/^-a{199}-[0-9a-z]+$/);
  });
});
