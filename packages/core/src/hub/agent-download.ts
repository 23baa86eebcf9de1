import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { agentBundleName, readAgentBundle, sha256File, type AgentBundleInfo } from '../agent-bundle.ts';

/**
 * The agent bundle on the hub's own port (the port remote agents already reach):
 * - `GET /agent/latest.json` → `{ version, sha256, url }`;
 * - `GET /agent/bria-agent-<version>.mjs` → the file, only for the version built now (an older
 *   version's URL answers 404 with the current one, so a command never installs something else
 *   than its checksum names).
 * The file's SHA-256 is checked against `latest.json` once per build (size + mtime) before it is
 * served: a half-written rebuild is answered 503, never sent.
 */
export class AgentDownloads {
  private verified: { key: string; ok: boolean } | undefined;

  constructor(private readonly dir: string) {}

  current(): AgentBundleInfo | null {
    const b = readAgentBundle(this.dir);
    if (!b) return null;
    const st = statSync(b.file);
    const key = `${b.sha256}:${st.size}:${st.mtimeMs}`;
    if (this.verified?.key !== key) this.verified = { key, ok: sha256File(b.file) === b.sha256 };
    return this.verified.ok ? b : null;
  }

  /** Answers the request when it is one of the bundle's; false otherwise (the caller answers). */
  handle(req: IncomingMessage, res: ServerResponse, secure: boolean): boolean {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (!pathname.startsWith('/agent/') || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const b = this.current();
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    if (!b) {
      json(503, { error: 'The agent bundle is not built on this server (npm run build:agent).' });
      return true;
    }
    const name = agentBundleName(b.version);
    if (pathname === '/agent/latest.json') {
      const host = req.headers.host ?? 'localhost';
      json(200, { version: b.version, sha256: b.sha256, url: `${secure ? 'https' : 'http'}://${host}/agent/${name}` });
      return true;
    }
    if (pathname !== `/agent/${name}`) {
      json(404, { error: 'not found', latest: `/agent/${name}` });
      return true;
    }
    res.writeHead(200, {
      'content-type': 'text/javascript; charset=utf-8',
      'content-length': String(b.bytes),
      // The name carries the version: a cache may keep it for good.
      'cache-control': 'public, max-age=31536000, immutable',
      'x-bria-sha256': b.sha256,
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(b.file).pipe(res);
    return true;
  }
}
