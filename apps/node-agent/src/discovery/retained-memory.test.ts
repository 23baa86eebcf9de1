import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscoveryIndex } from './discovery-index.ts';
import { writeClaudeSession, writeCodexSession } from './synthetic-store.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bria-disc-mem-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('memory kept by the index', () => {
  it('does not keep huge pasted prompts alive, only their clipped start', async () => {
    const paste = 'a pasted log line that goes on and on\n'.repeat(5000); // ~190 KB
    for (let i = 0; i < 150; i++) {
      const at = new Date(Date.UTC(2026, 11, 1, 10, i)).toISOString();
      const turns = [{ prompt: `${i} ${paste}`, reply: 'ok', at }];
      writeClaudeSession(join(root, '.claude'), { sessionId: `${String(i).padStart(8, '0')}-1b2c-4d5e-8f90-a1b2c3d4e5f6`, cwd: `/w${i}`, turns });
      writeCodexSession(join(root, '.codex'), { id: `01a23651-d848-7b63-9a2f-${String(i).padStart(12, '0')}`, cwd: `/w${i}`, startedAt: at, turns });
    }
    gc();
    const before = process.memoryUsage().heapUsed;
    const index = new DiscoveryIndex({ claudeHome: join(root, '.claude'), codexHome: join(root, '.codex') });
    const { sessions } = await index.scan();
    gc();
    const retained = process.memoryUsage().heapUsed - before;
    expect(sessions).toHaveLength(300);
    expect(sessions.every((s) => s.firstPrompt?.length === 240)).toBe(true);
    // 300 prompts of ~190 KB would be ~57 MB if slices kept their source strings alive.
    expect(retained).toBeLessThan(10_000_000);
  });
});
