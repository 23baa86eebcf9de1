import { randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexBin } from '@bria/testkit/cli-homes';
import { codexDriver, codexHome } from './codex-driver.ts';
import { childrenOf, isAlive, procExists, processTree } from './proc-tree.ts';
import { isAtPrompt } from './screen.ts';
import { PROCESS_LAYERS, useProcessLayer } from './process-table.ts';
import { SessionHost } from './session-host.ts';
import { createRig, expectStartToken, is, listFiles, LONG, NASTY, type Rig, sendAndFinish } from '../../test-support/test-rig.ts';
import { ExecutorError, type SessionIdentity } from './types.ts';

/** A name no earlier attempt used: a retried test never meets its own first attempt's tmux session or folder. */
const uniq = (name: string) => `${name}-${randomBytes(3).toString('hex')}`;

// The same scenarios over both process layers (executors/process-table.ts): /proc, and the portable
// `ps`-based one macOS uses, forced here on Linux. Assertions about processes read /proc directly
// (proc-tree.ts), independent of the layer under test. Each layer gets its own rig.
let rig: Rig;

const host = () => new SessionHost({ driver: codexDriver, tmux: rig.tmux, bin: codexBin, env: rig.env });

function userMessages(path: string): { turnId: string; text: string }[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((r) => r.type === 'event_msg' && r.payload.type === 'item_completed' && r.payload.item.type === 'UserMessage')
    .map((r) => ({ turnId: r.payload.turn_id, text: r.payload.item.content.map((c: { text: string }) => c.text).join('') }));
}
const rollouts = async () => (await listFiles(join(codexHome(rig.env), 'sessions'))).filter((f) => f.endsWith('.jsonl'));

