import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Executor, startSystem, type System } from '../../packages/testkit/src/system.ts';
import { isWithheld, LAUNCHER_ADDED_VAR, markLauncherAdded } from '../../apps/node-agent/src/cli-env.ts';

/**
 * The whole stack with the agent started the way `npm start` starts it: its own environment holds
 * the database URL (with a password), its token, the bot token, a libpq password and a variable
 * only the launcher added. Real CLIs answer a real turn; then their process environment, their
 * wrapper shell's, the tmux server's and every file under the agent's data folder are read.
 */
let sys: System;
const pw = `pw${randomBytes(8).toString('hex')}`;
const botToken = `123456:bot-${randomBytes(8).toString('hex')}`;
const launcherOnly = `launcher-${randomBytes(8).toString('hex')}`;
let secrets: Record<string, string> = {};

beforeAll(async () => {
  sys = await startSystem();
  const db = new URL(sys.databaseUrl);
  db.username = 'bria';
  db.password = pw;
  secrets = {
    DATABASE_URL: db.toString(),
    BRIA_AGENT_TOKEN: sys.agentToken,
    TELEGRAM_BOT_TOKEN: botToken,
    PGPASSWORD: pw,
    BRIA_DATA_DIR: sys.root,
    LAUNCHER_CHILD_ONLY: launcherOnly,
  };
  // Exactly what the launcher hands its agent child (scripts/start.ts).
  const env = markLauncherAdded(sys.cliEnv, { ...sys.cliEnv, ...secrets }) as Record<string, string>;
  expect(env[LAUNCHER_ADDED_VAR]).toContain('LAUNCHER_CHILD_ONLY');
  // A start script an older agent left behind, with the whole environment in it.
  mkdirSync(path.join(sys.agentDir, 'tmux'), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(sys.agentDir, 'tmux', 'bria-old.sh'), `env -i 'BRIA_AGENT_TOKEN=${sys.agentToken}' claude\n`, { mode: 0o700 });
  await sys.startAgent({ env });
  const agentPid = sys.agentPid!;
  // The agent process itself really has them (the rig adds nothing of its own in between).
  const own = environOf(agentPid);
  for (const [name, value] of Object.entries(secrets)) expect(own.get(name)).toBe(value);
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

function environOf(pid: number): Map<string, string> {
  const raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  return new Map(
    raw
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

/** Names of Bria's own variables and every secret value found in an environment or a text. */
function leaks(text: string, names: Iterable<string> = []): string[] {
  const found: string[] = [];
  for (const n of names) if (isWithheld(n) || n === 'LAUNCHER_CHILD_ONLY' || n === LAUNCHER_ADDED_VAR) found.push(`name ${n}`);
  for (const v of [pw, sys.agentToken, botToken, launcherOnly]) if (text.includes(v)) found.push(`value ${v.slice(0, 6)}…`);
  return found;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map((e) => path.join(dir, String(e)));
}

describe.each(['claude', 'codex'] as Executor[])('%s started through the whole stack', (executor) => {
  it("has the user's environment and none of Bria's variables or secrets", async () => {
    const s = await sys.createSession(executor, sys.folder(`secrets-${executor}`));
    await sys.send(s.id, `hello secrets ${executor}`);
    await sys.waitMessages(s.id, (st) => st[0] === 'completed', 120_000);
    const id = await sys.identity(s.id);
    const cli = environOf(id.cliPid);
    expect(cli.get('HOME')).toBe(sys.cliEnv.HOME);
    expect(cli.get('PATH')).toBe(sys.cliEnv.PATH);
    expect(leaks([...cli].map(([k, v]) => `${k}=${v}`).join('\n'), cli.keys())).toEqual([]);
    // Its parent (the pane's wrapper shell) and the tmux server are readable by the CLI too.
    const stat = readFileSync(`/proc/${id.cliPid}/stat`, 'utf8');
    const shell = environOf(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    expect(leaks([...shell].map(([k, v]) => `${k}=${v}`).join('\n'), shell.keys())).toEqual([]);
    const server = Number(execFileSync('tmux', ['-L', sys.tmuxSocket, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).trim());
    const srv = environOf(server);
    expect(leaks([...srv].map(([k, v]) => `${k}=${v}`).join('\n'), srv.keys())).toEqual([]);
  }, 180_000);
});

describe("the agent's data folder", () => {
  it('holds no secret, no start script (not even one an older agent left), and only 0600 files in 0700 folders', () => {
    const entries = walk(sys.agentDir);
    expect(entries.length).toBeGreaterThan(3);
    const bad: string[] = [];
    for (const p of entries) {
      const st = statSync(p);
      if ((st.mode & 0o077) !== 0) bad.push(`${path.relative(sys.agentDir, p)} mode ${(st.mode & 0o777).toString(8)}`);
      if (st.isFile()) for (const l of leaks(readFileSync(p, 'latin1'))) bad.push(`${path.relative(sys.agentDir, p)}: ${l}`);
    }
    expect(statSync(sys.agentDir).mode & 0o077).toBe(0);
    expect(bad).toEqual([]);
    expect(entries.filter((p) => p.endsWith('.sh'))).toEqual([]);
  });
});
