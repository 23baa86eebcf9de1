import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { acceptMessage, closeSession, createSession, subscribePush } from '@bria/core/services';
import { browserKeys, decryptPush, PushEndpoint } from '@bria/testkit/push-endpoint';
import type { CDPSession, Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

/**
 * The installable dashboard and Web Push in real Chromium (issue 32): the manifest and icons, the
 * service worker, the offline shell with the dashboard's server really stopped, and a permission
 * request of the real Claude CLI pushed by the hub to a local push service, decrypted there with the
 * subscription's keys, delivered to the browser's service worker through the DevTools protocol
 * (`ServiceWorker.deliverPushMessage`), shown as a notification, and answered by its Allow exactly once.
 */
test.use({ serviceWorkers: 'allow' });

let db: Db;
test.afterAll(async () => {
  await db?.$disconnect();
});

/** Waits until the page is controlled by the dashboard's service worker (a reload after the first install). */
async function controlled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) await page.reload();
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null)).toMatch(/\/sw\.js$/);
}

/** The registration id DevTools knows the dashboard's worker by. */
async function registrationIdOf(cdp: CDPSession, origin: string): Promise<string> {
  const seen: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => seen.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');
  await expect.poll(() => seen.find((r) => r.scopeURL.startsWith(origin) && !r.isDeleted)?.registrationId ?? null).not.toBeNull();
  return seen.find((r) => r.scopeURL.startsWith(origin) && !r.isDeleted)?.registrationId as string;
}

const notifications = (page: Page, tag: string) =>
  page.evaluate(async (t) => {
    const reg = await navigator.serviceWorker.ready;
    return (await reg.getNotifications({ tag: t })).map((n) => ({
      title: n.title,
      body: n.body,
      actions: ((n as Notification & { actions?: { action: string }[] }).actions ?? []).map((a) => a.action),
    }));
  }, tag);

