import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeBin } from '@bria/testkit/cli-homes';
import { liveClaudeSessions } from '../discovery/claude-live.ts';
import { claudeConfigDir, claudeDriver } from './claude-driver.ts';
import { isAlive, procExists } from './proc-tree.ts';
import { claudePromptBox, isAtPrompt } from './screen.ts';
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

const host = () => new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });

function journalRecords(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
function userContents(path: string): unknown[] {
  return journalRecords(path)
    .filter((r) => r.type === 'user')
    .map((r) => (r.message as { content: unknown }).content);
}

describe.each(PROCESS_LAYERS)('Claude Code in tmux (%s process layer)', (layer) => {
  beforeAll(async () => {
    useProcessLayer(layer);
    rig = await createRig('claude');
  });
  afterAll(async () => {
    await rig?.dispose();
    useProcessLayer('proc');
  });

  let a: SessionHost;
  let id: SessionIdentity;

  it('starts at its prompt with the id chosen up front', async () => {
    a = host();
    id = await a.start({ cwd: rig.work, sessionName: uniq('claude-a') });
    await expectStartToken(layer, id.cliPid, id.cliStartTime);
    expect(await isAlive(id.cliPid)).toBe(true);
    expect(isAtPrompt(await rig.tmux.capture(id.paneId))).toBe(true);
    const live = JSON.parse(readFileSync(join(claudeConfigDir(rig.env), 'sessions', `${id.cliPid}.json`), 'utf8'));
    expect(live.sessionId).toBe(id.nativeId);
    // Discovery's live check goes through the same layer.
    expect(liveClaudeSessions(claudeConfigDir(rig.env)).has(id.nativeId)).toBe(true);
    expect(id.journalPath).toContain(`${id.nativeId}.jsonl`);
    expect(a.events.find(is('ready'))?.nativeId).toBe(id.nativeId);
  });

  it('delivers exact bytes (also text starting with ! or a path) and reports the final answer', async () => {
    // A / followed by a command name is refused by the hub for Claude (type-prompt.test.ts).
    for (const text of [NASTY, LONG, '!echo not-a-shell-command', '/not/a/slash-command please']) {
      const { final, nativeRef } = await sendAndFinish(a, text);
      // Claude stores (and sends) each pasted tab as four spaces; every other byte arrives unchanged.
      const sent = text.replaceAll('\t', '    ');
      const req = rig.mock.requests.filter((r) => r.kind === 'turn' && r.sessionId === id.nativeId).at(-1)!;
      expect(req.userText).toBe(sent);
      expect(final).toBe(req.reply);
      const rec = journalRecords(id.journalPath!).find((r) => r.uuid === nativeRef)!;
      expect((rec.message as { content: unknown }).content).toBe(sent);
    }
  });

  it('interrupts a streaming answer with one Esc, confirmed by the journal', async () => {
    const messageId = randomUUID();
    await a.deliver({ messageId, text: 'SLOW answer please' });
    const req = await rig.mock.waitForRequest((r) => r.kind === 'turn' && r.userText === 'SLOW answer please', 10_000);
    await new Promise((r) => setTimeout(r, 600));
    const res = await a.interrupt();
    expect(res).toMatchObject({ sent: true, confirmed: true, reason: 'journal' });
    const ev = await a.waitFor(is('interrupted', messageId));
    expect(ev.evidence.offset).toBeGreaterThan(0);
    expect(req.clientClosed).toBe(true);
  });

  it('interrupts before the first byte (nothing journaled) and leaves a clean prompt', async () => {
    const messageId = randomUUID();
    await a.deliver({ messageId, text: 'HANG here please' });
    const req = await rig.mock.waitForRequest((r) => r.kind === 'turn' && r.userText?.endsWith('HANG here please') === true, 10_000);
    const res = await a.interrupt();
    expect(res).toMatchObject({ sent: true, confirmed: true, reason: 'idle status without a journal record' });
    await a.waitFor(is('interrupted', messageId));
    expect(req.clientClosed).toBe(true);
    expect(claudePromptBox(await rig.tmux.capture(id.paneId))).toBe('');
    const { final } = await sendAndFinish(a, 'after the hang');
    expect(final).toContain('after the hang');
    expect(userContents(id.journalPath!).filter((c) => c === 'after the hang')).toHaveLength(1);
  });

  it('queues a follow-up typed during a running turn as its own turn', async () => {
    const main = randomUUID();
    const follow = randomUUID();
    expect((await a.deliver({ messageId: main, text: 'SLOW main request' })).accepted).toBe(true);
    await rig.mock.waitForRequest((r) => r.kind === 'turn' && r.userText === 'SLOW main request', 10_000);
    const r2 = await a.deliver({ messageId: follow, text: 'follow-up while running' });
    expect(r2.accepted).toBe(true);
    expect((await a.waitFor(is('final', main), 20_000)).text).toContain('SLOW main request');
    expect((await a.waitFor(is('final', follow), 20_000)).text).toContain('follow-up while running');
    const accepted = a.events.filter(is('accepted')).filter((e) => e.messageId === main || e.messageId === follow);
    expect(new Set(accepted.map((e) => e.nativeRef)).size).toBe(2);
  });

  it('lets a second host attach to the running pane and carry on without retyping', async () => {
    const slowId = randomUUID();
    const r = await a.deliver({ messageId: slowId, text: 'SLOW while the agent restarts' });
    expect(r.accepted).toBe(true);
    const offset = a.journalOffset;
    a.detach();
    const b = host();
    const attached = await b.attach(id, { journalOffset: offset, watch: [{ messageId: slowId, nativeRef: r.accepted ? r.nativeRef : '' }] });
    expect(attached).toEqual({ ok: true });
    const final = await b.waitFor(is('final', slowId), 20_000);
    expect(final.text).toContain('SLOW while the agent restarts');
    await sendAndFinish(b, 'first message after re-attach');
    const texts = rig.mock.userTexts(id.nativeId);
    // Claude merges the dropped/interrupted prompts into the next request, hence `includes`.
    expect(texts.filter((t) => t.includes('SLOW while the agent restarts'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('first message after re-attach'))).toHaveLength(1);
    expect(a.events.filter((e) => e.type === 'final' && e.messageId === slowId)).toHaveLength(0);

    const wrong = host();
    const mismatch = await wrong.attach({ ...id, cliStartTime: '1' });
    expect(mismatch.ok).toBe(false);

    const closed = await b.close();
    expect(closed.exitStatus).toBe(0);
    expect(closed.paneDead).toBe(true);
    expect(closed.escalation, JSON.stringify(closed)).toEqual([]);
    expect(closed.pids).toContain(id.cliPid);
    for (const pid of closed.pids) expect(await procExists(pid)).toBe(false);
    expect(existsSync(join(claudeConfigDir(rig.env), 'sessions', `${id.cliPid}.json`))).toBe(false);
    expect(liveClaudeSessions(claudeConfigDir(rig.env)).has(id.nativeId)).toBe(false);
  });

  it('resumes exactly: same id, same journal file, earlier history sent to the model', async () => {
    const before = await listFiles(join(claudeConfigDir(rig.env), 'projects'));
    const c = host();
    const rid = await c.resume({ nativeId: id.nativeId, cwd: rig.work, sessionName: uniq('claude-resume') });
    expect(rid.nativeId).toBe(id.nativeId);
    expect(rid.journalPath).toBe(id.journalPath);
    await sendAndFinish(c, 'after resume');
    const req = rig.mock.requests.filter((r) => r.kind === 'turn' && r.userText === 'after resume').at(-1)!;
    expect(JSON.stringify(req.body)).toContain('first message after re-attach');
    expect(await listFiles(join(claudeConfigDir(rig.env), 'projects'))).toEqual(before);
    await c.close();
  });

  it("fails to resume an unknown id with the CLI's reason and creates nothing", async () => {
    const before = await listFiles(claudeConfigDir(rig.env));
    const unknown = randomUUID();
    const err = await host()
      .resume({ nativeId: unknown, cwd: rig.work, sessionName: uniq('claude-bad') })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecutorError);
    expect((err as ExecutorError).code).toBe('resume_failed');
    expect(String((err as ExecutorError).details.cliSaid)).toContain(`No conversation found with session ID: ${unknown}`);
    expect((err as ExecutorError).details.exitStatus, JSON.stringify({ ...(err as ExecutorError).details, message: (err as Error).message })).toBe(1);
    const after = (await listFiles(claudeConfigDir(rig.env))).filter((f) => f.endsWith('.jsonl') && !f.includes('history'));
    expect(after).toEqual(before.filter((f) => f.endsWith('.jsonl') && !f.includes('history')));
  });

  it('reports an API error as such, and detects a CLI killed with SIGKILL with its exit status', async () => {
    const d = host();
    const did = await d.start({ cwd: rig.work, sessionName: uniq('claude-kill') });
    const failId = randomUUID();
    expect((await d.deliver({ messageId: failId, text: 'FAIL400 please' })).accepted).toBe(true);
    const apiError = await d.waitFor(is('api_error', failId), 20_000);
    expect(apiError.errorText).toContain('mock fail400');
    expect(d.events.filter(is('completed', failId))).toHaveLength(0);
    const liveFile = join(claudeConfigDir(rig.env), 'sessions', `${did.cliPid}.json`);
    expect(liveClaudeSessions(claudeConfigDir(rig.env)).has(did.nativeId)).toBe(true);
    process.kill(did.cliPid, 'SIGKILL');
    const ev = await d.waitFor(is('exited'), 10_000);
    expect(ev.expected).toBe(false);
    expect(ev.exitStatus).toBe(137);
    expect(ev.paneDead).toBe(true);
    expect(await procExists(did.cliPid)).toBe(false);
    // The killed CLI left its live file behind; discovery does not take it for live.
    expect(existsSync(liveFile)).toBe(true);
    expect(liveClaudeSessions(claudeConfigDir(rig.env)).has(did.nativeId)).toBe(false);
  });

  it('a delivery waiting for its receipt ends when the CLI dies, not when the wait times out', async () => {
    // A receipt wait far longer than the test's own timeout: only the death can end it in time.
    const d = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env, timeouts: { receiptMs: 600_000 } });
    const did = await d.start({ cwd: rig.work, sessionName: uniq('claude-die-waiting') });
    expect((await d.deliver({ messageId: randomUUID(), text: 'SLOW main before the death' })).accepted).toBe(true);
    await rig.mock.waitForRequest((r) => r.kind === 'turn' && r.userText === 'SLOW main before the death', 10_000);
    // Claude journals a follow-up typed during a running turn only when it takes it up.
    const follow = randomUUID();
    const waiting = d.deliver({ messageId: follow, text: 'follow-up that never gets a receipt' });
    await new Promise((r) => setTimeout(r, 500));
    process.kill(did.cliPid, 'SIGKILL');
    const r = await waiting;
    expect(r).toEqual({ accepted: false, reason: 'the CLI exited before its journal showed the message' });
    expect(d.events.filter(is('unknown', follow))).toHaveLength(1);
    expect((await d.waitFor(is('exited'), 10_000)).expected).toBe(false);
  });

  it('reports a trust dialog instead of a prompt, never answers it, and can still be closed', async () => {
    const untrusted = join(rig.root, uniq('untrusted'));
    mkdirSync(untrusted);
    const h = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });
    const err = await h.start({ cwd: untrusted, sessionName: uniq('claude-trust') }).catch((e: unknown) => e);
    expect((err as ExecutorError).code).toBe('blocked_on_prompt');
    expect(h.events.find(is('blocked_on_prompt'))?.promptText).toMatch(/trust/i);
    const closed = await h.close();
    expect(closed.escalation).toEqual(['kill-session']);
    for (const pid of closed.pids) expect(await procExists(pid)).toBe(false);
    const claudeJson = JSON.parse(readFileSync(join(rig.home, '.claude.json'), 'utf8'));
    expect(claudeJson.projects?.[untrusted]?.hasTrustDialogAccepted).not.toBe(true);
    // The product's own 30 s readiness bound (SessionHost DEFAULTS): a dialog is reported when it ends.
  }, 120_000);
});
