import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentConfig } from './env.ts';
import { SOURCE_VERSION } from './bundle-info.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'bria-env-'));
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, 'bria_agent_from-a-file\n', { mode: 0o600 });

describe('agent configuration', () => {
  it('reads the token from --token-file or BRIA_AGENT_TOKEN_FILE (trimmed), else BRIA_AGENT_TOKEN', () => {
    expect(loadAgentConfig(['--token-file', tokenFile], {})).toMatchObject({ token: 'bria_agent_from-a-file', tokenFile });
    expect(loadAgentConfig([], { BRIA_AGENT_TOKEN_FILE: tokenFile }).token).toBe('bria_agent_from-a-file');
    expect(loadAgentConfig([], { BRIA_AGENT_TOKEN: 'bria_agent_from-env' }).token).toBe('bria_agent_from-env');
    expect(() => loadAgentConfig(['--token-file', path.join(dir, 'missing')], {})).toThrow(/Cannot read the token file/);
    expect(() => loadAgentConfig([], {})).toThrow(/--token-file/);
  });

  it('takes the pinned CA (--ca-sha256 / BRIA_AGENT_CA_SHA256) as 64 hex digits, colons allowed, and only for wss://', () => {
    const env = { BRIA_AGENT_TOKEN: 'bria_agent_from-env' };
    const pin = 'AB'.repeat(32);
    expect(loadAgentConfig(['--hub', 'wss://192.0.2.2:3001/agent', '--ca-sha256', pin], env).caSha256).toBe('ab'.repeat(32));
    const colons = pin.match(/../g)!.join(':');
    expect(loadAgentConfig(['--hub', 'wss://192.0.2.2:3001/agent'], { ...env, BRIA_AGENT_CA_SHA256: colons }).caSha256).toBe('ab'.repeat(32));
    expect(() => loadAgentConfig(['--hub', 'wss://192.0.2.2:3001/agent', '--ca-sha256', 'abc'], env)).toThrow(/--ca-sha256 must be 64 hex digits/);
    expect(() => loadAgentConfig(['--hub', 'ws://127.0.0.1:3001/agent', '--ca-sha256', pin], env)).toThrow(/the hub URL must be wss:\/\//);
  });

  it('refuses ws:// to another computer unless --insecure, with the reason and the ways out', () => {
    const env = { BRIA_AGENT_TOKEN: 'bria_agent_from-env' };
    expect(() => loadAgentConfig(['--hub', 'ws://192.168.1.20:3001/agent'], env)).toThrow(
      /^Refusing ws:\/\/192\.168\.1\.20:3001: an unencrypted connection to another computer would send the agent token readable on the network\. Use wss:\/\/.*--insecure/,
    );
    expect(() => loadAgentConfig(['--hub', 'http://bria.lan:3001'], env)).toThrow(/Refusing ws:\/\/bria\.lan:3001/);
    expect(loadAgentConfig(['--hub', 'ws://192.168.1.20:3001/agent', '--insecure'], env)).toMatchObject({
      hubUrl: 'ws://192.168.1.20:3001/agent',
      insecure: true,
    });
    expect(loadAgentConfig(['--hub', 'ws://192.168.1.20:3001'], { ...env, BRIA_AGENT_INSECURE: '1' }).insecure).toBe(true);
    for (const ok of ['ws://127.0.0.1:3001/agent', 'ws://localhost:3001', 'ws://[::1]:3001', 'wss://bria.example.net:3001', 'https://bria.example.net']) {
      expect(() => loadAgentConfig(['--hub', ok], env)).not.toThrow();
    }
  });

  it('reads a CA file for wss://', () => {
    const ca = path.join(dir, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n');
    expect(loadAgentConfig(['--ca', ca], { BRIA_AGENT_TOKEN: 'bria_agent_from-env' }).caFile).toBe(ca);
    expect(() => loadAgentConfig(['--ca', path.join(dir, 'nope.pem')], { BRIA_AGENT_TOKEN: 'bria_agent_from-env' })).toThrow(/Cannot read the CA certificate/);
  });

  it("the checkout's version is the root package.json's", async () => {
    const pkg = (await import('../../../package.json', { with: { type: 'json' } })).default as { version: string };
    expect(SOURCE_VERSION).toBe(pkg.version);
  });
});
