import type { Update } from '@grammyjs/types';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { Api } from 'grammy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBot } from '../../apps/bot/src/bot.ts';
import { coreActions } from '../../apps/bot/src/core-actions.ts';
import { OutboxSender } from '../../apps/bot/src/outbox/outbox-sender.ts';
import { openDatabase, scratchAttachmentsDir, seedNode, seedSession } from '../../apps/bot/test-support/bot-harness.ts';
import { createLogger } from '@bria/core/log';
import { closeDb, type Db } from '@bria/core/services';
import { countChats, outboxRows, seedChat } from '@bria/testkit/bot-fixtures';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import type { TestDatabase } from '@bria/testkit/postgres';
import { count, fuzzCounts, fuzzParams, fuzzTimeoutMs } from './fuzz-config.ts';

/**
 * Random, malformed and hostile Telegram updates into the real bot (grammY long polling against the
 * fake Bot API, a real test Postgres, the real outbox sender). After every batch: the bot still
 * polls and answers (a /status sent afterwards gets its reply); nothing from a user who is not
 * allow-listed or from a non-private chat is stored or answered with data (a stranger gets at most
 * the one-line refusal, a group or channel nothing at all); every such update is a logged refusal
 * (one log line each, with the kind the bot gives it); every button press is answered; no update
 * fails the bot's error boundary; heap growth stays under 200 MB.
 */
const ADA = 100200300;
const BOT_NAME = 'bria_test_bot';

type LogLine = { level: number; msg: string; [k: string]: unknown };
const logs: LogLine[] = [];
const log = createLogger({
  name: 'bot-fuzz',
  level: 'debug',
  destination: { write: (s: string) => logs.push({ ...(JSON.parse(s) as LogLine), raw: s }) } as unknown as NodeJS.WritableStream,
});
const unhandled: unknown[] = [];
// The heap after a full collection, so the bound measures what is kept, not garbage not yet collected.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapKept = (): number => {
  gc();
  return process.memoryUsage().heapUsed;
};
const onUnhandled = (e: unknown) => unhandled.push(e);

let testDatabase: TestDatabase;
let db: Db;
let fake: FakeTelegram;
let stopBot: () => Promise<void>;
let sessionId: string;
let otherSessionId: string;
const strangers = new Set<number>();
/** Callback query ids by who pressed: Ada's must be answered; the others' answered without text. */
const adaQueries = new Set<string>();
const refusedQueries = new Set<string>();
let nextQueryId = 1;

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  ({ testDatabase, db } = await openDatabase());
  const nodeId = await seedNode(db, { name: 'laptop' });
  sessionId = await seedSession(db, { nodeId, state: 'Ready', title: 'fuzzed' });
  otherSessionId = await seedSession(db, { nodeId, state: 'Archived', title: 'someone else' });
  await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId } });
  fake = await startFakeTelegram({ user: { id: ADA, firstName: 'Ada', username: 'ada', languageCode: 'en' } });
  const sender = new OutboxSender({ api: new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 5 }), db, log, pollMs: 50, leaseMs: 10_000 });
  const actions = coreActions({ db, log, publicUrl: 'http://127.0.0.1:3999', attachmentsDir: scratchAttachmentsDir() });
  const bot = createBot(
    fake.token,
    { db, log, allowedUsers: new Set([ADA]), apiRoot: fake.apiRoot, actions, wakeOutbox: () => sender.wake() },
    { client: { apiRoot: fake.apiRoot } },
  );
  await bot.init();
  const polling = bot.start({ timeout: 1 }).catch((e: unknown) => unhandled.push(e));
  sender.start();
  stopBot = async () => {
    await Promise.allSettled([bot.stop(), sender.stop()]);
    await polling;
    await fake.close();
  };
});
afterAll(async () => {
  await stopBot?.();
  process.off('unhandledRejection', onUnhandled);
  if (db) await closeDb(db);
  await testDatabase?.drop();
});

