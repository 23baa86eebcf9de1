import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { quoteTmuxArg } from './control.ts';
import { type PaneStates, Tmux } from './tmux.ts';

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
      name: 'paste1',
      cwd: dir,
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

  it('passes every byte of an argument through the control client unchanged', async () => {
    await tmux.ensureServer();
    // Every character but NUL from U+0001 to U+00FF, plus multi-byte and astral characters, and
    // text that looks like tmux syntax (formats, `;`, braces, `~`, a leading `-`).
    let text = '-';
    for (let i = 1; i < 256; i++) text += String.fromCharCode(i);
    text += ' 日本語 🙂 #{pane_id} ; {x} ~ $HOME %if \\';
    const file = join(dir, 'buffer.bin');
    await tmux.sequence([
      ['set-buffer', '-b', 'exact', '--', text],
      ['save-buffer', '-b', 'exact', file],
      ['delete-buffer', '-b', 'exact'],
    ]);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(quoteTmuxArg('a"$\\\n\x1b')).toBe('"a\\"\\$\\\\\\n\\033"');
    expect(() => quoteTmuxArg('a\0b')).toThrow(/NUL/);
  });

  it('pastes the same bytes without a control client (one tmux process per paste)', async () => {
    const spawned = new Tmux({ socketName: tmux.socketName, runDir: tmux.runDir, control: false });
    const text = `plain "two" $HOME \`id\`\nsecond ü 🙂`;
    const bytes = Buffer.byteLength(text);
    const s = await spawned.newSession({
      name: 'paste2',
      cwd: dir,
      command: ['sh', '-c', `stty raw -echo; head -c ${bytes} > typed2.txt; sleep 30`],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    await sleep(200);
    const before = await spawned.paste(s.paneId, text, { submit: false, captureBefore: true });
    expect(typeof before).toBe('string');
    await until(async () => existsSync(join(dir, 'typed2.txt')) && Buffer.byteLength(readFileSync(join(dir, 'typed2.txt'), 'utf8')) === bytes);
    expect(readFileSync(join(dir, 'typed2.txt'), 'utf8')).toBe(text.replaceAll('\n', '\r'));
    await spawned.killSession('paste2');
  });

  it('never pastes into a dead pane (tmux 3.3a would segfault): the paste fails, the server lives on', async () => {
    for (const control of [true, false]) {
      const t = new Tmux({ socketName: tmux.socketName, runDir: tmux.runDir, control });
      const s = await t.newSession({ name: `dead-${control}`, cwd: dir, command: ['sh', '-c', 'exit 3'], env: { PATH: '/usr/bin:/bin' } });
      await until(async () => (await t.paneInfo(s.paneId))?.dead === true);
      const serverPid = await t.serverPid();
      await expect(t.paste(s.paneId, 'into the dead', { submit: false, captureBefore: true })).rejects.toThrow(/is dead/);
      expect(await t.serverPid()).toBe(serverPid);
      expect((await t.run(['list-buffers', '-F', '#{buffer_name}'])).trim()).toBe('');
      await t.killSession(`dead-${control}`);
      t.close();
    }
  });

  it('reports a pane that died and a session that vanished through the pane subscription', async () => {
    const seen: PaneStates[] = [];
    const stop = tmux.watchPanes((p) => seen.push(p));
    try {
      const a = await tmux.newSession({ name: 'watch1', cwd: dir, command: ['sh', '-c', 'sleep 1'], env: { PATH: '/usr/bin:/bin' } });
      const b = await tmux.newSession({ name: 'watch2', cwd: dir, command: ['sleep', '30'], env: { PATH: '/usr/bin:/bin' } });
      await until(async () => tmux.paneStates?.get(a.paneId) === false && tmux.paneStates?.get(b.paneId) === false, 5000);
      const t0 = Date.now();
      await until(async () => tmux.paneStates?.get(a.paneId) === true, 5000);
      // tmux evaluates the subscription once a second; sleep 1 ends ~1 s after it started.
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(tmux.paneStates?.get(b.paneId)).toBe(false);
      await tmux.killSession('watch2');
      await until(async () => tmux.paneStates !== null && !tmux.paneStates.has(b.paneId), 5000);
      expect(seen.length).toBeGreaterThanOrEqual(3);
      await tmux.killSession('watch1');
    } finally {
      stop();
    }
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
