import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Executor } from '../executors/index.ts';
import { Tmux } from '../tmux/tmux.ts';
import { fakeCliWorkspace } from '@bria/testkit/fake-cli';
import { SessionControl } from './session-control.ts';

// Two values of a resume command come from the hub and are not trusted: the native id (it lands
// on the CLI's command line) and the archived journal's path (it is read and copied). The "CLI"
// here records its arguments and never reaches a prompt, so a resume that starts it fails fast.
const fake = fakeCliWorkspace('trust');
const { root, bin, argvFile, folder } = fake;
afterAll(() => fake.dispose());
const agentDir = path.join(root, 'agent');

function control() {
  const events: { event: string; generation: number; payload: Record<string, unknown> }[] = [];
  const logs: string[] = [];
  const c = new SessionControl({
    dir: agentDir,
    tmux: new Tmux({ socketName: fake.socket, runDir: path.join(root, 'tmux') }),
    bins: { claude: bin, codex: bin },
    env: { PATH: process.env.PATH ?? '', HOME: root },
    log: (_level, msg) => logs.push(msg),
    emit: (e) => events.push({ event: e.event, generation: e.generation, payload: e.payload }),
    hostTimeouts: { readyMs: 1_500, exitMs: 1_500 },
  });
  return { c, events, logs };
}

describe('resume: the native id', () => {
  it.each([
    ['claude', '--help'],
    ['claude', '-p'],
    ['claude', 'not-a-uuid'],
    ['codex', '--dangerously-bypass-approvals-and-sandbox'],
    ['codex', '01a23651-d848-7b63-9a2f-558796e706b5 --x'],
    ['codex', ''],
  ] as [Executor, string][])('%s: %j is refused with a reason and no CLI starts', async (executor, nativeSessionId) => {
    rmSync(argvFile, { force: true });
    const { c, events } = control();
    const r = await c.resume(`s-${executor}`, { generation: 5, executor, folder, nativeSessionId });
    expect(r).toMatchObject({ ok: false, refused: true });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'resume_failed', generation: 5 });
    expect(String(events[0]!.payload.reason)).toMatch(new RegExp(`is not a ${executor === 'claude' ? 'Claude' : 'Codex'} session id \\(a UUID`));
    expect(existsSync(argvFile)).toBe(false);
  });

  it.each([
    // The session's permission mode (its executor's default here) is always on the command line.
    ['claude', ['--resume=01a23651-d848-7b63-9a2f-558796e706b5', '--permission-mode', 'default']],
    ['codex', ['resume', '--no-daemon', '-C', folder, '-a', 'on-request', '-s', 'workspace-write', '--', '01a23651-d848-7b63-9a2f-558796e706b5']],
  ] as [Executor, string[]][])(
    '%s: a UUID reaches the CLI as one value it cannot read as an option',
    async (executor, argv) => {
      rmSync(argvFile, { force: true });
      const { c } = control();
      await c.resume(`s-ok-${executor}`, { generation: 1, executor, folder, nativeSessionId: '01a23651-d848-7b63-9a2f-558796e706b5' });
      expect(readFileSync(argvFile, 'utf8').trim().split('\n')).toEqual(argv);
    },
    60_000,
  );
});

describe('resume: the archived journal path', () => {
  const id = '01a23651-d848-7b63-9a2f-558796e706b6';
  const secret = path.join(root, 'elsewhere', 'private.jsonl');
  mkdirSync(path.dirname(secret), { recursive: true });
  writeFileSync(secret, '{"type":"user","message":{"role":"user","content":"private"}}\n');
  const sha256 = createHash('sha256').update(readFileSync(secret)).digest('hex');
  const archiveDir = path.join(agentDir, 'archive', 'journals', 'claude');
  mkdirSync(archiveDir, { recursive: true });
  const viaLink = path.join(archiveDir, `${id}.jsonl`);
  symlinkSync(secret, viaLink);

  it.each([
    ['a path outside the archive folder', secret],
    ['a path that climbs out of it', path.join(agentDir, 'archive', '..', '..', 'elsewhere', 'private.jsonl')],
    ['a link inside it pointing outside', viaLink],
  ])(
    '%s is neither read nor copied',
    async (_what, archivedPath) => {
      const target = path.join(root, 'cli-home', `${id}-${Math.random()}.jsonl`);
      const { c, logs } = control();
      c.registry.put('s-arch', {
        executor: 'claude',
        folder,
        generation: 1,
        status: 'exited',
        identity: { journalPath: target } as never,
        turns: [],
        unconfirmed: [],
        deliveries: [],
        recent: [],
      });
      await c.resume('s-arch', {
        generation: 2,
        executor: 'claude',
        folder,
        nativeSessionId: id,
        archivedJournal: { path: archivedPath, sizeBytes: 1, sha256 },
      });
      expect(existsSync(target)).toBe(false);
      expect(logs).toContain('agent.archive_path_refused');
    },
    60_000,
  );

  it('a real file inside the archive folder is put back for the CLI', async () => {
    const inside = path.join(archiveDir, 'real-copy.jsonl');
    writeFileSync(inside, readFileSync(secret));
    const target = path.join(root, 'cli-home', `${id}-restored.jsonl`);
    const { c, logs } = control();
    c.registry.put('s-arch', {
      executor: 'claude',
      folder,
      generation: 1,
      status: 'exited',
      identity: { journalPath: target } as never,
      turns: [],
      unconfirmed: [],
      deliveries: [],
      recent: [],
    });
    await c.resume('s-arch', { generation: 2, executor: 'claude', folder, nativeSessionId: id, archivedJournal: { path: inside, sizeBytes: 1, sha256 } });
    expect(readFileSync(target, 'utf8')).toBe(readFileSync(secret, 'utf8'));
    expect(logs).not.toContain('agent.archive_path_refused');
  }, 60_000);
});
