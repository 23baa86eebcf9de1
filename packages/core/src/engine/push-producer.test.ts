import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserKeys } from '../../../testkit/src/push-endpoint.ts';
import { acceptMessage, createSession, listArchive, resumeSession } from '../services/index.ts';
import { signedInCaller } from '../trpc/test-support.ts';
import { LIFETIME_NOTICE_MS, pushLifetimesEnding } from './lifetime-notice.ts';
import { engineRig, type Rig } from './testing.ts';

/**
 * Which facts write pushes (issue 32), read from the rows the real engine writes: the routing
 * rule's inputs come from the database (devices, a page shown, the session's mute, the mode,
 * Telegram linked), one row per device. No sender runs here: rows are the contract.
 */
let rig: Rig;
beforeAll(async () => {
  rig = await engineRig();
});
afterAll(async () => {
  await rig?.close();
});

async function runningTurn() {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/route', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100 } });
  const m = await acceptMessage(rig.deps, { sessionId: s.id, text: 'go', source: 'web' });
  await rig.engine.settle();
  await rig.emit(s.id, 'turn_accepted', { messageId: m.message.id, nativeRecordId: `rec-${s.id}`, nativeTurnId: `turn-${s.id}` });
  return { sessionId: s.id, messageId: m.message.id, turn: `turn-${s.id}` };
}

async function ask(sessionId: string): Promise<string> {
  const requestId = randomUUID();
  await rig.emit(sessionId, 'permission_request', {
    requestId,
    executor: 'claude',
    kind: 'tool',
    toolName: 'Bash',
    toolInput: { command: 'ls' },
    canAlwaysAllow: false,
    receivedAt: rig.clock.t,
    expiresAt: rig.clock.t + 30 * 60_000,
  });
  return requestId;
}

const pushes = (sessionId: string) =>
  rig.db.pushOutbox.findMany({ where: { sessionId }, orderBy: { id: 'asc' }, select: { eventKind: true, action: true, subscriptionId: true, tag: true } });

