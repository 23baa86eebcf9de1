import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { InlineKeyboardMarkup, Message } from '@grammyjs/types';
import { describe, expect, it } from 'vitest';
import type { Db } from '@bria/core/services';
import {
  agentCommandTypes,
  changeActiveSession,
  changeChat,
  changeSession,
  chatRow,
  countChats,
  countMessages,
  countSettings,
  dashboardUserWithTokens,
  messageRows,
  nodeRow,
  seedActiveSession,
  seedChat,
  seedEvidence,
  seedMessage,
  seedSettings,
  sessionRow,
  sessionStateAndVersion,
  settingsRow,
} from '@bria/testkit/bot-fixtures';
import { type Harness, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

let db: Db;
let h: Harness;
const ADA = 100200300;
const buttons = (m: Message | undefined) => ((m?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

describe('access', () => {
  it('an unknown user gets one polite refusal (one a day), no buttons, and nothing is stored', async () => {
    const stranger = { chatId: 555, userId: 555, firstName: 'Eve', languageCode: 'en' };
    h.fake.userSends('/start', stranger);
    await h.fake.waitForChat((ms) => ms.length >= 2, { chatId: 555 });
    await pause(400);
    const seen = h.fake.chatMessages(555).filter((m) => m.from?.is_bot);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.text).toBe('Sorry, this is a private bot. It only answers its owner.');
    expect(seen[0]?.reply_markup).toBeUndefined();
    expect(await countChats(db)).toBe(0);
  });

  it('a user allow-listed in the settings row is served', async () => {
    await seedSettings(db, { allowedTelegramUsers: [777n] });
    h.fake.userSends('/start', { chatId: 777, userId: 777, firstName: 'Bob', languageCode: 'en' });
    const ms = await h.fake.waitForChat((m) => m.filter((x) => x.from?.is_bot).length >= 2, { chatId: 777 });
    expect(ms.find((m) => m.from?.is_bot)?.text).toMatch(/^Bria runs your Claude Code/);
  });
});

describe('/start and the card', () => {
  it('without computers: explains Bria and what to do first', async () => {
    h.fake.userSends('/start');
    const ms = await h.fake.waitForChat((m) => m.filter((x) => x.from?.is_bot).length >= 2);
    expect(ms.filter((x) => x.from?.is_bot).map((m) => m.text)).toEqual([
      'Bria runs your Claude Code and Codex sessions on your own computers.\nPick a computer, start a session, and write to it here.',
      'No computer is connected yet. Open the dashboard to add one, or start Bria with its local agent.',
    ]);
  });

  it('shows the active session card with Close when idle and Stop when working; in Russian for language_code ru', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, active: { nodeId, sessionId: sid } });
    h.fake.userSends('/start');
    const ms = await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Claude Code · laptop')));
    const card = ms.find((x) => x.text?.startsWith('Claude Code · laptop'));
    expect(card?.text).toContain('State: ready');
    expect(card?.text).toContain('Folder: /home/ada/project');
    expect(card?.text).toMatch(/Time left: 2 h 5\d min/);
    expect(buttons(card).map((b) => b.text)).toEqual(['Close', 'Sessions', 'New session']);

    await changeSession(db, sid, { state: 'Running' });
    h.fake.userSends('/start', { chatId: 4242, userId: 4242, languageCode: 'ru', firstName: 'Ivan' });
    await seedSettings(db, { allowedTelegramUsers: [4242n] });
    h.fake.userSends('/start', { chatId: 4242, userId: 4242, languageCode: 'ru', firstName: 'Ivan' });
    const ru = await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Bria запускает')), { chatId: 4242 });
    expect(ru.some((x) => x.text?.startsWith('Bria запускает'))).toBe(true);
    await seedActiveSession(db, { chatId: 4242n, nodeId, sessionId: sid });
    h.fake.userSends('/start', { chatId: 4242, userId: 4242, languageCode: 'ru', firstName: 'Ivan' });
    const ruCard = (await h.fake.waitForChat((m) => m.some((x) => x.text?.includes('Состояние: работает')), { chatId: 4242 })).find((x) =>
      x.text?.includes('Состояние'),
    );
    expect(buttons(ruCard).map((b) => b.text)).toEqual(['Остановить', 'Сессии', 'Новая сессия']);
  });

  it('a button from an older card does nothing: "out of date", and the current card is refreshed', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, active: { nodeId, sessionId: sid } });
    h.fake.userSends('/start');
    const first = (await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Claude Code')))).find((x) => x.text?.startsWith('Claude Code'));
    h.fake.userSends('/start');
    await h.fake.waitForChat((m) => m.filter((x) => x.text?.startsWith('Claude Code')).length === 2);
    const before = await sessionStateAndVersion(db, sid);
    const oldClose = buttons(first).find((b) => b.text === 'Close') as { callback_data: string };
    const edits = h.fake.calls('editMessageText').length;
    h.fake.userPresses(first?.message_id as number, oldClose.callback_data);
    await h.fake.waitForCall('answerCallbackQuery');
    expect(h.fake.callbackAnswers().at(-1)?.text).toBe('This button is out of date.');
    await expect.poll(() => h.fake.calls('editMessageText').length).toBeGreaterThan(edits);
    expect(await sessionStateAndVersion(db, sid)).toEqual(before);
  });

  it('unparseable or tampered button data is answered "out of date" and the card refreshed; nothing acts', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, active: { nodeId, sessionId: sid } });
    h.fake.userSends('/start');
    const card = (await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Claude Code')))).find((x) => x.text?.startsWith('Claude Code')) as Message;
    const gen = (await chatRow(db, ADA)).cardGeneration;
    for (const data of ['arch:zz', 'resume:1:x:a', `node:${gen}`, `set:${gen}`, `set:${gen}:::exec=gemini`, 'zzz', `open:${gen}:${randomUUID()}`]) {
      const edits = h.fake.calls('editMessageText').length;
      const { callbackQueryId } = h.fake.userPresses(card.message_id, data, { force: true });
      await expect
        .poll(() => h.fake.callbackAnswers().find((a) => a.callbackQueryId === callbackQueryId)?.text, { timeout: 5000 })
        .toBe('This button is out of date.');
      await expect
        .poll(
          () =>
            h.fake
              .calls('editMessageText')
              .slice(edits)
              .some((c) => Number(c.params.message_id) === card.message_id),
          { timeout: 5000 },
        )
        .toBe(true);
    }
    expect((await sessionRow(db, sid)).state).toBe('Ready');
    expect(await countSettings(db)).toBe(0);
  });

  it('Close asks for confirmation on the card itself; Cancel goes back', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, active: { nodeId, sessionId: sid } });
    h.fake.userSends('/start');
    const card = (await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Claude Code')))).find((x) => x.text?.startsWith('Claude Code')) as Message;
    h.fake.userPresses(card.message_id, (buttons(card)[0] as { callback_data: string }).callback_data);
    const confirm = (await h.fake.waitForChat((m) => m.some((x) => x.text?.includes('Close this session?')))).find((x) => x.message_id === card.message_id);
    expect(buttons(confirm).map((b) => b.text)).toEqual(['Yes, close', 'Cancel', 'Sessions', 'New session']);
    h.fake.userPresses(card.message_id, (buttons(confirm)[1] as { callback_data: string }).callback_data);
    await h.fake.waitForChat((m) => !m.some((x) => x.text?.includes('Close this session?')));
    expect((await sessionRow(db, sid)).state).toBe('Ready');
  });
});

