import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '@bria/core/db';
import { createSession } from '@bria/core/services';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { claudeBin } from '@bria/testkit/cli-homes';
import { claudeDriver } from '../../apps/node-agent/src/executors/claude-driver.ts';
import { SessionHost } from '../../apps/node-agent/src/executors/session-host.ts';
import { Tmux } from '../../apps/node-agent/src/tmux/tmux.ts';
import { validateFolder } from '../../apps/node-agent/src/commands/validate-folder.ts';
import { dbFingerprint } from './support.ts';

/**
 * Working folders are checked twice: by the `createSession` service (shape: absolute, canonical, no
 * NUL or control characters, bounded length) before anything is stored, and by the node itself when
 * the CLI starts there (the wrapper's `cd` fails for what does not exist or is not a folder).
 */
let tdb: TestDatabase;
let db: Db;
const NODE = '00000000-0000-4000-8000-0000000000f1';
const root = mkdtempSync(join(tmpdir(), 'bria-sec-folders-'));
const tmux = new Tmux({ socketName: `bria-sec-folders-${process.pid}`, runDir: join(root, 'run') });

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url);
  await db.node.create({ data: { id: NODE, name: 'n', online: true, enabledExecutors: ['claude'] } });
});
afterAll(async () => {
  await tmux.killServer();
  await db?.$disconnect();
  await tdb?.drop();
  rmSync(root, { recursive: true, force: true });
});

describe('createSession refuses hostile folder paths before storing anything', () => {
  const cases: [string, string][] = [
    ['relative', 'work/project'],
    ['home shorthand', '~/project'],
    ['empty', ''],
    ['a .. segment', '/home/ada/../../etc'],
    ['a trailing ..', '/srv/project/..'],
    ['a . segment', '/srv/./project'],
    ['a NUL byte', '/srv/pro\u0000ject'],
    ['a newline', '/srv/project\n/etc'],
    ['an escape sequence', '/srv/\u001b[2Jproject'],
    ['very long', `/${'a'.repeat(5000)}`],
  ];
  for (const [name, folder] of cases) {
    it(`${name}: INVALID_INPUT with a reason; no session, command or evidence row`, async () => {
      const before = await dbFingerprint(tdb.url);
      const err = await createSession({ db }, { nodeId: NODE, executor: 'claude', folder }).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message?: string },
      );
      expect(err?.code, name).toBe('INVALID_INPUT');
      expect(err?.message, name).toMatch(/folder/);
      expect(await dbFingerprint(tdb.url)).toEqual(before);
    });
  }

  it('control: a plain absolute folder is accepted (one session, one start command)', async () => {
    const s = await createSession({ db }, { nodeId: NODE, executor: 'claude', folder: '/srv/project' });
    expect(s.folder).toBe('/srv/project');
    expect(await db.agentCommand.count({ where: { sessionId: s.id, type: 'start_session' } })).toBe(1);
  });
});

describe('the node refuses to start a CLI where the folder is not a folder', () => {
  const file = join(root, 'a-file');
  writeFileSync(file, 'not a folder');
  const cases: [string, () => string][] = [
    ['a folder that does not exist', () => join(root, 'missing')],
    ['a file', () => file],
    [
      'a dangling symlink',
      () => {
        const l = join(root, 'dangling');
        symlinkSync(join(root, 'nowhere'), l);
        return l;
      },
    ],
    [
      'a symlink to a file',
      () => {
        const l = join(root, 'to-file');
        symlinkSync(file, l);
        return l;
      },
    ],
  ];
  for (const [name, folder] of cases) {
    it(`${name}: start fails, the wrapper never ran the CLI, no pane is left`, async () => {
      const host = new SessionHost({ driver: claudeDriver, tmux, bin: claudeBin, env: { HOME: root, PATH: '/usr/local/bin:/usr/bin:/bin' } });
      const err = await host.start({ cwd: folder(), sessionName: `f-${name.replaceAll(' ', '-')}` }).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message?: string; details?: { exitStatus?: number } },
      );
      expect(err?.code).toBe('start_failed');
      expect(err?.details?.exitStatus).toBe(97);
      expect((await tmux.listPanes()).filter((p) => p.sessionName !== 'bria-keeper')).toEqual([]);
      expect(readdirSync(root).filter((f) => f.endsWith('.jsonl'))).toEqual([]);
    });
  }
});

describe("the agent's validate_folder names the reason", () => {
  const outside = mkdtempSync(join(tmpdir(), 'bria-sec-outside-'));
  const inside = join(root, 'inside');
  mkdirSync(inside);
  symlinkSync(outside, join(inside, 'escape'));
  writeFileSync(join(root, 'plain-file'), 'x');
  const cases: [string, string, RegExp][] = [
    ['relative', 'inside', /absolute path/],
    ['a NUL byte', `${inside}\u0000x`, /NUL/],
    ['missing', join(root, 'nope'), /does not exist/],
    ['a file', join(root, 'plain-file'), /file, not a folder/],
    ['a symlink pointing outside', join(inside, 'escape'), /symbolic link to /],
    ['a path through that symlink', join(inside, 'escape', '.'), /symbolic link to /],
    ['very long', `/${'a'.repeat(5000)}`, /cannot be read|does not exist/],
  ];
  for (const [name, folder, reason] of cases) {
    it(`${name}: refused with a reason`, async () => {
      const r = await validateFolder(folder);
      expect(r.ok, name).toBe(false);
      expect(r.ok ? '' : r.reason, name).toMatch(reason);
    });
  }

  it('control: a real folder is accepted under its real path', async () => {
    expect(await validateFolder(inside)).toEqual({ ok: true, folder: inside });
    rmSync(outside, { recursive: true, force: true });
  });
});
