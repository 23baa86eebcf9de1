import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killTmuxServer } from '../../../../packages/testkit/src/system.ts';
import { Tmux } from '../tmux/tmux.ts';
import { SessionControl } from './session-control.ts';

// A resume in a folder that is not there is refused at once with the cause, and no CLI is launched
// (tmux would otherwise start it in the home folder). The "CLI" records that it was launched.
const root = mkdtempSync(path.join(tmpdir(), 'bria-resume-folder-'));
const socket = `bria-rf-${process.pid}`;
afterAll(async () => {
  await killTmuxServer(socket);
  rmSync(root, { recursive: true, force: true });
});

describe('a resume whose folder is missing', () => {
  it.each([
    ['does not exist', path.join(root, 'gone'), /does not exist on this computer/],
    ['is a file', path.join(root, 'a-file'), /is a file, not a folder/],
    ['is not absolute', 'relative/work', /not an absolute path/],
  ])(
    'is answered resume_failed naming the cause when the folder %s, and nothing is launched',
    async (_what, folder, cause) => {
      writeFileSync(path.join(root, 'a-file'), 'x');
      const launched = path.join(root, 'launched');
      const bin = path.join(root, 'cli');
      writeFileSync(bin, `#!/bin/sh\ntouch ${launched}\nexec sleep 600\n`);
      chmodSync(bin, 0o755);
      const events: { event: string; generation: number; payload: Record<string, unknown> }[] = [];
      const control = new SessionControl({
        dir: path.join(root, 'agent'),
        tmux: new Tmux({ socketName: socket, runDir: path.join(root, 'tmux') }),
        bins: { claude: bin, codex: bin },
        env: { ...process.env, PATH: process.env.PATH ?? '' },
        log: () => undefined,
        emit: (e) => events.push({ event: e.event, generation: e.generation, payload: e.payload }),
        hostTimeouts: { readyMs: 2_000, exitMs: 2_000 },
      });
      const r = await control.resume('s-rf', { generation: 3, executor: 'claude', folder, nativeSessionId: '0b7a4c1e-0000-4000-8000-000000000001' });
      expect(r).toMatchObject({ ok: false, refused: true });
      expect(events).toHaveLength(1);
      expect(events[0]?.event).toBe('resume_failed');
      // A session this agent never ran has no record: the refusal carries the command's generation.
      expect(events[0]?.generation).toBe(3);
      expect(String(events[0]?.payload.reason)).toMatch(cause);
      expect(existsSync(launched)).toBe(false);
    },
    30_000,
  );
});
