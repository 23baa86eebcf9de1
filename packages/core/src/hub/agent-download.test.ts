import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentDownloads } from './agent-download.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'bria-dl-'));
const downloads = new AgentDownloads(dir);
const server = createServer((req, res) => {
  if (!downloads.handle(req, res, false)) res.writeHead(418).end();
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function build(body: string, version: string, sha = createHash('sha256').update(body).digest('hex')): string {
  writeFileSync(path.join(dir, 'bria-agent.mjs'), body);
  writeFileSync(path.join(dir, 'latest.json'), JSON.stringify({ version, sha256: sha, bytes: Buffer.byteLength(body) }));
  return sha;
}

describe('the hub serves the agent bundle', () => {
  it('answers 503 before a build, then latest.json and the versioned file with its checksum; another version is 404', async () => {
    expect((await fetch(`${base}/agent/latest.json`)).status).toBe(503);
    const sha = build('// agent one\n', '0.1.0-aaaaaaaa');
    expect(await (await fetch(`${base}/agent/latest.json`)).json()).toEqual({
      version: '0.1.0-aaaaaaaa',
      sha256: sha,
      url: `${base}/agent/bria-agent-0.1.0-aaaaaaaa.mjs`,
    });
    const file = await fetch(`${base}/agent/bria-agent-0.1.0-aaaaaaaa.mjs`);
    expect(file.status).toBe(200);
    expect(file.headers.get('x-bria-sha256')).toBe(sha);
    expect(await file.text()).toBe('// agent one\n');
    const other = await fetch(`${base}/agent/bria-agent-0.0.9-bbbbbbbb.mjs`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ latest: '/agent/bria-agent-0.1.0-aaaaaaaa.mjs' });
    // Not the bundle's: left to the hub's other handlers.
    expect((await fetch(`${base}/health`)).status).toBe(418);
  });

  it('a rebuild is served at once under its new name; a file that does not match its checksum is never served', async () => {
    build('// agent two, longer\n', '0.1.0-cccccccc');
    expect((await fetch(`${base}/agent/bria-agent-0.1.0-cccccccc.mjs`)).status).toBe(200);
    expect((await fetch(`${base}/agent/bria-agent-0.1.0-aaaaaaaa.mjs`)).status).toBe(404);
    build('// tampered!!\n', '0.1.0-dddddddd', 'e'.repeat(64));
    expect((await fetch(`${base}/agent/bria-agent-0.1.0-dddddddd.mjs`)).status).toBe(503);
    expect((await fetch(`${base}/agent/latest.json`)).status).toBe(503);
  });
});
