import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../packages/core/src/domain/index.ts';
import * as services from '../../packages/core/src/services/index.ts';
import { claudeConfigDir } from '../../apps/node-agent/src/executors/claude-driver.ts';
import { NativeIdSampler } from '../../apps/node-agent/test-support/id-sampler.ts';
import { type DeskTerminal, startDesk } from '../../packages/testkit/src/desk.ts';
import { type Executor, isRecordedProcess, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

// "Adopt in place" through the whole system (hub, engine, Postgres, a real agent, the real pinned
// CLIs against the local mock models): a CLI begun by hand in a tmux server of the user's own is
// listed as running in a terminal, adopted, and then a message sent from Bria is typed into THAT
// pane and answered there; the CLI process is never restarted (same pid and start), the journal
// file is the same, and a sampler of the process table (every 100 ms through the whole file) never
// sees two processes on one native id. An agent restart re-attaches to the adopted pane; Close
// releases it and leaves the CLI running at the desk.

let sys: System;
const desks: DeskTerminal[] = [];

let sampler: NativeIdSampler;

beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
  sampler = new NativeIdSampler({ claudeHome: claudeConfigDir(sys.cliEnv), home: sys.cliEnv.HOME! });
  sampler.start();
}, 180_000);
afterAll(async () => {
  sampler?.stop();
  for (const d of desks) d.end();
  await sys?.dispose();
});

const userTmux = (socket: string, ...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const paneText = (socket: string) => userTmux(socket, 'capture-pane', '-p', '-J', '-S', '-500', '-t', 'desk');
const inode = (path: string) => statSync(path).ino;

describe.each(['claude', 'codex'] as Executor[])("%s begun by hand in the user's tmux, adopted in place", (executor) => {
  const socket = `desk-adopt-${executor}-${randomUUID().slice(0, 6)}`;
  let sessionId: string;
  let nativeId: string;
  let deskPid: number;
  let deskStart: string;
  let journal: { path: string; ino: number };

  async function answered(text: string): Promise<string> {
    const m = await waitUntil(
      `the answer to "${text}"`,
      async () => {
        const row = await sys.db.message.findFirst({ where: { sessionId, text } });
        return row?.status === 'completed' && row.finalText ? row : null;
      },
      90_000,
    );
    return m.finalText!;
  }

  it('is listed as running in a terminal, with its tmux pane', async () => {
    const folder = sys.folder(`adopt-${executor}-${randomUUID().slice(0, 6)}`);
    const d = await startDesk({ executor, folder, env: sys.cliEnv, socket });
    desks.push(d);
    const text = `hello from the desk ${randomUUID().slice(0, 8)}`;
    await d.type(text);
    await sys.mocks[executor].waitForRequest((r) => r.kind === 'turn' && r.userText === text, 60_000);
    const row = await waitUntil(
      'the hand-started session entered with its desk process in tmux',
      async () => sys.db.session.findFirst({ where: { nodeId: sys.nodeId, executor, folder, handoff: 'desk', deskPid: { not: null }, deskInTmux: true } }),
      30_000,
    );
    sessionId = row.id;
    nativeId = row.nativeSessionId!;
    deskPid = row.deskPid!;
    deskStart = row.deskStart!;
    expect(row.journalPath).toBeTruthy();
    journal = { path: row.journalPath!, ino: inode(row.journalPath!) };
    expect(isRecordedProcess(deskPid, deskStart)).toBe(true);
  }, 240_000);

  it('"Adopt in place" for another pid is refused; for the pid on record the session becomes Ready in that pane', async () => {
    const stale = await services.adoptInPlace(sys.deps, { sessionId, pid: deskPid + 1, source: 'web' }).catch((e: unknown) => e);
    expect(isAppError(stale) && stale.userMessage).toBe('sessions.desk_changed');
    expect(await sys.db.agentCommand.count({ where: { sessionId } })).toBe(0);
    const text = `typed into your pane ${randomUUID().slice(0, 8)}`;
    await services.adoptInPlace(sys.deps, { sessionId, pid: deskPid, text, source: 'web' });
    const ready = await sys.waitState(sessionId, 'Ready', 90_000);
    expect(ready.handoff).toBe('adopted');
    expect(await sys.db.agentCommand.count({ where: { sessionId, type: 'adopt_in_place' } })).toBe(1);
    expect(await sys.db.agentCommand.count({ where: { sessionId, type: 'resume_session' } })).toBe(0);
    const id = await sys.identity(sessionId);
    const socketPath = userTmux(socket, 'display-message', '-p', '#{socket_path}').trim();
    expect(id).toMatchObject({ cliPid: deskPid, cliStartTime: deskStart, tmuxSocket: socketPath, tmuxSession: 'desk', nativeId });
    // The answer arrives as the final; the text was typed into THAT pane, by the same process.
    const final = await answered(text);
    expect(final).toContain(text);
    await waitUntil("the message in the user's pane", async () => paneText(socket).includes(text), 30_000);
    expect(sys.turns(executor, nativeId).filter((r) => r.userText === text)).toHaveLength(1);
    expect(isRecordedProcess(deskPid, deskStart)).toBe(true);
    expect(inode(journal.path)).toBe(journal.ino);
    const dto = (await services.listOpenSessionsAcross(sys.deps, {})).find((s) => s.id === sessionId);
    expect(dto?.desk).toBeNull();
    expect(dto?.attachCommand).toBe(`tmux -S ${socketPath} attach -t desk`);
  }, 240_000);

  it('an agent restart re-attaches to the adopted pane; the next message goes there too', async () => {
    await sys.killAgent();
    await sys.startAgent();
    await waitUntil('the re-attach after the agent restart', async () => (await sys.evidence(sessionId)).some((e) => e.event === 'reattached'), 60_000);
    await sys.waitState(sessionId, 'Ready', 60_000);
    const text = `after the agent restart ${randomUUID().slice(0, 8)}`;
    await sys.send(sessionId, text);
    expect(await answered(text)).toContain(text);
    await waitUntil("the second message in the user's pane", async () => paneText(socket).includes(text), 30_000);
    expect(isRecordedProcess(deskPid, deskStart)).toBe(true);
    expect((await sys.identity(sessionId)).cliPid).toBe(deskPid);
  }, 240_000);

  it('Close releases the pane: the CLI keeps running at the desk and is shown there again', async () => {
    await sys.close(sessionId);
    const closed = await sys.waitState(sessionId, 'Archived', 60_000);
    expect(isRecordedProcess(deskPid, deskStart)).toBe(true);
    expect(userTmux(socket, 'list-panes', '-t', 'desk', '-F', '#{pane_dead}').trim()).toBe('0');
    expect(closed.handoff === 'none' || closed.handoff === 'desk').toBe(true);
    const back = await waitUntil(
      'the desk CLI listed as running in a terminal again',
      async () => {
        const s = await sys.session(sessionId);
        return s.handoff === 'desk' && s.deskPid === deskPid ? s : null;
      },
      30_000,
    );
    expect(back.state).toBe('Archived');
    expect(inode(journal.path)).toBe(journal.ino);
  }, 240_000);

  it('the sampler never saw two CLIs on its native id', () => {
    expect(sampler.seen).toBeGreaterThan(20);
    expect(sampler.max.get(nativeId)).toBe(1);
    expect(sampler.doubles).toEqual([]);
  });
});