describe('messages', () => {
  it('plain text goes to the active session durable queue once and is acknowledged with a reaction', async () => {
    const nodeId = await seedNode(db);
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: sid } });
    const sent = h.fake.userSends('please refactor the parser');
    await h.fake.waitForCall('setMessageReaction');
    expect(h.fake.reactions(ADA, sent.message.message_id)).toEqual([{ type: 'emoji', emoji: '👀' }]);
    const rows = await messageRows(db, { sessionId: sid });
    expect(rows.map((r) => [r.text, r.status, r.sourceKey])).toEqual([['please refactor the parser', 'pending', `tg:${ADA}:${sent.message.message_id}`]]);
  });

  it('text for an expired session is refused with exactly one clear notice and is not stored', async () => {
    const nodeId = await seedNode(db);
    const sid = await seedSession(db, { nodeId, state: 'Running', deadline: new Date(Date.now() - 60_000) });
    await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: sid } });
    h.fake.userSends('one more thing');
    await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Not sent: this session')));
    await pause(500);
    expect(h.fake.chatMessages().filter((x) => x.text?.startsWith('Not sent'))).toHaveLength(1);
    expect(await countMessages(db, { sessionId: sid })).toBe(0);
  });

  it('a refusal names its reason: closing, closed after its lifetime, control characters (in Russian too)', async () => {
    const nodeId = await seedNode(db);
    const sid = await seedSession(db, { nodeId, state: 'Closing' });
    await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: sid } });
    h.fake.userSends('one more');
    await h.fake.waitForChat((m) =>
      m.some((x) => x.text === 'Not sent: this session is closing. Once it is in the /archive you can resume it, or start a /new one.'),
    );
    // Closed because its lifetime ended, as the engine records it (archiving clears the lifetime fields).
    await seedEvidence(db, { sessionId: sid, fromState: 'Ready', toState: 'Closing', event: 'lifetime_expired', actor: 'timer' });
    await changeSession(db, sid, { state: 'Archived', lifetimeDeadline: null });
    h.fake.userSends('and another');
    await h.fake.waitForChat((m) =>
      m.some((x) => x.text === "Not sent: this session's lifetime ended and it was closed. Resume it from /archive or start a /new one."),
    );
    const ready = await seedSession(db, { nodeId, state: 'Ready' });
    await changeActiveSession(db, { chatId: ADA, nodeId, sessionId: ready });
    await changeChat(db, ADA, { language: 'ru' });
    h.fake.userSends('bell \u0007 here');
    await h.fake.waitForChat((m) =>
      m.some((x) => x.text === 'Не отправлено: в сообщении есть управляющие символы, которые терминал не примет. Уберите их и отправьте снова.'),
    );
    await pause(300);
    expect(h.fake.chatMessages().filter((x) => /^(Not sent|Не отправлено)/.test(x.text ?? ''))).toHaveLength(3);
    expect(await countMessages(db)).toBe(0);
  });

  it('without an active session the user is told how to start one', async () => {
    await seedNode(db);
    h.fake.userSends('hello?');
    await h.fake.waitForChat((m) => m.some((x) => x.text === 'There is no active session. Send /new to start one.'));
  });
});