// Texts: random Unicode, with the characters that break things mixed in, up to past Telegram's cap.
const nasty = fc.constantFrom(
  '\u0000',
  '\ud800',
  '\udfff',
  '\u202e',
  '\u200f',
  '\u200b',
  '\ufeff',
  '🙂',
  '<b>',
  '&amp;',
  '</pre>',
  '\n',
  '`',
  '%s',
  '$' + '{x}',
);
const unicodeText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.array(fc.oneof(nasty, fc.string({ unit: 'grapheme', maxLength: 8 })), { maxLength: 40 }).map((a) => a.join('')),
  fc.integer({ min: 4_090, max: 9_000 }).chain((n) => fc.constantFrom('x', 'ж', '🙂', '\u0000').map((c) => c.repeat(n))),
);
const commandName = fc.oneof(
  fc.constantFrom('new', 'status', 'archive', 'stop', 'close', 'start', 'sessions', 'nodes', 'compact', 'settings', 'login'),
  fc.stringMatching(/^[a-z_0-9]{1,40}$/),
);
const commandText = fc
  .tuple(commandName, fc.constantFrom('', `@${BOT_NAME}`, '@other_bot'), fc.constantFrom('', ' '), unicodeText)
  .map(([c, at, sep, args]) => `/${c}${at}${sep}${args}`);
const anyText = fc.oneof(unicodeText, commandText);

// Button data: the bot's own shapes (action:gen:session:version:arg) with wrong, foreign or forged parts, and noise.
const ACTIONS = [
  'stop',
  'close',
  'closeYes',
  'closeNo',
  'open',
  'sessions',
  'new',
  'node',
  'exec',
  'folder',
  'resume',
  'fresh',
  'cancel',
  'arch',
  'set',
  'refresh',
  'fnode',
  'pmode',
  'pmodel',
];
const idPart = fc.oneof(
  fc.uuid(),
  fc.constant('SESSION'),
  fc.constant('OTHER'),
  fc.constant(''),
  fc.string({ maxLength: 40 }),
  fc.constant('\'; drop table "Session"; --'),
);
const callbackData = fc.oneof(
  fc
    .tuple(
      fc.oneof(fc.constantFrom(...ACTIONS), fc.string({ maxLength: 10 })),
      fc.oneof(fc.nat({ max: 5 }), fc.integer(), fc.constant(999_999_999)).map(String),
      idPart,
      fc.oneof(fc.constant(''), fc.nat().map(String), fc.string({ maxLength: 5 })),
      fc.oneof(fc.constant(''), fc.string({ maxLength: 30 }), fc.constantFrom('claude', 'codex', '/etc', '..', 'bypassPermissions')),
    )
    .map((parts) =>
      parts
        .join(':')
        .replace('SESSION', () => sessionId)
        .replace('OTHER', () => otherSessionId),
    ),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ minLength: 65, maxLength: 300 }),
);

type Audience = 'ada' | 'stranger' | 'ignored';
/** `build` returns the update to inject, or nothing when a fake client helper already queued it. */
type Spec = { audience: Audience; build: () => Record<string, unknown> | undefined };

const now = () => Math.floor(Date.now() / 1000);
const privateChat = (id: number) => ({ id, type: 'private' as const, first_name: 'X' });
const userOf = (id: number, lang?: string) => ({ id, is_bot: false, first_name: 'X', ...(lang ? { language_code: lang } : {}) });
const strangerId = fc.integer({ min: 1, max: 2 ** 40 }).filter((id) => id !== ADA);
const groupChat = fc.oneof(
  fc.record({ id: fc.integer({ min: -(2 ** 40), max: -1 }), type: fc.constantFrom('group' as const, 'supergroup' as const), title: fc.string() }),
  fc.integer({ min: -(2 ** 40), max: -1 }).map((id) => ({ id, type: 'channel' as const, title: 'c' })),
);
const messageId = fc.oneof(fc.nat({ max: 50 }), fc.integer(), fc.constant(2 ** 31 - 1));
const fileMeta = fc.record({
  file_id: fc.oneof(fc.string({ maxLength: 80 }), fc.constant('')),
  file_unique_id: fc.string({ maxLength: 20 }),
  file_size: fc.oneof(fc.integer(), fc.constant(2 ** 53), fc.constant(-1)),
  file_name: fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.constantFrom('../../etc/passwd', 'a\u0000.txt', '.', '', 'CON', `${'a'.repeat(5000)}.pdf`),
  ),
  mime_type: fc.oneof(fc.string({ maxLength: 100 }), fc.constantFrom('application/x-sh', 'image/png', 'text/plain; charset=evil', '')),
});

