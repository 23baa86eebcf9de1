import type { Message, MessageEntity } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procAlive, waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';

// The Telegram chat end to end over the real system: the bot process, the hub and engine, a real
// node agent running the real Claude Code against the mock model server. One system for the file;
// the tests run in order and build on each other like one user's afternoon.
let w: World;
beforeAll(async () => {
  w = await startWorld({ executors: ['claude', 'codex'] });
});
afterAll(async () => {
  await w?.dispose();
});

const kinds = (m: Message) => (m.entities ?? []).map((e: MessageEntity) => e.type);
let sessionId = '';
let native = '';
let folder = '';

describe('Claude Code from the Telegram chat', () => {
  it('/new → executor → folder: Starting card, the CLI really starts, the same card becomes Ready', async () => {
    folder = w.sys.folder('tg-claude');
    const r = await w.newSession('claude', folder);
    sessionId = r.sessionId;
    expect(r.card.text).toContain('Claude Code · node-1');
    expect(r.card.text).toMatch(/State: (starting|ready)/);
    const ready = await w.waitCard((t) => t.includes('State: ready'));
    // Edited in place: the Ready card is the Starting card's message.
    expect(ready.message_id).toBe(r.card.message_id);
    expect(w.buttons(ready).map((b) => b.text)).toContain('Close');
    const row = await w.sys.session(sessionId);
    expect([row.executor, row.folder, row.state]).toEqual(['claude', folder, 'Ready']);
    native = row.nativeSessionId as string;
    expect(native).toBeTruthy();
    const ident = await w.sys.identity(sessionId);
    expect(procAlive(ident.cliPid)).toBe(true);
    expect(w.sys.paneDead(ident.paneId)).toBe(false);
    expect(await w.sys.db.session.count()).toBe(1);
  });

  it('Markdown-heavy text: acknowledged, the final is a NEW rendered message, exactly once', async () => {
    const card = await w.card();
    const text = 'Please check **bold words**, _italics_, `inline <code>` and this:\n```ts\nconst a = 1 < 2 && "x";\n```\n- one\n- two & three';
    const sent = w.say(text);
    await waitUntil('the 👀 reaction', async () => w.fake.reactions(w.userId, sent.message_id).length > 0, 15_000);
    const final = await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('MOCK-REPLY') ?? false), 60_000);
    expect(final.text).toContain('bold words');
    expect(final.text).not.toContain('**');
    expect(final.text).toContain('const a = 1 < 2 && "x";');
    expect(kinds(final)).toEqual(expect.arrayContaining(['bold', 'italic', 'code', 'pre']));
    // The card was not turned into the answer.
    expect((await w.card()).message_id).toBe(card.message_id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.botMessagesAfter(sent.message_id, (m) => m.text?.includes('MOCK-REPLY') ?? false)).toHaveLength(1);
    const [msg] = await w.sys.messages(sessionId);
    expect(msg?.status).toBe('completed');
    expect(w.sys.turns('claude', native).filter((r) => (r.userText ?? '').includes('bold words'))).toHaveLength(1);
  });

  it('an answer over 4096 characters arrives split in order, each part within the limit, once', async () => {
    // A user's message is at most 4096 characters; the echo's prefix takes the answer past the limit.
    const para = (i: number) => `Paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(30)}`.trim();
    let text = '';
    for (let i = 1; text.length < 4090; i++) text += `${para(i)}\n\n`;
    text = text.slice(0, 4090).trim();
    const sent = w.say(text);
    await w.sys.waitMessages(sessionId, (st) => st.length === 2 && st[1] === 'completed', 60_000);
    const parts = await waitUntil(
      'two final parts',
      async () => {
        const got = w.botMessagesAfter(sent.message_id, (m) => !m.reply_markup);
        return got.length >= 2 ? got : null;
      },
      15_000,
    ).catch((err: Error) => {
      const got = w.botMessagesAfter(sent.message_id).map((m) => [m.text?.length, m.text?.slice(0, 60), m.text?.slice(-60)]);
      throw new Error(`${err.message}; the chat shows ${JSON.stringify(got)}`);
    });
    await new Promise((r) => setTimeout(r, 1500));
    const all = w.botMessagesAfter(sent.message_id, (m) => !m.reply_markup);
    expect(all.map((m) => m.message_id)).toEqual(parts.map((m) => m.message_id));
    expect(all).toHaveLength(2);
    for (const p of all) expect([...(p.text ?? '')].length).toBeLessThanOrEqual(4096);
    const joined = all.map((m) => m.text).join('\n');
    expect(joined.replace(/\s+/g, '')).toContain(text.replace(/\s+/g, ''));
    expect(all[0]?.text).toMatch(/^MOCK-REPLY-\d+/);
  });

  it('Telegram answering 429 (retry_after) and then 502 to the final: it still arrives exactly once', async () => {
    w.fake.failNext('sendMessage', { code: 429, retryAfter: 2 });
    w.fake.failNext('sendMessage', { code: 502 });
    const sent = w.say('rate limited answer please');
    const final = await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('rate limited answer please') ?? false), 60_000);
    const tries = w.fake.calls('sendMessage').filter((c) => String(c.params.text ?? '').includes('rate limited answer please'));
    expect(tries.map((c) => c.status)).toEqual([429, 502, 200]);
    // The retry waited out retry_after.
    expect((tries[1]?.at ?? 0) - (tries[0]?.at ?? 0)).toBeGreaterThanOrEqual(1900);
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.botMessagesAfter(sent.message_id, (m) => m.text?.includes('rate limited answer please') ?? false).map((m) => m.message_id)).toEqual([
      final.message_id,
    ]);
    await w.waitCard((t) => t.includes('State: ready'), 15_000);
  });

  it("Telegram refusing the final as malformed markup (400 can't parse entities): it arrives once, as plain text", async () => {
    w.fake.failNext('sendMessage', {
      code: 400,
      description: 'Bad Request: can\'t parse entities: Can\'t find end tag corresponding to start tag "b" at byte offset 12',
    });
    const sent = w.say('refused markup with **strong words** please');
    const final = await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('refused markup with') ?? false), 60_000);
    const tries = w.fake.calls('sendMessage').filter((c) => String(c.params.text ?? '').includes('refused markup with'));
    expect(tries.map((c) => [c.status, c.params.parse_mode])).toEqual([
      [400, 'HTML'],
      [200, undefined],
    ]);
    // The words arrive without formatting: no markup characters, no entities.
    expect(final.text).toContain('strong words');
    expect(final.text).not.toMatch(/<\/?b>|\*\*/);
    expect(kinds(final)).not.toContain('bold');
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.botMessagesAfter(sent.message_id, (m) => m.text?.includes('refused markup with') ?? false).map((m) => m.message_id)).toEqual([final.message_id]);
    const rows = (await w.sys.outbox(sessionId)).filter((r) => r.kind === 'final' && JSON.stringify(r.payload).includes('refused markup with'));
    expect(rows.map((r) => [r.status, r.externalId])).toEqual([['sent', String(final.message_id)]]);
    await w.waitCard((t) => t.includes('State: ready'), 15_000);
  });

  it('a stranger gets one polite refusal and nothing else; nothing is stored', async () => {
    const stranger = { userId: 5550001, firstName: 'Eve', languageCode: 'en' };
    w.fake.userSends('/start', stranger);
    w.fake.userSends('hello there', stranger);
    await w.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot), { chatId: stranger.userId, timeoutMs: 10_000 });
    await expect.poll(() => w.fake.pendingUpdates(), { timeout: 10_000 }).toBe(0);
    await new Promise((r) => setTimeout(r, 1000));
    // One a day, however often they write (SPEC: one polite refusal and nothing else).
    const got = w.fake.chatMessages(stranger.userId).filter((m) => m.from?.is_bot);
    expect(got.map((m) => m.text)).toEqual(['Sorry, this is a private bot. It only answers its owner.']);
    expect(got.every((m) => !m.reply_markup)).toBe(true);
    expect(await w.sys.db.telegramChat.count({ where: { chatId: BigInt(stranger.userId) } })).toBe(0);
    expect(await w.sys.db.message.count({ where: { text: 'hello there' } })).toBe(0);
  });

  it('/status shows the native id, node, executor, state and queue', async () => {
    const from = w.lastId();
    w.say('/status');
    const st = await w.waitFor((m) => m.message_id > from && (m.text?.includes('Native id') ?? false));
    expect(st.text).toContain(`Native id: ${native}`);
    expect(st.text).toContain('Claude Code · node-1');
    expect(st.text).toContain('State: ready');
    expect(st.text).toContain('Queue: 0 waiting');
    expect(st.text).toMatch(/Time left: 1[12] h/);
  });
});

