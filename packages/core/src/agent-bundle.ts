import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * The node agent as one file (`npm run build:agent`, scripts/build-agent.ts): what the build writes
 * beside it in `latest.json`, read by the hub (which serves it) and by the services that show the
 * install command and whether a node's agent is outdated. Postgres is not involved: the bundle is a
 * build product of the server's checkout, like the dashboard's `.next`.
 */
export const AGENT_BUNDLE_FILE = 'bria-agent.mjs';
export const AGENT_BUNDLE_LATEST = 'latest.json';

const zLatest = z.object({
  version: z.string().regex(/^[0-9A-Za-z.+-]{1,64}$/),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().positive(),
});

export interface AgentBundleInfo {
  /** `<root package.json version>-<first 8 hex of the content hash>`, e.g. `0.1.0-1a2b3c4d`. */
  version: string;
  sha256: string;
  bytes: number;
  /** Absolute path of the bundle file. */
  file: string;
}

/** The versioned name the hub serves the bundle under (`GET /agent/<name>`). */
export function agentBundleName(version: string): string {
  return `bria-agent-${version}.mjs`;
}

/** The bundle described by `<dir>/latest.json`, or null when it was not built (or is unreadable). */
export function readAgentBundle(dir: string): AgentBundleInfo | null {
  try {
    const latest = zLatest.parse(JSON.parse(readFileSync(path.join(dir, AGENT_BUNDLE_LATEST), 'utf8')));
    const file = path.join(dir, AGENT_BUNDLE_FILE);
    if (!existsSync(file) || statSync(file).size !== latest.bytes) return null;
    return { ...latest, file };
  } catch {
    return null;
  }
}

/** SHA-256 of a file's bytes, lowercase hex. */
export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * Where the bundle of this checkout is: `dist/agent` of the nearest folder at or above `start`
 * that has one (the hub and scripts run in the repository's root, the dashboard in `apps/web`).
 */
export function findAgentBundleDir(start: string): string | null {
  let dir = path.resolve(start);
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'dist', 'agent');
    if (existsSync(path.join(candidate, AGENT_BUNDLE_LATEST))) return candidate;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}