/** An injected message of any content, for Ada, a stranger or a group. */
function rawMessage(chat: object, from: object | undefined, content: Record<string, unknown>, id: number): Record<string, unknown> {
  return { message_id: id, date: now(), chat, ...(from ? { from } : {}), ...content };
}

const content = fc.oneof(
  anyText.map((text) => ({ text })),
  fileMeta.map((document) => ({ document, caption: 'doc' })),
  fc
    .array(
      fileMeta.map((f) => ({ ...f, width: -1, height: 2 ** 31 })),
      { maxLength: 3 },
    )
    .map((photo) => ({ photo })),
  fileMeta.map((f) => ({ voice: { ...f, duration: -5 } })),
  fc.constant({}),
  fc.constant({ text: '' }),
  fc.object({ maxDepth: 1 }).map((o) => ({ future_field: o })),
);

const spec: fc.Arbitrary<Spec> = fc.oneof(
  // Ada, through the fake's own client helpers (valid texts, real files with hostile metadata, edits).
  anyText.filter((t) => t.trim() !== '' && [...t].length <= 4096).map((text) => ({ audience: 'ada' as const, build: () => void fake.userSends(text) })),
  fc.tuple(fc.uint8Array({ maxLength: 64 }), fileMeta).map(([bytes, m]) => ({
    audience: 'ada' as const,
    build: () => void fake.userSendsDocument(bytes, m.file_name || 'x', m.mime_type || 'application/octet-stream', undefined),
  })),
  fc.constantFrom('voice', 'audio', 'video', 'video_note', 'sticker').map((kind) => ({
    audience: 'ada' as const,
    build: () => void fake.userSendsMedia(kind as 'voice', new Uint8Array([1, 2, 3])),
  })),
  fc
    .tuple(
      anyText,
      anyText.filter((t) => t.trim() !== '' && [...t].length <= 4096),
    )
    .map(([edit, first]) => ({
      audience: 'ada' as const,
      build: () => void fake.userEdits(fake.userSends(first).message.message_id, edit),
    })),
  // Ada, injected: anything a message can hold, edited messages, forged button data.
  fc.tuple(content, messageId).map(([c, id]) => ({
    audience: 'ada' as const,
    build: () => ({ message: rawMessage(privateChat(ADA), userOf(ADA), c, id) }),
  })),
  fc.tuple(content, messageId).map(([c, id]) => ({
    audience: 'ada' as const,
    build: () => ({ edited_message: rawMessage(privateChat(ADA), userOf(ADA), { ...c, edit_date: now() }, id) }),
  })),
  fc.tuple(callbackData, messageId).map(([data, id]) => ({
    audience: 'ada' as const,
    build: () => {
      const qid = `fz${nextQueryId++}`;
      adaQueries.add(qid);
      return {
        callback_query: {
          id: qid,
          from: userOf(ADA),
          chat_instance: '1',
          data,
          message: rawMessage(privateChat(ADA), userOf(fake.me.id), { text: 'card' }, id),
        },
      };
    },
  })),
  // A press on an inline message (no chat): ignored like a group's, answered with nothing.
  callbackData.map((data) => ({
    audience: 'ignored' as const,
    build: () => {
      const qid = `fz${nextQueryId++}`;
      refusedQueries.add(qid);
      return { callback_query: { id: qid, from: userOf(ADA), chat_instance: '1', data, inline_message_id: 'x' } };
    },
  })),
  // Strangers in their own private chats: messages, commands, edits, presses of forged or real-looking buttons.
  fc.tuple(strangerId, fc.constantFrom(undefined, 'en', 'ru', 'xx'), content, messageId).map(([id, lang, c, mid]) => ({
    audience: 'stranger' as const,
    build: () => {
      strangers.add(id);
      return { message: rawMessage(privateChat(id), userOf(id, lang), c, mid) };
    },
  })),
  fc
    .tuple(
      strangerId,
      anyText.filter((t) => t.trim() !== '' && [...t].length <= 4096),
    )
    .map(([id, text]) => ({
      audience: 'stranger' as const,
      build: () => {
        strangers.add(id);
        fake.userSends(text, { userId: id });
        return undefined;
      },
    })),
  fc.tuple(strangerId, content).map(([id, c]) => ({
    audience: 'stranger' as const,
    build: () => {
      strangers.add(id);
      return { edited_message: rawMessage(privateChat(id), userOf(id), { ...c, edit_date: now() }, 1) };
    },
  })),
  fc.tuple(strangerId, callbackData).map(([id, data]) => ({
    audience: 'stranger' as const,
    build: () => {
      strangers.add(id);
      const qid = `fz${nextQueryId++}`;
      refusedQueries.add(qid);
      return {
        callback_query: { id: qid, from: userOf(id), chat_instance: '2', data, message: rawMessage(privateChat(id), userOf(fake.me.id), { text: 'card' }, 1) },
      };
    },
  })),
  // Ada (or a stranger) in a group, a supergroup or a channel; channel posts; presses in a group.
  fc.tuple(groupChat, fc.oneof(fc.constant(ADA), strangerId), content).map(([chat, id, c]) => ({
    audience: 'ignored' as const,
    build: () => ({ message: rawMessage(chat, userOf(id), c, 1) }),
  })),
  fc.tuple(groupChat, content).map(([chat, c]) => ({
    audience: 'ignored' as const,
    build: () => ({ channel_post: rawMessage({ ...chat, type: 'channel' }, undefined, c, 1) }),
  })),
  fc.tuple(groupChat, callbackData).map(([chat, data]) => ({
    audience: 'ignored' as const,
    build: () => {
      const qid = `fz${nextQueryId++}`;
      refusedQueries.add(qid);
      return { callback_query: { id: qid, from: userOf(ADA), chat_instance: '3', data, message: rawMessage(chat, userOf(fake.me.id), { text: 'card' }, 1) } };
    },
  })),
  // Missing fields: no `from` in Ada's chat, Ada writing in someone else's private chat, kinds the bot has no handler for.
  content.map((c) => ({ audience: 'ignored' as const, build: () => ({ message: rawMessage(privateChat(ADA), undefined, c, 1) }) })),
  fc
    .tuple(strangerId, content)
    .map(([id, c]) => ({ audience: 'ignored' as const, build: () => ({ message: rawMessage(privateChat(id), userOf(ADA), c, 1) }) })),
  fc
    .tuple(fc.constantFrom('future_update_kind', 'poll', 'inline_query', 'chosen_inline_result', 'shipping_query'), fc.jsonValue({ maxDepth: 2 }))
    .map(([kind, value]) => ({
      audience: 'ignored' as const,
      build: () =>
        (kind === 'inline_query' ? { inline_query: { id: 'q', from: userOf(ADA), query: String(value), offset: '' } } : { [kind]: value }) as Omit<
          Update,
          'update_id'
        >,
    })),
);

