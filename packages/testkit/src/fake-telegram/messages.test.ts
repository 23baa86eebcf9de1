import { Api, GrammyError } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from './index.ts';

let fake: FakeTelegram;
let api: Api;
let chat: number;
beforeEach(async () => {
  fake = await startFakeTelegram();
  api = new Api(fake.token, { apiRoot: fake.apiRoot });
  chat = fake.user.id;
});
afterEach(async () => {
  await fake.close();
});

async function refused(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GrammyError);
  const g = error as GrammyError;
  return `${g.error_code} ${g.description}`;
}

describe('sendMessage', () => {
  it('validates HTML and MarkdownV2 like the real server', async () => {
    const html = await api.sendMessage(chat, 'Session <b>api</b> is <i>busy</i> &amp; queued', { parse_mode: 'HTML' });
    expect(html.text).toBe('Session api is busy & queued');
    expect(html.entities).toEqual([
      { type: 'bold', offset: 8, length: 3 },
      { type: 'italic', offset: 15, length: 4 },
    ]);
    const md = await api.sendMessage(chat, '*Done* in 3\\.2 s \\(`npm test`\\)', { parse_mode: 'MarkdownV2' });
    expect(md.text).toBe('Done in 3.2 s (npm test)');
    expect(await refused(api.sendMessage(chat, 'Done in 3.2 s', { parse_mode: 'MarkdownV2' }))).toBe(
      "400 Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
    );
    expect(await refused(api.sendMessage(chat, 'a <b>b', { parse_mode: 'HTML' }))).toBe(
      `400 Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
    );
    expect(await refused(api.sendMessage(chat, 'x <script>y</script>', { parse_mode: 'HTML' }))).toContain('Unsupported start tag "script"');
    expect(fake.chatMessages().map((m) => m.message_id)).toEqual([html.message_id, md.message_id]);
  });

  it('applies the 4096 limit after entity parsing, and refuses empty text', async () => {
    const exact = 'x'.repeat(4096);
    expect((await api.sendMessage(chat, `<b>${exact}</b>`, { parse_mode: 'HTML' })).text).toHaveLength(4096);
    expect(await refused(api.sendMessage(chat, `${exact}y`))).toBe('400 Bad Request: message is too long');
    expect(await refused(api.sendMessage(chat, ''))).toBe('400 Bad Request: message text is empty');
    expect(await refused(api.sendMessage(chat, '<b></b>', { parse_mode: 'HTML' }))).toBe('400 Bad Request: message text is empty');
  });

  it('validates inline keyboards and replies, and fails for unknown or blocked chats', async () => {
    const long = 'd'.repeat(65);
    expect(await refused(api.sendMessage(chat, 'k', { reply_markup: { inline_keyboard: [[{ text: 'x', callback_data: long }]] } }))).toBe(
      '400 Bad Request: BUTTON_DATA_INVALID',
    );
    const ok = await api.sendMessage(chat, 'k', { reply_markup: { inline_keyboard: [[{ text: 'x', callback_data: 'é'.repeat(32) }]] } });
    expect(ok.reply_markup?.inline_keyboard[0]?.[0]).toEqual({ text: 'x', callback_data: 'é'.repeat(32) });
    expect(await refused(api.sendMessage(chat, 'r', { reply_parameters: { message_id: 999 } }))).toBe('400 Bad Request: message to be replied not found');
    const loose = await api.sendMessage(chat, 'r', { reply_parameters: { message_id: 999, allow_sending_without_reply: true } });
    expect(loose.reply_to_message).toBeUndefined();
    const preview = await api.sendMessage(chat, 'see https://bria.dev', { link_preview_options: { is_disabled: true } });
    expect(preview.link_preview_options).toEqual({ is_disabled: true });
    expect(preview.entities).toEqual([{ type: 'url', offset: 4, length: 16 }]);
    expect(await refused(api.sendMessage(424242, 'who?'))).toBe('400 Bad Request: chat not found');
    fake.userBlocksBot();
    expect(await refused(api.sendMessage(chat, 'still there?'))).toBe('403 Forbidden: bot was blocked by the user');
  });
});

describe('editing and deleting', () => {
  it('edits text, refuses identical edits and unknown messages, keeps what the user sees', async () => {
    const keyboard = { inline_keyboard: [[{ text: 'Stop', callback_data: 'stop' }]] };
    const sent = await api.sendMessage(chat, 'Working…', { reply_markup: keyboard });
    const notModified =
      '400 Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';
    expect(await refused(api.editMessageText(chat, sent.message_id, 'Working…', { reply_markup: keyboard }))).toBe(notModified);
    const edited = await api.editMessageText(chat, sent.message_id, 'Working… 50%', { reply_markup: keyboard });
    expect(edited).toMatchObject({ message_id: sent.message_id, text: 'Working… 50%', reply_markup: keyboard });
    expect(await refused(api.editMessageReplyMarkup(chat, sent.message_id, { reply_markup: keyboard }))).toBe(notModified);
    expect(await refused(api.editMessageText(chat, 12345, 'x'))).toBe('400 Bad Request: message to edit not found');
    const { message: mine } = fake.userSends('user text');
    expect(await refused(api.editMessageText(chat, mine.message_id, 'hijack'))).toBe("400 Bad Request: message can't be edited");
    await api.editMessageReplyMarkup(chat, sent.message_id);
    expect(fake.chatMessages().find((m) => m.message_id === sent.message_id)).toMatchObject({ text: 'Working… 50%' });
    expect(fake.chatMessages().find((m) => m.message_id === sent.message_id)?.reply_markup).toBeUndefined();

    expect(await api.deleteMessage(chat, mine.message_id)).toBe(true);
    expect(await refused(api.deleteMessage(chat, mine.message_id))).toBe('400 Bad Request: message to delete not found');
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['Working… 50%']);
  });
});

describe('small methods', () => {
  it('reactions, chat actions, commands and menu button', async () => {
    const { message } = fake.userSends('run the tests');
    expect(await api.setMessageReaction(chat, message.message_id, [{ type: 'emoji', emoji: '👀' }])).toBe(true);
    expect(fake.reactions(chat, message.message_id)).toEqual([{ type: 'emoji', emoji: '👀' }]);
    expect(await refused(api.setMessageReaction(chat, message.message_id, [{ type: 'emoji', emoji: '🦀' as '👀' }]))).toBe('400 Bad Request: REACTION_INVALID');
    expect(await api.sendChatAction(chat, 'typing')).toBe(true);
    expect(fake.lastChatAction()?.action).toBe('typing');
    expect(await refused(api.sendChatAction(chat, 'dancing' as 'typing'))).toBe('400 Bad Request: wrong parameter action in request');

    const commands = [
      { command: 'new', description: 'Start a session' },
      { command: 'sessions', description: 'List sessions' },
    ];
    await api.setMyCommands(commands);
    await api.setMyCommands([{ command: 'neu', description: 'Sitzung starten' }], { language_code: 'de' });
    expect(await api.getMyCommands()).toEqual(commands);
    expect(await api.getMyCommands({ language_code: 'de' })).toEqual([{ command: 'neu', description: 'Sitzung starten' }]);
    expect(fake.botCommands()).toEqual(commands);
    expect(await refused(api.setMyCommands([{ command: 'Bad-Name', description: 'x' }]))).toBe('400 Bad Request: BOT_COMMAND_INVALID');
    expect(await api.setChatMenuButton({ chat_id: chat, menu_button: { type: 'commands' } })).toBe(true);
    expect(await api.getChatMenuButton({ chat_id: chat })).toEqual({ type: 'commands' });
  });
});

describe('streamed drafts', () => {
  it('sendMessageDraft shows a preview that the final message replaces and that expires after 30 s', async () => {
    expect(await api.sendMessageDraft(chat, 7, '')).toBe(true);
    expect(fake.chatDraft()).toMatchObject({ draftId: 7, text: '' });
    await api.sendMessageDraft(chat, 7, 'Reading <code>src/</code>…', { parse_mode: 'HTML' });
    expect(fake.chatDraft()).toMatchObject({ text: 'Reading src/…', entities: [{ type: 'code', offset: 8, length: 4 }] });
    expect(await refused(api.sendMessageDraft(chat, 0, 'x'))).toBe('400 Bad Request: draft_id must be non-zero');
    await api.sendMessage(chat, 'Done');
    expect(fake.chatDraft()).toBeUndefined();
    await api.sendMessageDraft(chat, 8, 'again');
    fake.advanceClock(31_000);
    expect(fake.chatDraft()).toBeUndefined();
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['Done']);
  });
});
