// Shared set-up for the real-CLI tests of this folder: one mock, one throw-away HOME and one private
// tmux server per test file, all removed in afterAll.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createCliHome } from '@bria/testkit/cli-homes';
import { startAnthropicMock, startOpenAIMock, type MockServer } from '@bria/testkit/mock-models';
import { expect } from 'vitest';
import { Tmux } from '../src/tmux/tmux.ts';
import { killRecorded, recordTree } from '../src/executors/launch.ts';
import { processTree, procStat } from '../src/executors/proc-tree.ts';
import type { ProcessLayer } from '../src/executors/process-table.ts';
import type { SessionHost } from '../src/executors/session-host.ts';
import type { HostEvent } from '../src/executors/types.ts';

export interface Rig {
  root: string;
  work: string;
  env: Record<string, string>;
  home: string;
  mock: MockServer;
  tmux: Tmux;
  dispose(): Promise<void>;
}

export async function createRig(kind: 'claude' | 'codex'): Promise<Rig> {
  const root = await mkdtemp(join(tmpdir(), `bria-${kind}-`));
  const work = join(root, 'work');
  await mkdir(work);
  const mockOpts = { slowChunks: 30, slowChunkMs: 100, keepBodies: true };
  const mock = kind === 'claude' ? await startAnthropicMock(mockOpts) : await startOpenAIMock(mockOpts);
  const { home, env } = await createCliHome({
    root,
    trustedDirs: [work],
    anthropicUrl: kind === 'claude' ? mock.url : 'http://127.0.0.1:9',
    openaiUrl: kind === 'codex' ? mock.url : 'http://127.0.0.1:9',
  });
  // One tmux server per rig: a file that makes a second rig of the same kind after disposing the
  // first (codex-session.test.ts, one per process layer) must not reach the first one's server while
  // it is still exiting ("tmux new-session failed: server exited unexpectedly" on a busy machine).
  const tmux = new Tmux({ socketName: `bria-t-${kind}-${process.pid}-${randomUUID().slice(0, 8)}`, runDir: join(root, 'run') });
  await tmux.ensureServer();
  return {
    root,
    work,
    env,
    home,
    mock,
    tmux,
    async dispose() {
      // Every process of every pane goes, then the server, the mock and the files.
      const pids: number[] = [];
      for (const p of await tmux.listPanes()) pids.push(...(await processTree(p.panePid)));
      // With their starts: a pid that ended meanwhile may name another test's process by now.
      const tree = await recordTree(pids);
      await tmux.killServer();
      await killRecorded(tree, pids);
      await mock.close();
      await sleep(100);
      await rm(root, { recursive: true, force: true });
    },
  };
}

export async function listFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true }).catch(() => [] as string[])).map(String).sort();
}

export const NASTY = `Multi-line "double" and 'single' quotes, $HOME and \${PATH}, \`backticks\`, a \\ backslash,
tabs\there, unicode ü ß 日本語 🙂, and a ; rm -rf / for good measure
last line`;

/** Long enough for Claude to fold it into "[Pasted text #1 +N lines]" on screen. */
export const LONG = Array.from({ length: 120 }, (_, i) => `line ${i}: "quoted" $VAR \`tick\` ü`).join('\n');

/** Narrows a host event by type (and, given one, by the message it belongs to). */
export const is =
  <T extends HostEvent['type']>(type: T, messageId?: string) =>
  (e: HostEvent): e is Extract<HostEvent, { type: T }> =>
    e.type === type && (messageId === undefined || ('messageId' in e && e.messageId === messageId));

/** Delivers one message and waits for its turn to complete and its final answer. */
export async function sendAndFinish(h: SessionHost, text: string) {
  const messageId = randomUUID();
  const r = await h.deliver({ messageId, text });
  expect(r.accepted).toBe(true);
  const done = await h.waitFor(is('completed', messageId), 20_000);
  const final = await h.waitFor(is('final', messageId));
  return { messageId, nativeRef: r.accepted ? r.nativeRef : '', final: final.text, done };
}

/**
 * The identity's start token is the one `layer` gives, checked against /proc itself: the ticks of
 * stat field 22, or for the portable layer the same moment as `ps` prints it (boot time + ticks /
 * USER_HZ, to the second).
 */
export async function expectStartToken(layer: ProcessLayer, pid: number, token: string): Promise<void> {
  const ticks = Number((await procStat(pid))?.startTime);
  expect(Number.isInteger(ticks)).toBe(true);
  if (layer === 'proc') {
    expect(token).toBe(String(ticks));
    return;
  }
  expect(token).toMatch(/^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/);
  const btime = Number(/^btime (\d+)$/m.exec(await readFile('/proc/stat', 'utf8'))![1]);
  expect(Math.abs(Date.parse(`${token} UTC`) / 1000 - (btime + ticks / 100))).toBeLessThanOrEqual(1);
}