const REFUSED = 'refused a user who is not allow-listed';
const IGNORED = 'ignored an update that is not from a private chat';
const REFUSAL_TEXTS = ['Sorry, this is a private bot. It only answers its owner.', 'Извините, это личный бот. Он отвечает только своему владельцу.'];

/** Sends /status as Ada and waits until its reply is in the chat: the bot still polls, handles and sends. */
async function statusAnswered(): Promise<void> {
  const sent = fake.userSends('/status');
  const key = `bot:${ADA}:${sent.update.update_id}:m${sent.message.message_id}:`;
  await expect
    .poll(async () => (await outboxRows(db, { dedupeKey: { startsWith: key } })).map((r) => r.status), { timeout: 30_000, interval: 50 })
    .toEqual(['sent']);
  const replies = fake.chatMessages(ADA).filter((m) => m.from?.is_bot && m.message_id > sent.message.message_id);
  expect(replies.some((m) => /Queue: \d+ waiting|No active session\./.test(m.text ?? ''))).toBe(true);
}

/** One batch, then the invariants (module level so the property stays readable). */
async function checkBatch(batch: Spec[], shown: string[]): Promise<void> {
  const logsBefore = logs.length;
  const callsBefore = fake.calls().length;
  for (const s of batch) {
    const update = s.build();
    if (update) fake.injectUpdate(update as Omit<Update, 'update_id'>);
    shown.push(update ? JSON.stringify(update).slice(0, 400) : `${s.audience}: through a fake client helper`);
    count(`updates: ${s.audience}`);
  }
  // Updates are handled one after another: once /status is answered, the batch was handled.
  await statusAnswered();
  const fresh = logs.slice(logsBefore);
  // One logged refusal per stranger's update, one "ignored" line per group, channel or chat-less update.
  expect(
    fresh.filter((l) => l.msg === REFUSED),
    JSON.stringify(fresh.filter((l) => l.level >= 30)),
  ).toHaveLength(batch.filter((s) => s.audience === 'stranger').length);
  expect(fresh.filter((l) => l.msg === IGNORED)).toHaveLength(batch.filter((s) => s.audience === 'ignored').length);
  // No update got past the error boundary (it would have been logged, and apologised for).
  const failed = fresh.filter((l) => l.msg === 'update failed');
  expect(failed, JSON.stringify(failed)).toEqual([]);
  // Nothing sent anywhere but Ada's chat, except the stranger's one-line refusal (no buttons, no data).
  for (const c of fake.calls().slice(callsBefore)) {
    const chatId = c.params.chat_id;
    if (chatId === undefined || Number(chatId) === ADA) continue;
    expect(c.method).toBe('sendMessage');
    expect(strangers.has(Number(chatId))).toBe(true);
    expect(REFUSAL_TEXTS).toContain(c.params.text);
    expect(c.params.reply_markup).toBeUndefined();
    count('stranger refusals sent');
  }
  // The test's own log copy is not the bot's memory.
  logs.length = 0;
}

