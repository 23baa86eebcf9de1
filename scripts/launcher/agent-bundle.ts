import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { AGENT_BUNDLE_LATEST, readAgentBundle } from '../../packages/core/src/agent-bundle.ts';
import { buildAgentBundle } from '../build-agent.ts';

/** Newest modification time of these files and the files under these folders (tests count too: cheap and safe). */
function newestMtime(paths: string[]): number {
  let newest = 0;
  for (const dir of paths) {
    if (!existsSync(dir)) continue;
    if (!statSync(dir).isDirectory()) {
      newest = Math.max(newest, statSync(dir).mtimeMs);
      continue;
    }
    for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!e.isFile() || e.parentPath.includes('generated')) continue;
      newest = Math.max(newest, statSync(path.join(e.parentPath, e.name)).mtimeMs);
    }
  }
  return newest;
}

/**
 * `npm start` hands the agent bundle out (the hub serves it, "Add a computer" pins it): it is
 * built when missing or older than the agent's or core's sources (about a second).
 */
export async function ensureAgentBundle(root: string, dir: string, say: (msg: string) => void): Promise<void> {
  const latest = path.join(dir, AGENT_BUNDLE_LATEST);
  const built = readAgentBundle(dir) ? statSync(latest).mtimeMs : 0;
  const sources = newestMtime([
    path.join(root, 'apps/node-agent/src'),
    path.join(root, 'packages/core/src/protocol'),
    // The verified CLI releases the agent warns against (re-exported by protocol).
    path.join(root, 'packages/core/src/domain/cli-versions.ts'),
    path.join(root, 'packages/core/src/env.ts'),
    path.join(root, 'packages/core/src/log.ts'),
  ]);
  if (built > sources && built > statSync(path.join(root, 'package.json')).mtimeMs) return;
  const b = await buildAgentBundle({ outDir: dir });
  say(`Built the agent for other computers: ${path.relative(root, b.file)} ${b.version} (${Math.round(b.bytes / 1024)} KiB, ${b.ms} ms).`);
}
