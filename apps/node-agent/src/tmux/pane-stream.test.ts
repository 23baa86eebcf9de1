import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { paneStream } from './pane-stream.ts';
import { Tmux } from './tmux.ts';

const dir = mkdtempSync(join(tmpdir(), 'bria-pane-stream-'));
const tmux = new Tmux({ socketName: `bria-test-${process.pid}-pane-stream`, runDir: join(dir, 'run') });
afterAll(async () => {
  await tmux.killServer();
  rmSync(dir, { recursive: true, force: true });
});

describe('paneStream (benchmarks)', () => {
  it('resolves with the time a marker drawn between colour codes first shows in the pane', async () => {
    const s = await tmux.newSession({
      name: 'ps',
      cwd: dir,
      command: ['sh', '-c', 'read x; printf "\\033[1mMAR\\033[0mKER-%s\\n" "$x"; sleep 30'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    const pane = await paneStream(tmux, s.paneId, join(dir, 'pane.out'), () => 42);
    try {
      const shown = pane.expect('MARKER-go');
      await tmux.sendKeys(s.paneId, ['go', 'Enter']);
      expect(await shown).toBe(42);
    } finally {
      await pane.close();
    }
  });
});
