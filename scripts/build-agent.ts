import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { AGENT_BUNDLE_FILE, AGENT_BUNDLE_LATEST } from '../packages/core/src/agent-bundle.ts';

/**
 * `npm run build:agent`: the node agent as ONE file, `dist/agent/bria-agent.mjs` (ESM, platform
 * node, target node20), that needs only Node.js >= 20 and tmux on the other computer. Beside it:
 * `bria-agent.mjs.sha256` (sha256sum's format) and `latest.json` ({ version, sha256, bytes }),
 * which the hub serves and the install command pins.
 *
 * Version = root package.json version + the first 8 hex of the SHA-256 of the bundle built with a
 * placeholder version: the same sources give the same version and the same bytes.
 * - pino logs to stdout without a transport (core/log.ts), so none of its worker-thread files is needed;
 * - ws's optional native add-ons (bufferutil, utf-8-validate) stay external: ws loads them in a
 *   try/catch and works without them; `require` is provided for that in an ES module;
 * - the permission hook (hooks/permission-hook.mjs, a separate program the CLIs run) travels
 *   inside as text; the agent writes it to its folder (agent.ts `bundledHookProgram`).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PLACEHOLDER = '0.0.0-bria-version-placeholder';

export interface BuiltBundle {
  version: string;
  sha256: string;
  bytes: number;
  file: string;
  ms: number;
}

export async function buildAgentBundle(o: { outDir?: string } = {}): Promise<BuiltBundle> {
  const started = Date.now();
  const outDir = o.outDir ?? path.join(root, 'dist', 'agent');
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const hookSource = readFileSync(path.join(root, 'apps/node-agent/src/hooks/permission-hook.mjs'), 'utf8');
  const result = await build({
    entryPoints: [path.join(root, 'apps/node-agent/src/main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    write: false,
    outfile: path.join(outDir, AGENT_BUNDLE_FILE),
    external: ['bufferutil', 'utf-8-validate'],
    define: { __BRIA_AGENT_BUNDLE__: JSON.stringify({ version: PLACEHOLDER, hookSource }) },
    banner: { js: "import { createRequire as __briaCreateRequire } from 'node:module'; const require = __briaCreateRequire(import.meta.url);" },
    legalComments: 'none',
    logLevel: 'warning',
  });
  const draft = result.outputFiles[0]!.text;
  if (!draft.includes(PLACEHOLDER)) throw new Error('the bundle does not carry its version (bundle-info.ts define missing?)');
  const version = `${pkg.version}-${createHash('sha256').update(draft).digest('hex').slice(0, 8)}`;
  const bytes = Buffer.from(`#!/usr/bin/env node\n${draft.replaceAll(PLACEHOLDER, version)}`);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, AGENT_BUNDLE_FILE);
  // Written aside and renamed: the hub never serves half a file, and latest.json comes last.
  const put = (name: string, data: string | Buffer, mode = 0o644) => {
    writeFileSync(path.join(outDir, `${name}.tmp`), data, { mode });
    renameSync(path.join(outDir, `${name}.tmp`), path.join(outDir, name));
  };
  put(AGENT_BUNDLE_FILE, bytes, 0o755);
  put(`${AGENT_BUNDLE_FILE}.sha256`, `${sha256}  ${AGENT_BUNDLE_FILE}\n`);
  put(AGENT_BUNDLE_LATEST, `${JSON.stringify({ version, sha256, bytes: bytes.length }, null, 2)}\n`);
  return { version, sha256, bytes: bytes.length, file, ms: Date.now() - started };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const b = await buildAgentBundle();
  console.log(`Built ${path.relative(process.cwd(), b.file)}: version ${b.version}, ${(b.bytes / 1024).toFixed(0)} KiB, sha256 ${b.sha256} (${b.ms} ms)`);
}