test('installable: the manifest and its icons, the service worker controls the pages, and the app opens offline as "Reconnecting…"', async ({
  signedInPage: page,
  request,
  webServer,
  saveShot,
}) => {
  test.setTimeout(240_000);
  const manifest = await request.get('/manifest.webmanifest');
  expect(manifest.status()).toBe(200);
  const m = (await manifest.json()) as {
    display: string;
    start_url: string;
    icons: { src: string; sizes: string; purpose: string }[];
    share_target: { action: string; method: string; enctype: string; params: { files: { name: string }[] } };
  };
  expect(m).toMatchObject({
    display: 'standalone',
    start_url: '/',
    share_target: { action: '/share/receive', method: 'POST', enctype: 'multipart/form-data', params: { files: [{ name: 'files' }] } },
  });
  expect(m.icons.map((i) => `${i.sizes} ${i.purpose}`)).toEqual(['192x192 any', '512x512 any', '512x512 maskable']);
  for (const icon of m.icons) {
    const res = await request.get(icon.src);
    expect(res.headers()['content-type']).toBe('image/png');
    // A PNG's signature.
    expect((await res.body()).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  }
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/manifest.webmanifest');

  await page.goto('/settings');
  await controlled(page);

  await webServer.stop();
  try {
    // The dashboard's process is gone: the page still opens, at the address asked for.
    await page.goto('/settings');
    await expect(page.getByTestId('offline-shell')).toBeVisible();
    await expect(page.getByRole('status')).toHaveText('Reconnecting…');
    await expect(page.getByTestId('offline-shell')).toContainText('Not reachable yet');
    expect(new URL(page.url()).pathname).toBe('/settings');
    await expect(page.getByRole('button', { name: 'Try now' })).toBeVisible();
    await saveShot(page, 'offline-shell');
  } finally {
    await webServer.start();
  }
  // The shell asks again by itself (backoff up to 30 s) and reloads into the dashboard once it answers.
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible({ timeout: 90_000 });
});

test('a push service the browser cannot reach is said in words on Settings', async ({ signedInPage: page, context, baseURL }) => {
  await context.grantPermissions(['notifications'], { origin: baseURL });
  await page.goto('/settings');
  await controlled(page);
  await page.getByTestId('push-subscribe').click();
  // This Chromium has no push service it can reach (no network beyond this machine).
  await expect(page.getByTestId('push-subscribe-status')).toContainText('could not reach its push service', { timeout: 30_000 });
  await expect(page.getByTestId('push-subscribe-status')).toContainText('Telegram still gets everything');
});

test("a permission request's push: decrypted as sent, shown by the service worker, Allow answers it exactly once", async ({
  signedInPage: page,
  context,
  state,
  baseURL,
  request,
  saveShot,
}) => {
  test.setTimeout(300_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  const origin = baseURL as string;
  await context.grantPermissions(['notifications'], { origin });
  const endpoint = await new PushEndpoint().start();
  const device = `phone-${randomUUID().slice(0, 8)}`;
  const keys = browserKeys();
  const web = await db.webSession.findFirstOrThrow({ orderBy: { createdAt: 'desc' } });
  const sub = await subscribePush({ db }, { userId: web.userId, subscription: { endpoint: endpoint.endpoint(device), keys: keys.keys }, name: device });
  const read = (i: number) => JSON.parse(decryptPush(endpoint.to(device)[i]?.body as Buffer, keys).toString('utf8'));
  let sessionId: string | undefined;
  try {
    await page.goto('/settings');
    await controlled(page);
    const row = page.locator(`[data-device-id="${sub.id}"]`);
    await expect(row).toContainText(device);
    await expect(row).toContainText('no notification yet');
    // "Send a test notification": the hub's sender reaches the device's push service.
    await row.getByTestId('push-test').click();
    await expect(row.getByTestId('push-test-result')).toContainText('Sent: the push service took it.', { timeout: 30_000 });
    await endpoint.waitFor(device, 1);
    expect(read(0)).toMatchObject({ v: 1, action: 'show', kind: 'test' });
    await expect(row).toContainText('last notification');

    // A real Claude CLI asks for a Bash tool while no page shows its session.
    const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
    const folder = path.join(state.workDir, `push-${Date.now()}`);
    mkdirSync(folder, { recursive: true });
    const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
    sessionId = s.id;
    await expect.poll(async () => (await db.session.findUniqueOrThrow({ where: { id: s.id } })).state, { timeout: 120_000 }).toBe('Ready');
    const marker = `push${Date.now()}`;
    await acceptMessage({ db }, { sessionId: s.id, text: `please TOOLBASH-${marker} now`, source: 'web' });
    await endpoint.waitFor(device, 2, 150_000);
    const pushed = endpoint.to(device)[1];
    const payload = read(1) as { kind: string; tag: string; promptId: string; title: string; body?: string; answer?: { token: string } };
    const prompt = await db.permissionPrompt.findFirstOrThrow({ where: { sessionId: s.id } });
    expect(payload).toMatchObject({ v: 1, action: 'show', kind: 'prompt_waiting', promptId: prompt.id, tag: `prompt-${prompt.id}`, url: `/sessions/${s.id}` });
    // Nothing of the session's content by default: no first line.
    expect(payload.body).toBeUndefined();
    expect(payload.answer?.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pushed?.headers.urgency).toBe('high');
    expect(Number(pushed?.headers.ttl)).toBeGreaterThan(0);
    expect(pushed?.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);

    // The push service's delivery, as the browser gets it.
    const cdp = await context.newCDPSession(page);
    const registrationId = await registrationIdOf(cdp, origin);
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: JSON.stringify(payload) });
    await expect.poll(() => notifications(page, payload.tag)).toEqual([{ title: payload.title, body: 'Needs your answer', actions: ['allow', 'deny'] }]);

    // Allow, pressed on the notification (the worker's own click handler; see sw.js on why a page asks it).
    const pressed = await page.evaluate(
      (tag) =>
        new Promise<boolean>((resolve) => {
          navigator.serviceWorker.addEventListener('message', (e) => {
            if (e.data?.type === 'bria:notification-action-done' && e.data.tag === tag) resolve(e.data.found === true);
          });
          navigator.serviceWorker.controller?.postMessage({ type: 'bria:notification-action', tag, action: 'allow' });
        }),
      payload.tag,
    );
    expect(pressed).toBe(true);
    await expect.poll(() => notifications(page, payload.tag)).toEqual([{ title: payload.title, body: 'Answered: Allow (from the notification)', actions: [] }]);
    await expect.poll(async () => existsSync(path.join(folder, `ran-${marker}`)), { timeout: 120_000 }).toBe(true);
    const answered = await db.permissionPrompt.findUniqueOrThrow({ where: { id: prompt.id } });
    expect(answered).toMatchObject({ answeredFrom: 'notification', answer: { decision: 'allow' } });

    // A replay of the same token changes nothing.
    const replay = await request.post('/api/push/answer', { data: { token: payload.answer?.token, decision: 'deny' } });
    expect(replay.status()).toBe(200);
    expect(await replay.json()).toMatchObject({ status: 'already_answered', decision: 'allow' });
    const commands = await db.agentCommand.count({ where: { type: 'answer_permission', payload: { path: ['requestId'], equals: prompt.id } } });
    expect(commands).toBe(1);

    // Every device that was shown the request is told to close it; delivered, it closes here too.
    await endpoint.waitFor(device, 3, 30_000);
    const close = endpoint
      .to(device)
      .map((_, i) => read(i) as { action: string; tag: string })
      .find((p) => p.action === 'close');
    expect(close).toMatchObject({ action: 'close', tag: payload.tag });
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: JSON.stringify(close) });
    await expect.poll(() => notifications(page, payload.tag)).toEqual([]);

    // The session page says who answered.
    await page.goto(`/sessions/${s.id}`);
    await expect(page.locator(`[data-prompt-id="${prompt.id}"]`).getByTestId('prompt-status')).toContainText('Answered: Allow (from the notification).');
    await saveShot(page, 'answered-from-notification');
  } finally {
    if (sessionId) await closeSession({ db }, { sessionId }).catch(() => undefined);
    await db.pushSubscription.deleteMany({ where: { id: sub.id } });
    await endpoint.stop();
  }
});

