import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '@bria/testkit/scratch';
import { lockAgentDir } from './instance-lock.ts';

describe('one agent per agent folder', () => {
  it('a second agent on the same folder is refused while the first runs, and takes over once it is gone', async () => {
    const dir = scratchDir('bria-lock-');
    // A live process holding the folder.
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    writeFileSync(path.join(dir, 'agent.pid'), `${holder.pid}\n`);
    expect(() => lockAgentDir(dir, 4242)).toThrow(`Another agent (pid ${holder.pid}) runs with the folder ${dir}. Stop it first`);
    const gone = new Promise((r) => holder.once('exit', r));
    holder.kill('SIGKILL');
    await gone;
    const lock = lockAgentDir(dir, 4242);
    expect(readFileSync(path.join(dir, 'agent.pid'), 'utf8')).toBe('4242\n');
    expect(statSync(path.join(dir, 'agent.pid')).mode & 0o777).toBe(0o600);
    lock.release();
    expect(existsSync(path.join(dir, 'agent.pid'))).toBe(false);
  });

  it('a file naming this very process (a reused pid) or garbage is taken over', () => {
    const dir = scratchDir('bria-lock-');
    writeFileSync(path.join(dir, 'agent.pid'), `${process.pid}\n`);
    lockAgentDir(dir).release();
    writeFileSync(path.join(dir, 'agent.pid'), 'nonsense');
    expect(() => lockAgentDir(dir, 4243)).not.toThrow();
  });
});