describe('push producer', () => {
  it('writes nothing while no device is subscribed', async () => {
    const { sessionId } = await runningTurn();
    await ask(sessionId);
    expect(await pushes(sessionId)).toEqual([]);
  });

  it('one row per device for a prompt, none while the session page is visible or the session is muted', async () => {
    const { caller } = await signedInCaller(rig.db);
    const a = await caller.push.subscribe({ subscription: { endpoint: 'https://push.example.com/a', keys: browserKeys().keys }, name: 'a' });
    const b = await caller.push.subscribe({ subscription: { endpoint: 'https://push.example.com/b', keys: browserKeys().keys }, name: 'b' });

    const one = await runningTurn();
    const id = await ask(one.sessionId);
    expect(await pushes(one.sessionId)).toEqual(
      [a.id, b.id].map((subscriptionId) => ({ eventKind: 'prompt_waiting', action: 'show', subscriptionId, tag: `prompt-${id}` })),
    );

    const seen = await runningTurn();
    await caller.push.visibility({ sessionId: seen.sessionId });
    await ask(seen.sessionId);
    expect(await pushes(seen.sessionId)).toEqual([]);
    // Hidden again: the next request notifies.
    await caller.push.visibility({ sessionId: null });
    await ask(seen.sessionId);
    expect(await pushes(seen.sessionId)).toHaveLength(2);

    const muted = await runningTurn();
    await caller.push.mute({ sessionId: muted.sessionId, muted: true });
    await ask(muted.sessionId);
    expect(await pushes(muted.sessionId)).toEqual([]);
  });

  it('"push only when Telegram is off" leaves it to the linked chat; a kind switched off is not pushed', async () => {
    const { caller } = await signedInCaller(rig.db);
    await caller.push.updateSettings({ mode: 'push_when_telegram_off' });
    const t = await runningTurn();
    await ask(t.sessionId);
    expect(await pushes(t.sessionId)).toEqual([]);
    await caller.push.updateSettings({ mode: 'telegram_and_push', kindsOff: ['prompt_waiting'] });
    await ask(t.sessionId);
    expect(await pushes(t.sessionId)).toEqual([]);
    await caller.push.updateSettings({ kindsOff: [] });
    expect(await caller.push.settings()).toMatchObject({ mode: 'telegram_and_push', kindsOff: [], firstLine: false, quietHours: null });
  });

  it('a final pushes "turn completed" once; a turn that fails pushes "turn failed"', async () => {
    const done = await runningTurn();
    await rig.emit(done.sessionId, 'turn_final', { messageId: done.messageId, nativeTurnId: done.turn, text: 'All done.' });
    await rig.emit(done.sessionId, 'turn_completed', { messageId: done.messageId, nativeTurnId: done.turn });
    const rows = await pushes(done.sessionId);
    expect(rows.map((r) => r.eventKind)).toEqual(['turn_completed', 'turn_completed']);
    expect(rows.every((r) => r.tag === `session-${done.sessionId}`)).toBe(true);

    const bad = await runningTurn();
    await rig.emit(bad.sessionId, 'turn_api_error', { messageId: bad.messageId, nativeTurnId: bad.turn, error: 'overloaded' });
    expect((await pushes(bad.sessionId)).map((r) => r.eventKind)).toEqual(['turn_failed', 'turn_failed']);
  });

  it('a resume that fails pushes "session ended unexpectedly" once per device', async () => {
    const nativeSessionId = randomUUID();
    await rig.emit(undefined, 'discovery_diff', {
      added: [{ executor: 'claude', nativeSessionId, folder: '/work/old', title: 'old work', lastActivityAt: rig.clock.t - 86_400_000 }],
      changed: [],
      removed: [],
    });
    const item = (await listArchive(rig.deps, { nodeId: rig.nodeId })).items.find((x) => x.nativeSessionId === nativeSessionId);
    if (!item) throw new Error('not discovered');
    await resumeSession(rig.deps, { sessionId: item.id });
    await rig.emit(item.id, 'resume_failed', { reason: 'No conversation found with session ID' });
    const rows = await pushes(item.id);
    // Two devices are subscribed (above); the title is the session's.
    expect(rows.map((r) => r.eventKind)).toEqual(['session_ended_unexpectedly', 'session_ended_unexpectedly']);
    expect(new Set(rows.map((r) => r.subscriptionId)).size).toBe(2);
    const payload = (await rig.db.pushOutbox.findFirstOrThrow({ where: { sessionId: item.id }, select: { payload: true } })).payload;
    expect(payload).toMatchObject({ kind: 'session_ended_unexpectedly', title: 'old work', tag: `session-${item.id}` });
  });

  it('the computer going away under a working session pushes "computer went away" once', async () => {
    const t = await runningTurn();
    await rig.db.node.update({ where: { id: rig.nodeId }, data: { online: false } });
    await rig.engine.settle();
    expect((await rig.session(t.sessionId)).state).toBe('AwaitingRecovery');
    const away = async () => (await pushes(t.sessionId)).filter((r) => r.eventKind === 'computer_away');
    expect(await away()).toHaveLength(2);
    // Still away at the next look: no second push.
    rig.clock.advance(60_000);
    await rig.engine.settle();
    expect(await away()).toHaveLength(2);
    await rig.db.node.update({ where: { id: rig.nodeId }, data: { online: true } });
    await rig.engine.settle();
  });

  it('a lifetime about to end pushes "lifetime ending" once per deadline, whatever the number of scans', async () => {
    const { sessionId } = await runningTurn();
    const d = { ...rig.deps, jitter: () => 0.5 };
    const at = (ms: number) => rig.db.session.update({ where: { id: sessionId }, data: { lifetimeDeadline: new Date(rig.clock.t + ms) } });
    const ending = async () => (await pushes(sessionId)).filter((r) => r.eventKind === 'lifetime_ending');
    await at(LIFETIME_NOTICE_MS + 60_000);
    await pushLifetimesEnding(d);
    expect(await ending()).toEqual([]);
    await at(LIFETIME_NOTICE_MS - 60_000);
    await pushLifetimesEnding(d);
    await pushLifetimesEnding(d);
    const rows = await ending();
    // One per subscribed device (two, above), tagged as the session's.
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.tag === `session-${sessionId}`)).toBe(true);
    // A resume moved the deadline: a new notice for the new one.
    await at(LIFETIME_NOTICE_MS - 30_000);
    await pushLifetimesEnding(d);
    expect(await ending()).toHaveLength(4);
  });
});