test('the share target: shared text becomes a message to the session picked, stored once', async ({ signedInPage: page, state }) => {
  test.setTimeout(180_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
  const folder = path.join(state.workDir, `share-${Date.now()}`);
  mkdirSync(folder, { recursive: true });
  const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
  try {
    await expect.poll(async () => (await db.session.findUniqueOrThrow({ where: { id: s.id } })).state, { timeout: 120_000 }).toBe('Ready');
    const marker = `shared ${Date.now()}`;
    await page.goto(`/share?title=${encodeURIComponent('A page')}&text=${encodeURIComponent(marker)}&url=${encodeURIComponent('https://example.com/x')}`);
    await expect(page.getByTestId('share-text')).toHaveValue(`A page\n${marker}\nhttps://example.com/x`);
    await page.getByTestId('share-session').selectOption(s.id);
    await page.getByRole('button', { name: 'Send to session' }).click();
    await expect(page).toHaveURL(new RegExp(`/sessions/${s.id}$`));
    const stored = await db.message.findMany({ where: { sessionId: s.id } });
    expect(stored.map((m) => [m.text, m.source])).toEqual([[`A page\n${marker}\nhttps://example.com/x`, 'web']]);
  } finally {
    await closeSession({ db }, { sessionId: s.id }).catch(() => undefined);
  }
});

test('the share target with a file: the service worker keeps it for /share, which sends it with the text as an attachment', async ({
  signedInPage: page,
  state,
}) => {
  test.setTimeout(180_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
  const folder = path.join(state.workDir, `share-file-${Date.now()}`);
  mkdirSync(folder, { recursive: true });
  const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
  try {
    await expect.poll(async () => (await db.session.findUniqueOrThrow({ where: { id: s.id } })).state, { timeout: 120_000 }).toBe('Ready');
    await page.goto('/');
    await controlled(page);
    const marker = `shared file ${Date.now()}`;
    const content = `notes for ${marker}\n`;
    // What the system's share sheet does: a navigation POST of a multipart form to the manifest's action.
    await page.evaluate(
      ({ marker, content }) => {
        const form = document.createElement('form');
        form.method = 'POST';
        form.action = '/share/receive';
        form.enctype = 'multipart/form-data';
        const text = Object.assign(document.createElement('input'), { type: 'hidden', name: 'text', value: marker });
        const input = Object.assign(document.createElement('input'), { type: 'file', name: 'files' });
        const dt = new DataTransfer();
        dt.items.add(new File([content], 'notes.txt', { type: 'text/plain' }));
        input.files = dt.files;
        form.append(text, input);
        document.body.append(form);
        form.submit();
      },
      { marker, content },
    );
    await expect(page).toHaveURL(/\/share\?text=.*files=1$/);
    await expect(page.getByTestId('share-text')).toHaveValue(marker);
    await expect(page.getByTestId('composer-file')).toHaveCount(1);
    await expect(page.getByTestId('composer-file')).toContainText('notes.txt');
    await page.getByTestId('share-session').selectOption(s.id);
    await page.getByRole('button', { name: 'Send to session' }).click();
    await expect(page).toHaveURL(new RegExp(`/sessions/${s.id}$`));
    const [m] = await db.message.findMany({ where: { sessionId: s.id } });
    expect(m?.text).toBe(marker);
    const stored = (m?.attachments ?? []) as { name: string; sizeBytes: number; sha256: string }[];
    expect(stored.map((a) => [a.name, a.sizeBytes, a.sha256])).toEqual([
      ['notes.txt', Buffer.byteLength(content), createHash('sha256').update(content).digest('hex')],
    ]);
    // Sent: the worker's copy is gone, so the next share starts empty.
    expect(await page.evaluate(async () => (await (await caches.open('bria-share')).keys()).length)).toBe(0);
  } finally {
    await closeSession({ db }, { sessionId: s.id }).catch(() => undefined);
  }
});

test('the share target without the service worker: the text still arrives, and the page says the file stayed behind', async ({ signedInPage: page }) => {
  // The server's own /share/receive: a request from the test's API context, which no service worker sees.
  const r = await page.request.post('/share/receive', {
    multipart: { text: 'only the text', files: { name: 'a.png', mimeType: 'image/png', buffer: Buffer.from([1, 2, 3]) } },
    maxRedirects: 0,
  });
  expect(r.status()).toBe(303);
  expect(r.headers().location).toBe('/share?text=only+the+text&dropped=1');
  await page.goto(r.headers().location as string);
  await expect(page.getByTestId('share-text')).toHaveValue('only the text');
  await expect(page.getByTestId('share-files-missing')).toContainText('1 shared file(s) did not reach this page');
});
