import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserKeys, decryptPush, PushEndpoint, type ReceivedPush, verifyVapid } from '../../../testkit/src/push-endpoint.ts';
import { engineRig, type Rig } from '../engine/testing.ts';
import { createLogger } from '../log.ts';
import { acceptMessage, createSession } from '../services/index.ts';
import { signedInCaller } from '../trpc/test-support.ts';
import { DEFAULT_PUSH_SUBJECT, PushSender } from './push-sender.ts';
import { sweepRetention } from './retention.ts';

/**
 * Web Push end to end (issue 32) against real Postgres: the real engine stores the CLI's requests,
 * the hub's push sender sends through `web-push`, and a local push service receives the requests
 * and decrypts them with the subscription's private keys (RFC 8291), checking the VAPID header
 * (RFC 8292) and the TTL / Urgency / Topic headers.
 */
let rig: Rig;
let ep: PushEndpoint;
let sender: PushSender | undefined;
const log = createLogger({ name: 'push-test', level: 'silent' });

beforeAll(async () => {
  rig = await engineRig();
  ep = await new PushEndpoint().start();
});
afterAll(async () => {
  await sender?.stop();
  await ep?.stop();
  await rig?.close();
});

async function startSender(): Promise<void> {
  await sender?.stop();
  sender = new PushSender({ db: rig.db, databaseUrl: rig.tdb.url, log });
  await sender.start();
}

async function device(name: string) {
  const { caller } = await signedInCaller(rig.db);
  const browser = browserKeys();
  const sub = await caller.push.subscribe({ subscription: { endpoint: ep.endpoint(name), keys: browser.keys }, name });
  return { caller, browser, sub };
}

const read = (p: ReceivedPush, browser: ReturnType<typeof browserKeys>) => JSON.parse(decryptPush(p.body, browser).toString('utf8')) as Record<string, unknown>;

async function runningSession() {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/push', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100 } });
  const m = await acceptMessage(rig.deps, { sessionId: s.id, text: 'run the tests', source: 'web' });
  await rig.engine.settle();
  await rig.emit(s.id, 'turn_accepted', { messageId: m.message.id, nativeRecordId: `rec-${s.id}` });
  return s;
}

async function ask(sessionId: string, command = 'npm test'): Promise<string> {
  const requestId = randomUUID();
  await rig.emit(sessionId, 'permission_request', {
    requestId,
    executor: 'claude',
    kind: 'tool',
    toolName: 'Bash',
    toolInput: { command, description: 'Run the tests' },
    canAlwaysAllow: true,
    receivedAt: rig.clock.t,
    expiresAt: rig.clock.t + 30 * 60_000,
  });
  return requestId;
}

