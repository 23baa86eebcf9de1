import type { InlineKeyboardMarkup, Message } from '@grammyjs/types';
import { describe, expect, it } from 'vitest';
import type { Db } from '@bria/core/services';
import { changeMessage, changeSession, messageRows, seedChat, seedPrompt } from '@bria/testkit/bot-fixtures';
import { type Harness, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

// Issue 33 from Telegram: a message that waits says so and carries Cancel; editing the original
// Telegram message edits the queued one. Both go through core's services against a real database,
// so the exactly-once rule is core's: once handed to the CLI, both are refused in words.
let db: Db;
let h: Harness;
const ADA = 100200300;
const buttons = (m: Message | undefined) => ((m?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat();
const fromBot = (text: string) => (ms: Message[]) => ms.find((m) => m.from?.is_bot === true && (m.text?.startsWith(text) ?? false));

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

/** A chat whose active session is working on a turn: what the user sends now waits in the queue. */
async function busySession(): Promise<string> {
  const nodeId = await seedNode(db);
  const sid = await seedSession(db, { nodeId, state: 'Running' });
  await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: sid } });
  return sid;
}

async function storedReply(seq: number): Promise<Message> {
  const ms = await h.fake.waitForChat((ms) => fromBot(`Stored in the queue (#${seq})`)(ms) !== undefined);
  return fromBot(`Stored in the queue (#${seq})`)(ms) as Message;
}

const press = async (m: Message) => {
  const { callbackQueryId } = h.fake.userPresses(m.message_id, (buttons(m)[0] as { callback_data: string }).callback_data);
  return (await h.fake.waitForCall('answerCallbackQuery', (r) => (r.params as { callback_query_id?: string }).callback_query_id === callbackQueryId))
    .params as { text?: string };
};