describe('settings, status and login', () => {
  it('/settings toggles resume suggestions and switches the language', async () => {
    await seedNode(db, { name: 'laptop' });
    h.fake.userSends('/settings');
    const msg = (await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Settings')))).find((x) => x.text?.startsWith('Settings')) as Message;
    expect(msg.text).toContain('Session lifetime: 12 h');
    expect(msg.text).toContain('Resume suggestions: off');
    const on = buttons(msg).find((b) => b.text === 'Resume suggestions: on') as { callback_data: string };
    h.fake.userPresses(msg.message_id, on.callback_data);
    await h.fake.waitForChat((m) => m.some((x) => x.text?.includes('Resume suggestions: on')));
    expect((await settingsRow(db)).resumeRecommendations).toBe(true);
    const updated = h.fake.chatMessages().find((x) => x.message_id === msg.message_id);
    h.fake.userPresses(msg.message_id, (buttons(updated).find((b) => b.text === 'Русский') as { callback_data: string }).callback_data);
    await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Настройки')));
    expect((await chatRow(db, ADA)).language).toBe('ru');
  });

  it('/settings sets the lifetime and the agents of the selected computer; a disabled agent is not offered by /new', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    h.fake.userSends('/settings');
    const msg = (await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Settings')))).find((x) => x.text?.startsWith('Settings')) as Message;
    expect(msg.text).toContain('Agents on laptop: Claude Code, Codex');
    const shown = () => h.fake.chatMessages().find((x) => x.message_id === msg.message_id) as Message;
    const pressOn = (label: string) =>
      h.fake.userPresses(msg.message_id, (buttons(shown()).find((b) => b.text === label) as { callback_data: string }).callback_data);
    pressOn('24 h');
    await expect.poll(() => shown().text).toContain('Session lifetime: 24 h');
    expect((await settingsRow(db)).lifetimeHours).toBe(24);
    pressOn('☑ Codex');
    await expect.poll(() => shown().text).toContain('Agents on laptop: Claude Code\n');
    expect((await nodeRow(db, nodeId)).enabledExecutors).toEqual(['claude']);
    expect(buttons(shown()).map((b) => b.text)).toContain('☐ Codex');
    h.fake.userSends('/new');
    await h.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Which folder?')));
    expect(h.fake.chatMessages().some((x) => x.text?.includes('which agent?'))).toBe(false);
  });

  it('/login sends a one-time dashboard link for this Telegram user', async () => {
    h.fake.userSends('/login');
    const ms = await h.fake.waitForChat((m) => m.some((x) => x.text?.includes('/login?token=')));
    const text = ms.find((x) => x.text?.includes('/login?token='))?.text as string;
    expect(text).toMatch(/^Your one-time dashboard link \(valid 15 minutes, single use\):\nhttp:\/\/127\.0\.0\.1:3999\/login\?token=\S+$/);
    const user = await dashboardUserWithTokens(db, ADA);
    expect(user.loginTokens).toHaveLength(1);
  });
});

describe('lifecycle button and attachments through core services', () => {
  it('Stop on a working session asks core to interrupt the current work; the card shows stopping', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const sid = await seedSession(db, { nodeId, state: 'Running' });
    // The work in flight, as the engine records an accepted request.
    await seedMessage(db, {
      id: randomUUID(),
      sessionId: sid,
      seq: 1,
      source: 'telegram',
      text: 'long task',
      status: 'accepted',
      acceptedAt: new Date(),
      nativeRecordId: 'rec-1',
    });
    await seedChat(db, { chatId: ADA, active: { nodeId, sessionId: sid } });
    h.fake.userSends('/start');
    const card = (await h.fake.waitForChat((m) => m.some((x) => x.text?.includes('State: working')))).find((x) =>
      x.text?.includes('State: working'),
    ) as Message;
    h.fake.userPresses(card.message_id, (buttons(card).find((b) => b.text === 'Stop') as { callback_data: string }).callback_data);
    await h.fake.waitForChat((m) => m.some((x) => x.message_id === card.message_id && x.text?.includes('State: stopping')));
    expect((await sessionRow(db, sid)).state).toBe('Stopping');
    expect(await agentCommandTypes(db, { sessionId: sid })).toContain('interrupt');
  });

  it('a document is downloaded, checksummed, stored in a Bria-owned folder and referenced by the queued message', async () => {
    const nodeId = await seedNode(db);
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: sid } });
    const bytes = new Uint8Array(Buffer.from('name,value\nα,1\n'));
    const sent = h.fake.userSendsDocument(bytes, 'data.csv', 'text/csv', 'look at this file');
    await h.fake.waitForCall('setMessageReaction');
    const [row] = await messageRows(db, { sessionId: sid });
    expect(row?.text).toBe('look at this file');
    expect(row?.sourceKey).toBe(`tg:${ADA}:${sent.message.message_id}`);
    const [att] = (row?.attachments ?? []) as { name: string; mime: string; path: string; sizeBytes: number; sha256: string }[];
    expect(att).toMatchObject({ name: 'data.csv', mime: 'text/csv', sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(readFileSync(att?.path as string)).toEqual(Buffer.from(bytes));
  });

  it("a file over the stated 512 KB limit is refused in the user's language and nothing is queued", async () => {
    const nodeId = await seedNode(db);
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, language: 'ru', selectedNodeId: nodeId, active: { nodeId, sessionId: sid } });
    h.fake.userSendsDocument(new Uint8Array(512 * 1024 + 1), 'big.bin', 'application/octet-stream', 'too big');
    await h.fake.waitForChat((m) => m.some((x) => x.text?.includes('512 KB')));
    expect(h.fake.chatMessages().some((x) => x.text?.startsWith('Не отправлено: файл больше 512 KB'))).toBe(true);
    expect(await countMessages(db, { sessionId: sid })).toBe(0);
  });
});
