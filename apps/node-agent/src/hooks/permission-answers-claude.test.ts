// The real Claude Code CLI in tmux, against the Anthropic mock, in `default` permission mode: the
// answers beyond allow / deny that Bria's PermissionRequest hook gives, always-allow (a session
// rule) and the answers to an AskUserQuestion, reach the CLI and do what the user chose.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promptAlwaysAllow } from '@bria/core/domain';
import { claudeBin } from '@bria/testkit/cli-homes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeDriver } from '../executors/claude-driver.ts';
import { SessionHost } from '../executors/session-host.ts';
import { createRig, is, type Rig } from '../../test-support/test-rig.ts';
import type { SessionIdentity } from '../executors/types.ts';
import { HookChannel, type PermissionRecord } from './hook-channel.ts';

let rig: Rig;
let channel: HookChannel;
let host: SessionHost;
let id: SessionIdentity;

/** The session's tree as the agent's registry gives it: the pane of the one CLI this test runs. */
const paneOf = () => {
  try {
    return host.identity().panePid;
  } catch {
    return null;
  }
};

beforeAll(async () => {
  rig = await createRig('claude');
  channel = new HookChannel({ dir: join(rig.root, 'agent', 'hooks'), boundMs: 120_000, sessionRoot: paneOf });
  await channel.open();
  host = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });
  id = await host.start({ cwd: rig.work, sessionName: 'claude-answers', permissionMode: 'default', settingsPath: channel.settingsFor('bria-a1') });
}, 120_000);
afterAll(async () => {
  await host?.close().catch(() => undefined);
  await channel?.close();
  await rig?.dispose();
});

async function send(text: string): Promise<string> {
  const messageId = randomUUID();
  const r = await host.deliver({ messageId, text });
  expect(r.accepted).toBe(true);
  return messageId;
}

function requestFor(match: (r: PermissionRecord) => boolean): Promise<PermissionRecord> {
  return channel.waitFor((p) => p.state === 'pending' && match(p), 60_000);
}

