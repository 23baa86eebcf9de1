import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killRecorded, recordTree, stillThere } from './launch.ts';
import { PROCESS_LAYERS, procStat, useProcessLayer } from './process-table.ts';

// A close waits seconds for the CLI's tree to end, and the system may meanwhile give a finished
// process's pid to a stranger. The close must take a pid for its own only with the start it recorded.

/** Still a live process (not a zombie), read from /proc itself, whatever the layer under test says. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const children: ChildProcess[] = [];
function sleeper(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}
const exited = (c: ChildProcess) => new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode ? resolve() : c.once('exit', () => resolve())));

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe.each(PROCESS_LAYERS)("a close's recorded tree (%s process layer)", (layer) => {
  beforeAll(() => {
    useProcessLayer(layer);
  });
  afterAll(() => {
    useProcessLayer('proc');
  });

  it('a pid that now names another process (another start) is gone, and is never signalled', async () => {
    const pid = sleeper();
    const st = await procStat(pid);
    expect(st).not.toBeNull();
    // What a close sees when the pid it recorded was handed to a new process: same pid, other start.
    const stranger = new Map([[pid, layer === 'proc' ? String(Number(st!.startTime) - 500) : 'Mon Jan  1 00:00:00 2024']]);
    expect(await stillThere(stranger)).toEqual([]);
    expect(await killRecorded(stranger, [pid])).toEqual([]);
    expect(running(pid)).toBe(true);
  });

  it('the recorded process itself is still there until it ends, and is the one killed', async () => {
    const pid = sleeper();
    const tree = await recordTree([pid]);
    expect(tree.size).toBe(1);
    expect(await stillThere(tree)).toEqual([pid]);
    expect(await killRecorded(tree, [pid])).toEqual([pid]);
    await exited(children[children.length - 1]!);
    expect(running(pid)).toBe(false);
    expect(await stillThere(tree)).toEqual([]);
  });
});