describe.each(PROCESS_LAYERS)('Codex in tmux (%s process layer)', (layer) => {
  beforeAll(async () => {
    useProcessLayer(layer);
    rig = await createRig('codex');
  });
  afterAll(async () => {
    await rig?.dispose();
    useProcessLayer('proc');
  });

  let a: SessionHost;
  let id: SessionIdentity;

  it('starts at its prompt and learns its id from the CLI itself', async () => {
    a = host();
    id = await a.start({ cwd: rig.work, sessionName: uniq('codex-a') });
    await expectStartToken(layer, id.cliPid, id.cliStartTime);
    expect(id.nativeId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(await isAlive(id.cliPid)).toBe(true);
    expect(isAtPrompt(await rig.tmux.capture(id.paneId))).toBe(true);
    // No daemon: the whole CLI lives under the pane (node wrapper → codex).
    expect((await processTree(id.panePid)).length).toBeGreaterThanOrEqual(3);
    expect(id.journalPath).toBeNull();
  });

  it('delivers exact bytes (also text starting with ! or /) and reports the final answer', async () => {
    for (const text of [NASTY, LONG, '!echo not-a-shell-command', '/not-a-slash-command please']) {
      const { final, nativeRef } = await sendAndFinish(a, text);
      const req = rig.mock.requests.filter((r) => r.kind === 'turn' && r.sessionId === id.nativeId).at(-1)!;
      // Codex trims the spaces Bria types around the text; every byte of the text itself arrives.
      expect(req.userText).toBe(text);
      expect(final).toBe(req.reply);
      const path = a.identity().journalPath!;
      expect(path).toContain(id.nativeId);
      expect(userMessages(path).find((u) => u.turnId === nativeRef)?.text).toBe(text);
    }
  });

  it('interrupts a streaming answer with one Esc, confirmed by the journal', async () => {
    const messageId = randomUUID();
    await a.deliver({ messageId, text: 'SLOW answer please' });
    const req = await rig.mock.waitForRequest((r) => r.kind === 'turn' && r.userText === 'SLOW answer please', 10_000);
    await new Promise((r) => setTimeout(r, 600));
    expect(await a.interrupt()).toMatchObject({ sent: true, confirmed: true, reason: 'journal' });
    const ev = await a.waitFor(is('interrupted', messageId));
    expect(ev.reason).toBe('interrupted');
    expect(req.clientClosed).toBe(true);
  });

  it('interrupts before the first byte, confirmed by the journal', async () => {
    const messageId = randomUUID();
    await a.deliver({ messageId, text: 'HANG here please' });
    const req = await rig.mock.waitForRequest((r) => r.kind === 'turn' && r.userText === 'HANG here please', 10_000);
    expect(await a.interrupt()).toMatchObject({ sent: true, confirmed: true, reason: 'journal' });
    await a.waitFor(is('interrupted', messageId));
    expect(req.clientClosed).toBe(true);
    const { final } = await sendAndFinish(a, 'after the hang');
    expect(final).toContain('after the hang');
  });

  it('folds a follow-up typed during a running turn into that turn, sharing its outcome', async () => {
    const main = randomUUID();
    const follow = randomUUID();
    const r1 = await a.deliver({ messageId: main, text: 'SLOW main request' });
    await rig.mock.waitForRequest((r) => r.kind === 'turn' && r.userText === 'SLOW main request', 10_000);
    const r2 = await a.deliver({ messageId: follow, text: 'follow-up while running' });
    expect(r1.accepted && r2.accepted && r2.nativeRef === r1.nativeRef).toBe(true);
    const done = await a.waitFor(is('completed', follow), 20_000);
    expect(done.evidence.followUpOf).toBe(main);
    await a.waitFor(is('completed', main));
    expect((await a.waitFor(is('final', main))).text).toContain('follow-up while running');
    expect(a.events.filter(is('final', follow))).toHaveLength(0);
  });

  it('lets a second host attach to the running pane and carry on without retyping', async () => {
    const slowId = randomUUID();
    const r = await a.deliver({ messageId: slowId, text: 'SLOW while the agent restarts' });
    expect(r.accepted).toBe(true);
    id = a.identity();
    const offset = a.journalOffset;
    a.detach();
    const b = host();
    expect(await b.attach(id, { journalOffset: offset, watch: [{ messageId: slowId, nativeRef: r.accepted ? r.nativeRef : '' }] })).toEqual({ ok: true });
    const final = await b.waitFor(is('final', slowId), 20_000);
    expect(final.text).toContain('SLOW while the agent restarts');
    await sendAndFinish(b, 'first message after re-attach');
    const texts = rig.mock.userTexts(id.nativeId);
    expect(texts.filter((t) => t === 'SLOW while the agent restarts')).toHaveLength(1);
    expect(texts.filter((t) => t === 'first message after re-attach')).toHaveLength(1);

    expect((await host().attach({ ...id, panePid: id.panePid + 100000 })).ok).toBe(false);

    const closed = await b.close();
    expect(closed.exitStatus).toBe(0);
    expect(closed.paneDead).toBe(true);
    expect(closed.escalation, JSON.stringify(closed)).toEqual([]);
    expect(closed.pids.length).toBeGreaterThanOrEqual(3);
    for (const pid of closed.pids) expect(await procExists(pid)).toBe(false);
  });

  it('resumes exactly: same id, same rollout file, earlier history sent to the model', async () => {
    const before = await rollouts();
    const c = host();
    const rid = await c.resume({ nativeId: id.nativeId, cwd: rig.work, sessionName: uniq('codex-resume') });
    expect(rid.nativeId).toBe(id.nativeId);
    expect(rid.journalPath).toBe(id.journalPath);
    await sendAndFinish(c, 'after resume');
    const req = rig.mock.requests.filter((r) => r.kind === 'turn' && r.userText === 'after resume').at(-1)!;
    expect(req.sessionId).toBe(id.nativeId);
    expect(JSON.stringify(req.body)).toContain('first message after re-attach');
    expect(await rollouts()).toEqual(before);
    await c.close();
  });

  it("fails to resume an unknown id with the CLI's reason and creates nothing", async () => {
    const before = await rollouts();
    const unknown = '01a23651-d848-7b63-9a2f-558796e706b5';
    const err = await host()
      .resume({ nativeId: unknown, cwd: rig.work, sessionName: uniq('codex-bad') })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecutorError);
    expect((err as ExecutorError).code).toBe('resume_failed');
    expect(String((err as ExecutorError).details.cliSaid)).toContain(`No saved session found with ID ${unknown}`);
    expect((err as ExecutorError).details.exitStatus).toBe(1);
    expect(await rollouts()).toEqual(before);
  });

  it('reports an API error as such, and detects a CLI killed with SIGKILL with its exit status', async () => {
    const d = host();
    const did = await d.start({ cwd: rig.work, sessionName: uniq('codex-kill') });
    const failId = randomUUID();
    expect((await d.deliver({ messageId: failId, text: 'FAIL400 please' })).accepted).toBe(true);
    const apiError = await d.waitFor(is('api_error', failId), 20_000);
    expect(apiError.errorText).toContain('mock fail400');
    expect(d.events.filter(is('completed', failId))).toHaveLength(0);
    const [binary] = await childrenOf(did.cliPid);
    expect(binary).toBeDefined();
    process.kill(binary!, 'SIGKILL');
    const ev = await d.waitFor(is('exited'), 10_000);
    expect(ev.expected).toBe(false);
    expect(ev.exitStatus).not.toBe(0);
    expect(ev.exitStatus).not.toBeNull();
    expect(ev.paneDead).toBe(true);
    expect(await procExists(binary!)).toBe(false);
  });

  it('reports the folder-trust dialog of a git repo, never answers it, and can still be closed', async () => {
    const repo = join(rig.root, uniq('repo'));
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    const h = new SessionHost({ driver: codexDriver, tmux: rig.tmux, bin: codexBin, env: rig.env });
    const err = await h.start({ cwd: repo, sessionName: uniq('codex-trust') }).catch((e: unknown) => e);
    expect((err as ExecutorError).code).toBe('blocked_on_prompt');
    expect(h.events.find(is('blocked_on_prompt'))?.promptText).toMatch(/trust/i);
    const closed = await h.close();
    expect(closed.escalation[0]).toBe('kill-session');
    for (const pid of closed.pids) expect(await procExists(pid)).toBe(false);
    expect(readFileSync(join(codexHome(rig.env), 'config.toml'), 'utf8')).not.toContain(repo);
    // The product's own 30 s readiness bound (SessionHost DEFAULTS): a dialog is reported when it ends.
  }, 120_000);
});