const commandOf = (r: PermissionRecord) => (r.toolInput as { command?: string } | null)?.command;
// Claude hands the hook the file path made absolute (the model asked for a relative one).
const fileOf = (r: PermissionRecord) => (r.toolInput as { file_path?: string } | null)?.file_path?.replace(/^.*\//, '');
/** Every request the channel ever recorded that matches (its durable log, one line per change). */
async function everAsked(pred: (r: PermissionRecord) => boolean): Promise<PermissionRecord[]> {
  const lines = (await readFile(join(channel.dir, 'permissions.jsonl'), 'utf8')).split('\n').filter((l) => l.trim());
  return lines.map((l) => JSON.parse(l) as PermissionRecord).filter(pred);
}

describe('Claude: always-allow and question answers through the hook channel', () => {
  it('always-allow on Bash: the label names the exact command, that command runs unasked again, another one still asks', async () => {
    const first = await send('please TOOLBASH-always1 now');
    const request = await requestFor((p) => commandOf(p) === 'touch ran-always1');
    expect(request).toMatchObject({ kind: 'tool', executor: 'claude', toolName: 'Bash' });
    // What the bot and the dashboard put on the button (core's rule, from the prompt as stored).
    const offer = promptAlwaysAllow({ canAlwaysAllow: true, kind: request.kind, toolName: request.toolName, toolInput: request.toolInput });
    expect(offer?.label).toEqual({ kind: 'command', command: 'touch ran-always1' });
    expect(channel.answer(request.requestId, { behavior: 'allow', alwaysAllow: true }).ok).toBe(true);
    expect((await host.waitFor(is('final', first), 60_000)).text).toMatch(/^TOOL-DONE-\d+: is_error=false /);
    expect(existsSync(join(rig.work, 'ran-always1'))).toBe(true);

    // The very command the label named: no request, it ran again.
    await rm(join(rig.work, 'ran-always1'));
    const again = await send('TOOLBASH-always1 again please');
    expect((await host.waitFor(is('final', again), 60_000)).text).toMatch(/^TOOL-DONE-\d+: is_error=false /);
    expect(existsSync(join(rig.work, 'ran-always1'))).toBe(true);
    expect(await everAsked((p) => commandOf(p) === 'touch ran-always1')).toHaveLength(1);

    // Another command of the same program is not covered: it asks.
    const other = await send('please TOOLBASH-always2 now');
    const asked = await requestFor((p) => commandOf(p) === 'touch ran-always2');
    expect(existsSync(join(rig.work, 'ran-always2'))).toBe(false);
    channel.answer(asked.requestId, { behavior: 'allow' });
    await host.waitFor(is('final', other), 60_000);
    // Session scope: nothing was written to the user's or the project's settings.
    expect(await readFile(join(rig.home, '.claude', 'settings.json'), 'utf8')).not.toContain('touch');
    expect(existsSync(join(rig.work, '.claude'))).toBe(false);
  }, 300_000);

  it('a Write offers no always-allow (refused, no button), and the next Write still asks', async () => {
    const first = await send('please TOOLWRITE-always3 now');
    const request = await requestFor((p) => p.toolName === 'Write' && fileOf(p) === 'written-always3.txt');
    expect(promptAlwaysAllow({ canAlwaysAllow: true, kind: request.kind, toolName: request.toolName, toolInput: request.toolInput })).toBeNull();
    expect(channel.answer(request.requestId, { behavior: 'allow', alwaysAllow: true })).toMatchObject({ ok: false, reason: 'unsupported' });
    expect(channel.answer(request.requestId, { behavior: 'allow' }).ok).toBe(true);
    await host.waitFor(is('final', first), 60_000);
    const second = await send('please TOOLWRITE-always4 now');
    const asked = await requestFor((p) => p.toolName === 'Write' && fileOf(p) === 'written-always4.txt');
    channel.answer(asked.requestId, { behavior: 'allow' });
    expect((await host.waitFor(is('final', second), 60_000)).text).toMatch(/^TOOL-DONE-\d+: is_error=false /);
    expect(await readFile(join(rig.work, 'written-always4.txt'), 'utf8')).toBe('written by TOOLWRITE-always4\n');
  }, 200_000);

  it('an Edit asks, and a plain allow applies it', async () => {
    await writeFile(join(rig.work, 'edit-e1.txt'), 'before e1\n');
    const messageId = await send('please TOOLEDIT-e1 now');
    const request = await requestFor((p) => p.toolName === 'Edit');
    expect(fileOf(request)).toBe('edit-e1.txt');
    expect(request.toolInput).toMatchObject({ old_string: 'before e1', new_string: 'after e1' });
    channel.answer(request.requestId, { behavior: 'allow' });
    expect((await host.waitFor(is('final', messageId), 60_000)).text).toMatch(/^TOOL-DONE-\d+: is_error=false /);
    expect(await readFile(join(rig.work, 'edit-e1.txt'), 'utf8')).toBe('after e1\n');
  }, 200_000);

  it('AskUserQuestion answered through the channel: the model gets the chosen option', async () => {
    const messageId = await send('please TOOLASK now');
    const request = await requestFor((p) => p.toolName === 'AskUserQuestion');
    expect(request).toMatchObject({ kind: 'question', executor: 'claude' });
    expect(channel.answer(request.requestId, { behavior: 'allow', answers: { 'Which color do you prefer?': 'Blue' } }).ok).toBe(true);
    await host.waitFor(is('final', messageId), 60_000);
    const toModel = await rig.mock.waitForRequest((q) => q.sessionId === id.nativeId && q.toolResult?.toolName === 'AskUserQuestion', 10_000);
    expect(toModel.toolResult).toMatchObject({ isError: false });
    expect(toModel.toolResult?.content).toContain('"Which color do you prefer?"="Blue"');
  }, 200_000);

  it('a free-text answer (not one of the options) reaches the model as given', async () => {
    const messageId = await send('TOOLASK again please');
    const request = await requestFor((p) => p.toolName === 'AskUserQuestion');
    channel.answer(request.requestId, { behavior: 'allow', answers: { 'Which color do you prefer?': 'Green, "like grass"' } });
    await host.waitFor(is('final', messageId), 60_000);
    const toModel = await rig.mock.waitForRequest(
      (q) => q.sessionId === id.nativeId && q.toolResult?.toolName === 'AskUserQuestion' && q.toolResult.content.includes('Green'),
      10_000,
    );
    expect(toModel.toolResult?.content).toContain('"Which color do you prefer?"="Green, "like grass""');
  }, 200_000);

  it('a multi-select question: several labels reach the model as one answer, joined by ", "', async () => {
    const messageId = await send('please TOOLASKMULTI now');
    const request = await requestFor((p) => p.toolName === 'AskUserQuestion' && JSON.stringify(p.toolInput).includes('toppings'));
    channel.answer(request.requestId, { behavior: 'allow', answers: { 'Which toppings do you want?': ['Cheese', 'Olives'] } });
    await host.waitFor(is('final', messageId), 60_000);
    const toModel = await rig.mock.waitForRequest(
      (q) => q.sessionId === id.nativeId && q.toolResult?.toolName === 'AskUserQuestion' && q.toolResult.content.includes('toppings'),
      10_000,
    );
    expect(toModel.toolResult?.content).toContain('"Which toppings do you want?"="Cheese, Olives"');
    const journal = await readFile(id.journalPath!, 'utf8');
    expect(journal).toContain('"answers":{"Which toppings do you want?":"Cheese, Olives"}');
  }, 200_000);
});
