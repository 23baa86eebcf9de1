import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killTmuxServer, procAlive } from '../../../../packages/testkit/src/system.ts';
import { Tmux } from '../tmux/tmux.ts';
import { SessionControl } from './session-control.ts';

// A resume whose CLI never reaches its prompt in time is ended, not left running: the hub's next
// attempt launches another CLI, and a Codex left holding the conversation makes every later one
// stop on "This conversation is open in another app". The "CLI" here is a real
// process in a real tmux pane that prints nothing and never exits.
const root = mkdtempSync(path.join(tmpdir(), 'bria-resume-hung-'));
const socket = `bria-hung-${process.pid}`;
afterAll(async () => {
  await killTmuxServer(socket);
  rmSync(root, { recursive: true, force: true });
});

const tmuxOut = (...args: string[]): string => {
  try {
    return execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
};

describe('a resume whose CLI hangs before its prompt', () => {
  it('is answered resume_failed and its CLI is ended', async () => {
    const bin = path.join(root, 'hung-cli');
    const pidFile = path.join(root, 'hung.pid');
    writeFileSync(bin, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 600\n`);
    chmodSync(bin, 0o755);
    const folder = path.join(root, 'work');
    mkdirSync(folder);
    const events: { event: string; payload: Record<string, unknown> }[] = [];
    const control = new SessionControl({
      dir: path.join(root, 'agent'),
      tmux: new Tmux({ socketName: socket, runDir: path.join(root, 'tmux') }),
      bins: { claude: bin, codex: bin },
      env: { ...process.env, PATH: process.env.PATH ?? '' },
      log: () => undefined,
      emit: (e) => events.push({ event: e.event, payload: e.payload }),
      hostTimeouts: { readyMs: 2_000, exitMs: 2_000 },
    });
    control.registry.put('s-hung', {
      executor: 'codex',
      folder,
      generation: 2,
      status: 'exited',
      identity: null,
      turns: [],
      unconfirmed: [],
      deliveries: [],
      recent: [],
    });
    const r = await control.resume('s-hung', { generation: 3, executor: 'codex', folder, nativeSessionId: '01a2381b-0000-7000-8000-000000000001' });
    expect(r.ok).toBe(false);
    expect(events.map((e) => e.event)).toContain('resume_failed');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(pid).toBeGreaterThan(0);
    // The hung process is gone and no live pane is left for the session.
    expect(procAlive(pid)).toBe(false);
    const live = tmuxOut('list-panes', '-a', '-F', '#{session_name} #{pane_dead}')
      .split('\n')
      .filter((l) => l.startsWith('bria-s-hung') && l.endsWith(' 0'));
    expect(live).toEqual([]);
    expect(control.registry.get('s-hung')?.status).toBe('exited');
  }, 60_000);
});
