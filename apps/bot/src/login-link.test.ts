import { describe, expect, it } from 'vitest';
import { type Db, enqueueBotRow } from '@bria/core/services';
import { loginLinkRows } from '@bria/testkit/bot-fixtures';
import { type Harness, useBotHarness } from '../test-support/bot-harness.ts';

/**
 * /login's link is a dashboard session for whoever reads it: the outbox row that carries it keeps
 * it only until the row is finished (sent or failed), and a retry before that still delivers it.
 */
let db: Db;
let h: Harness;
const ADA = 100200300;
const LINK = /http:\/\/127\.0\.0\.1:3999\/login\?token=(\S+)/;

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

const loginRows = () => loginLinkRows(db);
const linksShown = () =>
  h.fake
    .chatMessages()
    .filter((m) => LINK.test(m.text ?? ''))
    .map((m) => m.text as string);

describe('/login link in the outbox', () => {
  it('the sent row keeps no link: the payload is blanked in the statement that marks it sent', async () => {
    h.fake.userSends('/login');
    await h.fake.waitForChat((m) => m.some((x) => LINK.test(x.text ?? '')));
    const token = LINK.exec(linksShown()[0] as string)?.[1] as string;
    expect(linksShown()[0]).toMatch(/^Your one-time dashboard link \(valid 15 minutes, single use\):\n/);
    await expect.poll(async () => (await loginRows()).map((r) => r.status)).toEqual(['sent']);
    const [row] = await loginRows();
    expect(JSON.stringify(row)).not.toContain(token);
    expect(JSON.stringify(row)).not.toContain('/login?token=');
    expect(row?.payload).toMatchObject({ kind: 'login_link', url: null });
  });

  it('an answer lost after Telegram sent it: the retry delivers the same link again, then the row is blanked', async () => {
    h.fake.failNext('sendMessage', { drop: true, afterExecute: true });
    h.fake.userSends('/login');
    await h.fake.waitForChat((m) => m.filter((x) => LINK.test(x.text ?? '')).length >= 2, { timeoutMs: 30_000 });
    const [first, second] = linksShown();
    expect(second).toBe(first);
    await expect.poll(async () => (await loginRows()).map((r) => r.status), { timeout: 10_000 }).toEqual(['sent']);
    expect(JSON.stringify(await loginRows())).not.toContain(LINK.exec(first as string)?.[1] as string);
  });

  it('a row Telegram refuses for good is marked failed without the link', async () => {
    h.fake.failNext('sendMessage', { code: 403, description: 'Forbidden: bot was blocked by the user' });
    h.fake.userSends('/login');
    await expect.poll(async () => (await loginRows()).map((r) => r.status), { timeout: 10_000 }).toEqual(['failed']);
    const [row] = await loginRows();
    expect(row?.payload).toMatchObject({ kind: 'login_link', url: null });
    expect(JSON.stringify(row)).not.toContain('token=');
    expect(linksShown()).toEqual([]);
  });

  it('a link that expired before it could be sent is not sent; the chat is told to ask again', async () => {
    h.fake.userSends('/start');
    await h.fake.waitForChat((m) => m.some((x) => x.from?.is_bot));
    await enqueueBotRow(db, {
      dedupeKey: 'test:expired-link',
      kind: 'login_link',
      chatId: BigInt(ADA),
      sessionId: null,
      payload: { kind: 'login_link', url: 'http://127.0.0.1:3999/login?token=expiredexpiredexpired00', expiresAt: new Date(Date.now() - 1000).toISOString() },
    });
    await h.fake.waitForChat((m) => m.some((x) => x.text === 'The dashboard link expired before it could be sent. Send /login for a new one.'));
    expect(linksShown()).toEqual([]);
    await expect.poll(async () => JSON.stringify(await loginRows())).not.toContain('expiredexpired');
  });
});
