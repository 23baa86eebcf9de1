import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentDownloadBase, installCommand, shellQuote, updateCommand } from './install-command.ts';
import { isInsecureRemote } from './add-computer.ts';

const SHA = 'a'.repeat(64);

/** `sh -s` with the command on its input, as a pasted command (async: the test's own server must answer curl). */
function sh(input: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn('sh', ['-s'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    p.on('close', (status) => resolve({ status, stdout, stderr }));
    p.stdin.end(input);
  });
}
const TOKEN = 'bria_agent_AbC-123_xyz';

describe('the install command', () => {
  it('downloads the versioned file from the hub over http(s), pins its SHA-256 and never puts the token on a command line', () => {
    const cmd = installCommand({ hubUrl: 'wss://bria.example.net:3001/agent', bundle: { version: '0.1.0-1a2b3c4d', sha256: SHA }, token: TOKEN });
    expect(cmd).toContain(`curl -fsSL -o "$F.part" 'https://bria.example.net:3001/agent/bria-agent-0.1.0-1a2b3c4d.mjs'`);
    expect(cmd).toContain(`[ "$H" = ${SHA} ]`);
    expect(cmd).toContain('sha256sum "$F.part" 2>/dev/null || shasum -a 256 "$F.part"');
    expect(cmd).toContain('D="$HOME/.local/share/bria-agent"');
    expect(cmd).toContain('[ "$(uname)" = Darwin ] && D="$HOME/Library/Application Support/bria-agent"');
    // The token appears once: as the argument of the shell's builtin printf into the 0600 file.
    expect(cmd.split(TOKEN)).toHaveLength(2);
    expect(cmd).toContain(`(umask 077 && printf '%s\\n' '${TOKEN}' > "$D/token")`);
    expect(cmd).toMatch(/exec node "\$D\/bria-agent\.mjs" --hub 'wss:\/\/bria\.example\.net:3001\/agent' --token-file "\$D\/token" --dir "\$D\/state" \)$/);
    expect(cmd).not.toContain('--insecure');
    expect(cmd).not.toMatch(/--token\s/);
  });

  it('says --insecure where it is asked for; the update command carries no token', () => {
    const bundle = { version: '0.1.0-1a2b3c4d', sha256: SHA };
    expect(installCommand({ hubUrl: 'ws://10.0.0.5:3001/agent', bundle, token: TOKEN, insecure: true })).toContain('--dir "$D/state" --insecure )');
    const up = updateCommand({ hubUrl: 'ws://10.0.0.5:3001/agent', bundle });
    expect(up).toContain("'http://10.0.0.5:3001/agent/bria-agent-0.1.0-1a2b3c4d.mjs'");
    expect(up).not.toContain('token');
  });

  it('quotes for the shell and derives the download folder', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(agentDownloadBase('ws://h:3001/agent')).toBe('http://h:3001/agent');
    expect(agentDownloadBase('wss://h/agent')).toBe('https://h/agent');
    expect(isInsecureRemote('ws://10.0.0.5:3001/agent')).toBe(true);
    expect(isInsecureRemote('ws://127.0.0.1:3001/agent')).toBe(false);
    expect(isInsecureRemote('wss://10.0.0.5:3001/agent')).toBe(false);
  });

  it('run by sh against a served file: installs and checks it, writes the token 0600; a wrong checksum installs nothing', async () => {
    const body = Buffer.from('console.log("agent ran", process.argv.slice(2).join(" "))\n');
    const sha = createHash('sha256').update(body).digest('hex');
    const server = createServer((req, res) => {
      if (req.url === '/agent/bria-agent-9.9.9-00000000.mjs') res.end(body);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const home = mkdtempSync(path.join(tmpdir(), 'bria-install-'));
      const hubUrl = `ws://127.0.0.1:${port}/agent`;
      const env = { HOME: home, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
      // As a user pastes it: the shell reads the command from its input, not from its arguments.
      const bad = await sh(installCommand({ hubUrl, bundle: { version: '9.9.9-00000000', sha256: 'b'.repeat(64) }, token: TOKEN }), env);
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toContain("the download's SHA-256 is wrong");
      const dir = path.join(home, '.local/share/bria-agent');
      expect(() => statSync(path.join(dir, 'bria-agent-9.9.9-00000000.mjs'))).toThrow();
      expect(() => statSync(path.join(dir, 'token'))).toThrow();

      const ok = await sh(installCommand({ hubUrl, bundle: { version: '9.9.9-00000000', sha256: sha }, token: TOKEN }), env);
      expect(ok.stderr).toBe('');
      expect(ok.stdout).toBe(`agent ran --hub ${hubUrl} --token-file ${dir}/token --dir ${dir}/state\n`);
      expect(readFileSync(path.join(dir, 'token'), 'utf8')).toBe(`${TOKEN}\n`);
      expect(statSync(path.join(dir, 'token')).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(readFileSync(path.join(dir, 'bria-agent.mjs'))).toEqual(body);
    } finally {
      server.close();
    }
  });
});