describe('Telegram updates into the bot', () => {
  it(
    'never crash it or stop its polling; strangers, groups and channels get nothing stored and at most the refusal',
    async () => {
      await statusAnswered();
      const heapBefore = heapKept();
      await fc.assert(
        fc.asyncProperty(fc.array(spec, { minLength: 1, maxLength: 6 }), async (batch) => {
          const shown: string[] = [];
          try {
            await checkBatch(batch, shown);
          } catch (e) {
            console.error(`[fuzz] telegram updates: the batch\n${shown.join('\n')}\nfailed: ${e instanceof Error ? e.message : String(e)}`);
            throw e;
          }
        }),
        fuzzParams('telegram updates'),
      );
      // Nothing stored for anyone but Ada: one chat row, and every outbox row is hers.
      expect(await countChats(db)).toBe(1);
      const rows = await outboxRows(db);
      expect(rows.filter((r) => r.chatId !== BigInt(ADA))).toEqual([]);
      count('outbox rows (all Ada)', rows.length);
      // Every press was answered: Ada's (out of date, or by the feature), the others' with no text.
      const answers = new Map(fake.callbackAnswers().map((a) => [a.callbackQueryId, a]));
      for (const id of adaQueries) {
        expect(answers.has(id), id).toBe(true);
        count(answers.get(id)?.text === 'This button is out of date.' ? "Ada's presses: out of date" : "Ada's presses: acted on or answered otherwise");
      }
      for (const id of refusedQueries) expect(answers.get(id)?.text, id).toBeUndefined();
      count('button presses answered', adaQueries.size + refusedQueries.size);
      expect(unhandled).toEqual([]);
      const growth = heapKept() - heapBefore;
      console.log(`[fuzz] telegram updates: heap growth ${(growth / 2 ** 20).toFixed(1)} MB; counts ${JSON.stringify(fuzzCounts)}`);
      expect(growth).toBeLessThan(200 * 2 ** 20);
    },
    fuzzTimeoutMs(),
  );
});