describe('Claude Code lifecycle from the card', () => {
  it('Stop during a slow answer: the CLI confirms, the card is Ready again, the next message continues the same native session', async () => {
    const pid = (await w.sys.identity(sessionId)).cliPid;
    const sent = w.say('SLOW please tell a long story');
    const req = await w.sys.mocks.claude.waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').includes('SLOW please tell'), 20_000);
    const working = await w.waitCard((t) => t.includes('State: working'));
    await new Promise((r) => setTimeout(r, 500));
    const { callbackQueryId } = w.press(working, 'Stop');
    await w.callbackAnswer(callbackQueryId);
    const ready = await w.waitCard((t) => t.includes('State: ready'), 30_000);
    expect(ready.message_id).toBe(working.message_id);
    await waitUntil('the model stream cut by the CLI', async () => req.clientClosed, 5000);
    expect((await w.sys.messages(sessionId)).at(-1)?.status).toBe('terminal_failed');
    expect((await w.sys.evidence(sessionId)).some((e) => e.event === 'interrupt_confirmed')).toBe(true);
    // The interrupted answer never arrives as a complete final; the message gets its outcome instead, once, as a reply.
    expect(w.botMessagesAfter(sent.message_id, (m) => m.text?.includes('[40/40]') ?? false)).toHaveLength(0);
    const stoppedNotice = await w.waitFor((m) => m.reply_to_message?.message_id === sent.message_id, 15_000);
    expect(stoppedNotice.text).toBe('Stopped: this message got no answer.');

    const next = w.say('after the stop, continue');
    const final = await w.waitFor((m) => m.message_id > next.message_id && (m.text?.includes('after the stop, continue') ?? false), 60_000);
    expect(final.text).toMatch(/^MOCK-REPLY-\d+/);
    const turns = w.sys.turns('claude', native).filter((r) => (r.userText ?? '').includes('after the stop, continue'));
    const anywhere = w.sys
      .allTurns('claude')
      .filter((r) => (r.userText ?? '').includes('after the stop, continue'))
      .map((r) => r.sessionId);
    expect(turns, `native ${native}; the model saw it under ${JSON.stringify(anywhere)}`).toHaveLength(1);
    // Same native session (the CLI's session header) with the earlier conversation in its context.
    expect(JSON.stringify(turns[0]?.body)).toContain('bold words');
    expect((await w.sys.identity(sessionId)).cliPid).toBe(pid);
    expect(procAlive(pid)).toBe(true);
    await w.waitCard((t) => t.includes('State: ready'), 15_000);
  });

  it('a CLI crash mid-answer: the same native session comes back, and the interrupted message gets one notice, as a reply to it', async () => {
    const sent = w.say('SLOW a story cut short by a crash');
    await w.sys.mocks.claude.waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').includes('a story cut short by a crash'), 20_000);
    await waitUntil('the message accepted', async () => (await w.sys.messages(sessionId)).at(-1)?.status === 'accepted', 20_000);
    const killed = await w.sys.killCli(sessionId);
    const notice = await w.waitFor((m) => m.reply_to_message?.message_id === sent.message_id, 45_000);
    expect(notice.text).toMatch(/^No answer to this message: the agent's CLI stopped unexpectedly/);
    expect((await w.sys.messages(sessionId)).at(-1)?.status).toBe('unknown');
    await w.waitCard((t) => t.includes('State: ready'), 60_000);
    expect((await w.sys.session(sessionId)).nativeSessionId).toBe(native);
    expect((await w.sys.identity(sessionId)).cliPid).not.toBe(killed);
    // Nothing was typed again, and the notice is not repeated by later re-checks.
    expect(w.sys.turns('claude', native).filter((r) => (r.userText ?? '').includes('a story cut short by a crash'))).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.botMessagesAfter(sent.message_id, (m) => m.reply_to_message?.message_id === sent.message_id)).toHaveLength(1);
  });

  it('a button of an older card is out of date, acts on nothing, and the current card is refreshed', async () => {
    const old = await w.card();
    const from = w.lastId();
    w.say('/start');
    const fresh = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Claude Code · node-1') ?? false));
    expect(fresh.message_id).not.toBe(old.message_id);
    // The older card is edited once to say it is no longer current, and loses its buttons.
    const superseded = await w.waitFor((m) => m.message_id === old.message_id && (m.text?.startsWith('Earlier card: ') ?? false), 15_000);
    expect(w.buttons(superseded)).toEqual([]);
    const editsBefore = w.fake.calls('editMessageText').length;
    // A press that raced that edit (its keyboard was still on the user's screen).
    const close = w.buttons(old).find((b) => b.text === 'Close');
    if (!close) throw new Error('the older card had no Close button');
    const { callbackQueryId } = w.fake.userPresses(old.message_id, close.callback_data, { force: true });
    expect((await w.callbackAnswer(callbackQueryId)).text).toBe('This button is out of date.');
    await waitUntil(
      'the current card refreshed',
      async () =>
        w.fake
          .calls('editMessageText')
          .slice(editsBefore)
          .some((c) => Number(c.params.message_id) === fresh.message_id),
      10_000,
    );
    expect((await w.card()).message_id).toBe(fresh.message_id);
    expect((await w.card()).text).not.toContain('Close this session?');
    expect((await w.sys.session(sessionId)).state).toBe('Ready');
  });
});