async function trpcCode(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${String(e)}`);
  return e.code;
}

describe('push sender', () => {
  it('a permission request reaches the device encrypted, signed, with TTL, urgency and topic; the answer closes it by tag', async () => {
    await startSender();
    const { caller, browser, sub } = await device('phone');
    // The sender made the pair at its start; the dashboard only reads it.
    const { publicKey } = await caller.push.vapidKey();
    expect(publicKey).not.toBeNull();
    expect(Buffer.from(publicKey!, 'base64url')).toHaveLength(65);
    const s = await runningSession();
    const requestId = await ask(s.id);

    const [show] = await ep.waitFor('phone', 1);
    if (!show) throw new Error('no push');
    expect(show.headers['content-encoding']).toBe('aes128gcm');
    expect(show.headers.ttl).toBe('600');
    expect(show.headers.urgency).toBe('high');
    expect(show.headers.topic).toBe(requestId.replace(/-/g, ''));
    const claims = verifyVapid(show.headers.authorization, publicKey!);
    expect(claims.aud).toBe(ep.origin);
    expect(claims.sub).toBe(DEFAULT_PUSH_SUBJECT);
    const nowS = Math.floor(Date.now() / 1000);
    expect(claims.exp).toBeGreaterThan(nowS);
    expect(claims.exp).toBeLessThanOrEqual(nowS + 24 * 3600);
    const payload = read(show, browser);
    // Minimal by default: the session's title (its folder while it has none) and the kind, no content.
    expect(payload).toEqual({
      v: 1,
      action: 'show',
      kind: 'prompt_waiting',
      tag: `prompt-${requestId}`,
      title: '/work/push',
      sessionId: s.id,
      promptId: requestId,
      url: `/sessions/${s.id}`,
      // A permission request carries this device's single-use Allow / Deny token (push-answer.test.ts).
      answer: { token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expiresAt: expect.any(String) },
    });

    expect(await caller.sessions.answerPrompt({ promptId: requestId, decision: 'allow' })).toMatchObject({ kind: 'answered' });
    const [, close] = await ep.waitFor('phone', 2);
    if (!close) throw new Error('no close push');
    expect(read(close, browser)).toMatchObject({ action: 'close', tag: `prompt-${requestId}`, promptId: requestId });
    expect(close.headers.topic).toBe(show.headers.topic);
    const listed = (await caller.push.list()).devices.find((d) => d.id === sub.id);
    expect(listed).toMatchObject({ name: 'phone', service: ep.origin, lastError: null, failureCount: 0 });
    expect(listed?.lastPushAt).not.toBeNull();
  });

  it('carries the first line only when Settings allow it', async () => {
    await startSender();
    const { caller, browser } = await device('tablet');
    await caller.push.updateSettings({ firstLine: true });
    try {
      const s = await runningSession();
      await ask(s.id, 'npm run build\nand more');
      const [show] = await ep.waitFor('tablet', 1);
      if (!show) throw new Error('no push');
      expect(read(show, browser)).toMatchObject({ kind: 'prompt_waiting', body: 'Bash: npm run build' });
    } finally {
      await caller.push.updateSettings({ firstLine: false });
    }
  });

  it('sends no push for a prompt a hook answered before it was sent', async () => {
    await sender?.stop();
    sender = undefined;
    const { caller, sub } = await device('laptop');
    const s = await runningSession();
    const requestId = await ask(s.id);
    expect(await rig.db.pushOutbox.count({ where: { subscriptionId: sub.id, tag: `prompt-${requestId}` } })).toBe(1);
    // The hook ended the request without Bria's answer (another hook allowed the tool).
    await rig.emit(s.id, 'permission_resolved', { requestId, outcome: 'hook_gone', at: rig.clock.t });
    expect(await rig.db.pushOutbox.count({ where: { subscriptionId: sub.id } })).toBe(0);
    await startSender();
    expect(await caller.push.test({ id: sub.id })).toEqual({ status: 'sent', error: null });
    const got = ep.to('laptop');
    expect(got).toHaveLength(1);
  });

  it('404 and 410 remove the subscription', async () => {
    await startSender();
    for (const status of [404, 410]) {
      const { caller, sub } = await device(`gone-${status}`);
      ep.answer(`gone-${status}`, [status]);
      expect(await caller.push.test({ id: sub.id })).toMatchObject({ status: 'removed' });
      expect(ep.to(`gone-${status}`).map((r) => r.status)).toEqual([status]);
      expect(await rig.db.pushSubscription.count({ where: { id: sub.id } })).toBe(0);
      expect((await caller.push.list()).devices.map((d) => d.id)).not.toContain(sub.id);
    }
  });

  it('a 500 is retried with backoff and then succeeds, and never holds another device', async () => {
    await startSender();
    const flaky = await device('flaky');
    const down = await device('down');
    ep.answer('flaky', [500]);
    ep.answer('down', [503, 503, 503, 503]);
    const downTest = flaky.caller.push.test({ id: down.sub.id });
    expect(await flaky.caller.push.test({ id: flaky.sub.id })).toEqual({ status: 'sent', error: null });
    const tries = ep.to('flaky');
    expect(tries.map((r) => r.status)).toEqual([500, 201]);
    expect((tries[1]?.at ?? 0) - (tries[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect((await flaky.caller.push.list()).devices.find((d) => d.id === flaky.sub.id)).toMatchObject({ lastError: null, failureCount: 0 });
    // The other device's push service is still failing: its push waits for a retry, recorded on the device.
    expect(await downTest).toMatchObject({ status: 'pending' });
    const d = (await down.caller.push.list()).devices.find((x) => x.id === down.sub.id);
    expect(d?.failureCount).toBeGreaterThanOrEqual(1);
    expect(d?.lastError).toContain('503');
  });

  it('validates subscriptions and needs a signed-in user', async () => {
    const { caller } = await signedInCaller(rig.db);
    const keys = browserKeys().keys;
    expect(await trpcCode(caller.push.subscribe({ subscription: { endpoint: 'http://push.example.com/x', keys }, name: 'x' }))).toBe('BAD_REQUEST');
    expect(
      await trpcCode(caller.push.subscribe({ subscription: { endpoint: 'https://push.example.com/x', keys: { ...keys, auth: 'AAAA' } }, name: 'x' })),
    ).toBe('BAD_REQUEST');
    expect(
      await trpcCode(caller.push.subscribe({ subscription: { endpoint: 'https://push.example.com/x', keys: { ...keys, p256dh: keys.auth } }, name: 'x' })),
    ).toBe('BAD_REQUEST');
    expect(await trpcCode(caller.push.subscribe({ subscription: { endpoint: `https://push.example.com/${'a'.repeat(3000)}`, keys }, name: 'x' }))).toBe(
      'BAD_REQUEST',
    );
    const ok = await caller.push.subscribe({ subscription: { endpoint: 'https://push.example.com/ok', keys }, name: ' Work laptop ' });
    expect(ok).toMatchObject({ name: 'Work laptop', service: 'https://push.example.com' });
    expect(await caller.push.rename({ id: ok.id, name: 'Home' })).toMatchObject({ name: 'Home' });
    expect(await caller.push.remove({ id: ok.id })).toEqual({ id: ok.id });
    expect(await trpcCode(caller.push.remove({ id: ok.id }))).toBe('NOT_FOUND');
    const { caller: noCsrf } = await signedInCaller(rig.db, { csrf: null });
    expect(await trpcCode(noCsrf.push.subscribe({ subscription: { endpoint: 'https://push.example.com/y', keys }, name: 'y' }))).toBe('FORBIDDEN');
  });

  it('retention deletes old sent and failed pushes, never one still to be sent', async () => {
    await sender?.stop();
    sender = undefined;
    const before = await rig.db.pushOutbox.groupBy({ by: ['status'], _count: true });
    const count = (st: string) => before.find((g) => g.status === st)?._count ?? 0;
    expect(count('sent')).toBeGreaterThan(0);
    const waiting = count('pending') + count('sending');
    const r = await sweepRetention(rig.db, { days: 30, now: new Date(Date.now() + 31 * 24 * 3600_000), pauseMs: 0 });
    expect(r.pushes).toBe(count('sent') + count('failed'));
    expect(await rig.db.pushOutbox.count({ where: { status: { in: ['pending', 'sending'] } } })).toBe(waiting);
  });
});