describe('a queued message from Telegram', () => {
  it('waits with a reply that says why and carries Cancel; Cancel cancels it, says so and drops the button', async () => {
    const sid = await busySession();
    h.fake.userSends('first thing');
    const stored = await storedReply(1);
    expect(stored.text).toBe(
      'Stored in the queue (#1): it goes when the current turn ends. Edit your message to change what the CLI gets, or cancel it before it is sent.',
    );
    expect(buttons(stored).map((b) => b.text)).toEqual(['Cancel #1']);
    h.fake.userSends('second thing');
    const second = await storedReply(2);
    expect(second.text).toContain('it goes after the 1 message(s) before it.');

    expect((await press(stored)).text).toBe('Cancelled: #1 will never be sent.');
    const edited = await h.fake.waitForChat((ms) => ms.some((m) => m.message_id === stored.message_id && m.text?.startsWith('Message #1 cancelled')));
    const after = edited.find((m) => m.message_id === stored.message_id);
    expect(after?.text).toBe('Message #1 cancelled: it was never sent to the CLI.');
    expect(buttons(after)).toEqual([]);
    expect((await messageRows(db, { sessionId: sid })).map((r) => [r.seq, r.status])).toEqual([
      [1, 'cancelled'],
      [2, 'pending'],
    ]);
  });

  it('held by an open permission request: the reply names the request that holds it', async () => {
    const sid = await busySession();
    await seedPrompt(db, { sessionId: sid, chatId: ADA, toolName: 'Bash', toolInput: { command: 'npm test' } });
    h.fake.userSends('after that, run the linter');
    const stored = await storedReply(1);
    expect(stored.text).toBe(
      'Stored in the queue (#1): held while the permission request for Bash is open; it goes once you answer it and that turn ends. Edit your message to change what the CLI gets, or cancel it before it is sent.',
    );
  });

  it('Cancel after the message was handed to the CLI is refused: "already delivered", and nothing changes', async () => {
    const sid = await busySession();
    h.fake.userSends('too late to take back');
    const stored = await storedReply(1);
    const [row] = await messageRows(db, { sessionId: sid });
    await changeMessage(db, row!.id, { status: 'accepted' });
    expect((await press(stored)).text).toBe('Already delivered: the CLI has message #1.');
    await h.fake.waitForChat((ms) => ms.some((m) => m.message_id === stored.message_id && m.text === 'Already delivered: the CLI has message #1.'));
    expect((await messageRows(db, { sessionId: sid })).map((r) => r.status)).toEqual(['accepted']);
  });

  it('editing the Telegram message edits the queued one and keeps the first text; after the hand-over the edit is refused in words', async () => {
    const sid = await busySession();
    const sent = h.fake.userSends('fix the parsre');
    await storedReply(1);
    h.fake.userEdits(sent.message.message_id, 'fix the parser');
    await h.fake.waitForChat((ms) => fromBot('Message #1 edited in the queue')(ms) !== undefined);
    let [row] = await messageRows(db, { sessionId: sid });
    expect([row?.text, row?.originalText, row?.status]).toEqual(['fix the parser', 'fix the parsre', 'pending']);

    // Now the CLI has it: a later edit must not change what was delivered, and says so.
    await changeMessage(db, row!.id, { status: 'leased' });
    h.fake.userEdits(sent.message.message_id, 'fix the lexer instead');
    await h.fake.waitForChat((ms) => fromBot('Already delivered')(ms) !== undefined);
    expect(fromBot('Already delivered')(h.fake.chatMessages(ADA))?.text).toBe(
      'Already delivered: message #1 is being typed into the CLI now. Your edit was not applied.',
    );
    [row] = await messageRows(db, { sessionId: sid });
    expect([row?.text, row?.originalText]).toEqual(['fix the parser', 'fix the parsre']);
  });

  it('editing a /now message edits its text without the command', async () => {
    const sid = await busySession();
    const sent = h.fake.userSends('/now fix the parsre');
    await h.fake.waitForCall('sendMessage');
    const [row] = await messageRows(db, { sessionId: sid });
    expect(row?.text).toBe('fix the parsre');
    // Still waiting (no agent here takes it): the edit applies to the text alone.
    h.fake.userEdits(sent.message.message_id, '/now fix the parser');
    await h.fake.waitForChat((ms) => fromBot(`Message #${row?.seq} edited in the queue`)(ms) !== undefined);
    expect((await messageRows(db, { sessionId: sid })).map((r) => [r.text, r.originalText])).toEqual([['fix the parser', 'fix the parsre']]);
  });

  it('an edit the CLI could not take as sent (a control character) is not applied, and says so', async () => {
    const sid = await busySession();
    const sent = h.fake.userSends('ring the bell');
    await storedReply(1);
    h.fake.userEdits(sent.message.message_id, 'ring the \u0007 bell');
    await h.fake.waitForChat((ms) => fromBot('Your edit was not applied')(ms) !== undefined);
    expect(fromBot('Your edit was not applied')(h.fake.chatMessages(ADA))?.text).toBe(
      'Your edit was not applied: the new text cannot be sent as it is (empty, too long or with control characters). Message #1 stays as it was.',
    );
    const [row] = await messageRows(db, { sessionId: sid });
    expect([row?.text, row?.originalText, row?.status]).toEqual(['ring the bell', null, 'pending']);
  });

  it('an edit of a message Bria never queued changes nothing and gets no reply; a message that goes at once gets no queue reply', async () => {
    const sid = await busySession();
    await changeSession(db, sid, { state: 'Ready' });
    const sent = h.fake.userSends('straight to the CLI');
    await h.fake.waitForCall('setMessageReaction');
    const cmd = h.fake.userSends('/status');
    h.fake.userEdits(cmd.message.message_id, '/status please');
    h.fake.userSends('/status');
    // Replies leave in the chat's order: two /status answers, and nothing about the queue or the edit before them.
    const ms = await h.fake.waitForChat((ms) => ms.filter((m) => m.from?.is_bot === true && m.text?.includes('State:')).length === 2);
    expect(ms.filter((m) => m.from?.is_bot === true && !m.text?.includes('State:')).map((m) => m.text)).toEqual([]);
    expect((await messageRows(db, { sessionId: sid })).map((r) => [r.text, r.originalText, r.sourceKey])).toEqual([
      ['straight to the CLI', null, `tg:${ADA}:${sent.message.message_id}`],
    ]);
  });
});
