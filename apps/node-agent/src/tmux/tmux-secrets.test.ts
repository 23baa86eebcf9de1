import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { Tmux } from './tmux.ts';

const dir = mkdtempSync(join(tmpdir(), 'bria-tmux-secrets-'));
const SECRET = `secret-${process.pid}-value`;
const servers: Tmux[] = [];

afterAll(async () => {
  for (const t of servers) await t.killServer().catch(() => undefined);
});

async function until<T>(fn: () => Promise<T | null | undefined | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await sleep(50);
  }
}

/** Runs a pane whose command dumps its parent's (the wrapper shell's) environment and lists the run folder. */
async function dumpPane(tmux: Tmux, name: string): Promise<{ parentEnv: string; scriptPath: string; exitFile: string }> {
  const out = join(dir, `${name}.parent-env`);
  const s = await tmux.newSession({
    name,
    cwd: dir,
    command: ['sh', '-c', `tr '\\0' '\\n' < /proc/$PPID/environ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 60`, 'sh', out],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
  });
  const parentEnv = await until(async () => readFileSync(out, 'utf8'));
  return { parentEnv, scriptPath: s.scriptPath, exitFile: s.exitFile };
}

describe('the pane side of a CLI holds none of the agent secrets', () => {
  it('a server this adapter starts gets only the given environment; the start script is 0600 and can go once the command runs', async () => {
    process.env.BRIA_SECRETS_TEST = SECRET;
    const tmux = new Tmux({ socketName: `bria-sec-a-${process.pid}`, runDir: join(dir, 'run-a'), env: { PATH: process.env.PATH, HOME: dir } });
    servers.push(tmux);
    await tmux.ensureServer();
    const r = await dumpPane(tmux, 'a1');
    expect(r.parentEnv).toContain(`HOME=${dir}`);
    expect(r.parentEnv).not.toContain(SECRET);
    expect(statSync(r.scriptPath).mode & 0o777).toBe(0o600);
    expect(statSync(r.exitFile).mode & 0o777).toBe(0o600);
    // The shell runs its command from the open file: removing it now changes nothing for the pane.
    await tmux.removeScript(r.scriptPath);
    expect(await readdir(tmux.runDir)).toEqual(['a1.exit']);
    expect(await tmux.paneInfo((await tmux.listPanes()).find((p) => p.sessionName === 'a1')!.paneId)).toMatchObject({ dead: false });
    expect(statSync(tmux.runDir).mode & 0o777).toBe(0o700);
  });

  it('a server started earlier with the secret has the withheld names removed from its global environment', async () => {
    process.env.BRIA_SECRETS_TEST = SECRET;
    const socketName = `bria-sec-b-${process.pid}`;
    const old = new Tmux({ socketName, runDir: join(dir, 'run-b') });
    servers.push(old);
    await old.ensureServer();
    expect(await old.run(['show-environment', '-g', 'BRIA_SECRETS_TEST'])).toContain(SECRET);
    old.close();
    const tmux = new Tmux({ socketName, runDir: join(dir, 'run-b'), env: { PATH: process.env.PATH, HOME: dir }, withheld: (n) => n.startsWith('BRIA_') });
    await tmux.ensureServer();
    const r = await dumpPane(tmux, 'b1');
    expect(r.parentEnv).toContain('PATH=');
    expect(r.parentEnv).not.toContain(SECRET);
    tmux.close();
  });
});
