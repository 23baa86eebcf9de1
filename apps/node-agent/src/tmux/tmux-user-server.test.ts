import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@bria/testkit/wait';
import { tmuxAddress } from './tmux-process.ts';
import { Tmux } from './tmux.ts';

// A tmux server of the user's own, addressed by its socket path (`-S`) as an adopted session's CLI
// names it in its `TMUX` environment: Bria reads, pastes, sends keys and follows a pane there, and
// never starts, reconfigures or kills that server.

const dir = mkdtempSync(join(tmpdir(), 'bria-usertmux-'));
const name = `user-${process.pid}-tmux`;
const user = (...a: string[]) => execFileSync('tmux', ['-L', name, ...a], { encoding: 'utf8', env: { ...process.env, TMUX: '' } });
let socketPath = '';
let tmux: Tmux;

beforeAll(() => {
  // `cat` echoes what is typed into the pane: the user's shell as far as Bria can tell.
  user('new-session', '-d', '-s', 'mine', '-x', '120', '-y', '30', 'cat');
  socketPath = user('display-message', '-p', '#{socket_path}').trim();
  tmux = new Tmux({ socketName: socketPath, userServer: true, controlSession: 'mine', runDir: join(dir, 'run') });
});

afterAll(() => {
  tmux?.close();
  try {
    user('kill-server');
  } catch {
    // already gone
  }
});

describe('tmux addressing', () => {
  it('names a server by socket path with -S and by name with -L', () => {
    expect(tmuxAddress('/tmp/tmux-1000/default')).toEqual(['-S', '/tmp/tmux-1000/default']);
    expect(tmuxAddress('bria')).toEqual(['-L', 'bria']);
  });

  it("a user server must be given by its path, Bria's by its name", () => {
    expect(() => new Tmux({ socketName: 'bria-x', userServer: true, runDir: dir })).toThrow(/socket path/);
    expect(() => new Tmux({ socketName: '/tmp/x', runDir: dir })).toThrow(/socket path/);
  });
});

describe("a tmux server of the user's own, by its socket path", () => {
  it('reads its pane, pastes into it and follows its output through control mode', async () => {
    const options = user('show-options', '-g');
    const pane = user('display-message', '-p', '-t', 'mine', '#{pane_id}').trim();
    const info = await tmux.paneInfo(pane);
    expect(info).toMatchObject({ paneId: pane, sessionName: 'mine', dead: false });
    const seen: string[] = [];
    const follower = await tmux.followPane({ sessionName: 'mine', paneId: pane, onOutput: (d) => seen.push(d) });
    expect(follower).not.toBeNull();
    const text = `typed by bria ${process.pid}`;
    await tmux.paste(pane, text, { submit: false });
    await waitUntil('the pasted text on the pane', async () => (await tmux.capture(pane)).includes(text), 10_000, 50);
    await waitUntil('the pasted text through the follower', async () => seen.join('').includes(text), 10_000, 50);
    // Commands went through one control-mode client attached to the user's session.
    expect(tmux.controlClientPid).toBeGreaterThan(0);
    // No buffer is left behind, no option changed.
    expect(user('list-buffers')).toBe('');
    expect(user('show-options', '-g')).toBe(options);
    follower?.close();
  });

  it('never starts, configures or kills that server', async () => {
    await expect(tmux.ensureServer()).rejects.toThrow(/refused on the user's own tmux server/);
    await expect(tmux.killSession('mine')).rejects.toThrow(/refused/);
    await expect(tmux.killServer()).rejects.toThrow(/refused/);
    await expect(tmux.newSession({ name: 'x', cwd: dir, command: ['true'], env: {} })).rejects.toThrow(/refused/);
    expect(await tmux.nudgeReaper()).toBe(false);
    expect(user('list-sessions', '-F', '#{session_name}').trim()).toBe('mine');
  });
});
