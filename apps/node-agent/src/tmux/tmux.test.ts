import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { Tmux } from './tmux.ts';

const dir = mkdtempSync(join(tmpdir(), 'bria-tmux-'));
const tmux = new Tmux({ socketName: `bria-test-${process.pid}-tmux`, runDir: join(dir, 'run') });

afterAll(async () => {
  const socket = (await tmux.run(['display-message', '-p', '#{socket_path}'])).trim();
  await tmux.killServer();
  expect(existsSync(socket)).toBe(false);
});

async function until<T>(fn: () => Promise<T | null | undefined | false>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await sleep(50);
  }
}

describe('Tmux on a private server', () => {
  it('runs a command with the caller env, pastes exact bytes, and reports death with the exit status', async () => {
    const out = join(dir, 'typed.txt');
    // `head -c` reads exactly the pasted bytes; the paste must not be interpreted by any shell.
    const text = `line "one" $HOME \`id\`\nline two ü ; exit 9`;
    const bytes = Buffer.byteLength(text);
    const s = await tmux.newSession({
      name: 'paste1', cwd: dir,
      command: ['sh', '-c', `stty raw -echo; head -c ${bytes} > typed.txt; printf '%s' "$MARK" > mark.txt; exit 5`],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', MARK: 'from-caller' },
    });
    expect(s.paneId).toMatch(/^%\d+$/);
    const info = await tmux.paneInfo(s.paneId);
    expect(info?.panePid).toBe(s.panePid);
    await sleep(200);
    await tmux.paste(s.paneId, text, { submit: false });
    const dead = await until(async () => {
      const p = await tmux.paneInfo(s.paneId);
      return p?.dead ? p : null;
    });
    expect(dead.dead).toBe(true);
    // Bracketed paste markers only go to programs that enable the mode (`head` did not). tmux sends
    // line breaks as CR, like a keyboard; the TUIs store them as LF.
    expect(readFileSync(out, 'utf8')).toBe(text.replaceAll('\n', '\r'));
    expect(readFileSync(join(dir, 'mark.txt'), 'utf8')).toBe('from-caller');
    expect(await tmux.readExitStatus(s.exitFile)).toBe(5);
    await tmux.killSession('paste1');
    expect(await tmux.paneInfo(s.paneId)).toBeNull();
  });

  it('captures the screen and survives killing the last CLI session', async () => {
    const s = await tmux.newSession({ name: 'cap1', cwd: dir, command: ['sh', '-c', 'echo hello-capture; sleep 30'], env: { PATH: '/usr/bin:/bin' } });
    await until(async () => (await tmux.capture(s.paneId)).includes('hello-capture'));
    await tmux.killSession('cap1');
    const s2 = await tmux.newSession({ name: 'cap2', cwd: dir, command: ['sleep', '30'], env: { PATH: '/usr/bin:/bin' } });
    expect((await tmux.listPanes()).map((p) => p.paneId)).toContain(s2.paneId);
    await tmux.killSession('cap2');
  });
});
