import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InlineKeyboardMarkup, Message } from '@grammyjs/types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '@bria/core/log';
import type { Db } from '@bria/core/services';
import { messageRows, seedChat, voiceNoteRows } from '@bria/testkit/bot-fixtures';
import { type FakeTranscribe, oggOpusSilence, readOggPages, startFakeTranscribe } from '@bria/testkit/fake-transcribe';
import { createBot } from './bot.ts';
import { coreActions } from './core-actions.ts';
import { type Harness, scratchAttachmentsDir, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

// Issue 34 from Telegram: a real OGG/Opus voice note goes through the fake Bot API (getFile and the
// download), is kept with the session, is transcribed by the fake OpenAI-compatible service and waits
// for Send / Edit / Cancel; every outcome is checked in the rows, the stored file and the fake's log.
let db: Db;
let h: Harness;
let stt: FakeTranscribe | undefined;
const ADA = 100200300;
const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../test-support/fixtures/voice-note.ogg');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const buttons = (m: Message | undefined) =>
  ((m?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat() as { text: string; callback_data: string }[];
const botMessage = (prefix: string) => (ms: Message[]) => ms.findLast((m) => m.from?.is_bot === true && (m.text?.startsWith(prefix) ?? false));

beforeEach(async () => {
  stt = await startFakeTranscribe({ apiKey: 'sk-voice-test' });
});
afterEach(async () => {
  await stt?.close();
  stt = undefined;
});
useBotHarness(
  // 3 s: the hang case waits it out; the fake answers every other request at once.
  { allowed: [ADA], transcribe: () => (stt ? { baseUrl: stt.url, apiKey: 'sk-voice-test', model: 'whisper-1', timeoutMs: 3000 } : undefined) },
  (x) => {
    ({ db, h } = x);
  },
);

async function readySession(): Promise<string> {
  const nodeId = await seedNode(db);
  const sid = await seedSession(db, { nodeId, state: 'Ready' });
  await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: sid } });
  return sid;
}

async function waitBot(prefix: string): Promise<Message> {
  return botMessage(prefix)(await h.fake.waitForChat((ms) => botMessage(prefix)(ms) !== undefined, { chatId: ADA, timeoutMs: 15_000 })) as Message;
}

async function press(m: Message, label: string, o: { force?: boolean; data?: string } = {}): Promise<string | undefined> {
  const data = o.data ?? buttons(m).find((b) => b.text === label)?.callback_data;
  if (!data) throw new Error(`no button ${label}`);
  const { callbackQueryId } = h.fake.userPresses(m.message_id, data, { force: o.force ?? false });
  const call = await h.fake.waitForCall('answerCallbackQuery', (r) => (r.params as { callback_query_id?: string }).callback_query_id === callbackQueryId);
  return (call.params as { text?: string }).text;
}

/** The note the bot kept, and its stored file re-read: the audio is the fixture's bytes. */
async function keptAudio(sid: string, fixture: Buffer) {
  const [note] = await voiceNoteRows(db, { sessionId: sid });
  expect(note).toBeDefined();
  expect(note?.sha256).toBe(sha(fixture));
  expect(sha(await readFile(note?.path ?? ''))).toBe(sha(fixture));
  expect((await stat(note?.path ?? '')).size).toBe(fixture.length);
  return note as NonNullable<typeof note>;
}

describe('the voice note fixture', () => {
  it('is the hand-written OGG/Opus: OpusHead, OpusTags, 400 ms of frames, every page CRC-correct', async () => {
    const fixture = await readFile(FIXTURE);
    expect(fixture.equals(oggOpusSilence(400))).toBe(true);
    const pages = readOggPages(fixture);
    expect(pages.map((p) => [p.crcOk, p.packets[0]?.subarray(0, 8).toString('latin1')])).toEqual([
      [true, 'OpusHead'],
      [true, 'OpusTags'],
      [true, expect.any(String)],
    ]);
  });
});

describe('a Telegram voice note with a transcription service', () => {
  it('uploads the exact audio, shows the transcript, and Send queues it exactly once (double tap, restart)', async () => {
    const sid = await readySession();
    stt?.behave({ type: 'text', text: 'Fix the login bug on the settings page.' });
    const fixture = await readFile(FIXTURE);
    h.fake.userSendsMedia('voice', fixture);
    const shown = await waitBot('Transcript:');
    expect(shown.text).toBe('Transcript:\nFix the login bug on the settings page.\n\nSend it to the session as it is, edit it first, or cancel.');
    expect(buttons(shown).map((b) => b.text)).toEqual(['Send', 'Edit', 'Cancel']);
    const [req] = stt?.requests() ?? [];
    expect(req).toMatchObject({
      path: '/v1/audio/transcriptions',
      apiKey: 'sk-voice-test',
      model: 'whisper-1',
      responseFormat: 'json',
      mime: 'audio/ogg',
      size: fixture.length,
    });
    expect(req?.sha256).toBe(sha(fixture));
    expect(req?.fileName).toMatch(/^voice-\d+\.ogg$/);
    await keptAudio(sid, fixture);
    // Downloaded through the Bot API as a real bot does: getFile, then the file path Telegram gives voice notes.
    const got = h.fake.calls('getFile').at(-1)?.response as { result?: { file_path?: string } } | undefined;
    expect(got?.result?.file_path).toMatch(/^voice\/file_\d+\.oga$/);

    const sendData = buttons(shown).find((b) => b.text === 'Send')?.callback_data as string;
    const first = h.fake.userPresses(shown.message_id, sendData);
    const second = h.fake.userPresses(shown.message_id, sendData, { force: true });
    for (const q of [first, second])
      await h.fake.waitForCall('answerCallbackQuery', (r) => (r.params as { callback_query_id?: string }).callback_query_id === q.callbackQueryId);
    // A bot restarted before it confirmed the press sees the same update again.
    const log = createLogger({ name: 'bot-voice-2', level: 'silent' });
    const again = createBot(
      h.fake.token,
      {
        db,
        log,
        allowedUsers: new Set([ADA]),
        apiRoot: h.fake.apiRoot,
        actions: coreActions({ db, log, publicUrl: 'http://127.0.0.1:3999', attachmentsDir: scratchAttachmentsDir() }),
      },
      { client: { apiRoot: h.fake.apiRoot } },
    );
    await again.init();
    await again.handleUpdate(structuredClone(first.update));

    const rows = await messageRows(db, { sessionId: sid });
    expect(rows.map((r) => [r.text, r.sourceKey])).toEqual([['Fix the login bug on the settings page.', `voice:${(await keptAudio(sid, fixture)).id}`]]);
    expect(rows[0]?.attachments).toBeNull();
    expect((await voiceNoteRows(db, { sessionId: sid })).map((n) => [n.state, n.messageId])).toEqual([['sent', rows[0]?.id]]);
    const edited = await h.fake.waitForChat((ms) => ms.some((m) => m.message_id === shown.message_id && m.text?.startsWith('Sent to the queue (#1)')), {
      chatId: ADA,
    });
    expect(buttons(edited.find((m) => m.message_id === shown.message_id))).toEqual([]);
    expect(h.fake.callbackAnswers().map((a) => a.text)).toContain('Already sent.');
    expect(stt?.requests()).toHaveLength(1);
  });

  it('Edit takes the next text as the corrected transcript and queues that instead', async () => {
    const sid = await readySession();
    stt?.behave({ type: 'text', text: 'Fix the log in bug.' });
    const fixture = await readFile(FIXTURE);
    h.fake.userSendsMedia('voice', fixture);
    const shown = await waitBot('Transcript:');
    await press(shown, 'Edit');
    await waitBot('Send the corrected text');
    h.fake.userSends('Fix the login bug.');
    await waitBot('Sent to the queue (#1)');
    expect((await messageRows(db, { sessionId: sid })).map((r) => r.text)).toEqual(['Fix the login bug.']);
    const [note] = await voiceNoteRows(db, { sessionId: sid });
    expect([note?.state, note?.transcript]).toEqual(['sent', 'Fix the login bug.']);
    // The chat is back to normal: the next text is a message of its own.
    h.fake.userSends('and run the tests');
    await expect.poll(async () => (await messageRows(db, { sessionId: sid })).map((r) => r.text)).toEqual(['Fix the login bug.', 'and run the tests']);
  });

  it('Cancel drops the transcript; the audio stays stored and nothing is queued', async () => {
    const sid = await readySession();
    const fixture = await readFile(FIXTURE);
    h.fake.userSendsMedia('voice', fixture);
    const shown = await waitBot('Transcript:');
    expect(await press(shown, 'Cancel')).toBe('Transcript dropped. The recording stays stored with the session.');
    await h.fake.waitForChat((ms) => ms.some((m) => m.message_id === shown.message_id && m.text?.startsWith('Transcript dropped')), { chatId: ADA });
    expect(await messageRows(db, { sessionId: sid })).toEqual([]);
    expect((await keptAudio(sid, fixture)).state).toBe('cancelled');
  });

  const FAILURES = [
    {
      name: '401',
      behave: { type: 'fail', status: 401 },
      reply: 'Not transcribed: the transcription service refused the key. Check BRIA_TRANSCRIBE_KEY.',
      words: 'Incorrect API key',
    },
    {
      name: '413',
      behave: { type: 'fail', status: 413 },
      reply: 'Not transcribed: the recording is too large for the transcription service',
      words: 'Maximum content size',
    },
    { name: '503', behave: { type: 'fail', status: 503 }, reply: 'Not transcribed: the transcription service had an error on its side.', words: 'overloaded' },
    { name: 'timeout', behave: { type: 'hang' }, reply: 'Not transcribed: the transcription service did not answer in time.', words: null },
  ] as const;
  for (const f of FAILURES) {
    it(`${f.name}: the reply names it, the audio is kept, and it can go as a file`, async () => {
      const sid = await readySession();
      stt?.behave(f.behave);
      const fixture = await readFile(FIXTURE);
      h.fake.userSendsMedia('voice', fixture);
      const shown = await waitBot('Not transcribed:');
      expect(shown.text?.startsWith(f.reply)).toBe(true);
      if (f.words) expect(shown.text).toContain(`The service said: "`);
      if (f.words) expect(shown.text).toContain(f.words);
      expect(shown.text).toContain('The recording is kept with the session. You can send it to the CLI as a file');
      expect(buttons(shown).map((b) => b.text)).toEqual(['Send as file', 'Cancel']);
      const note = await keptAudio(sid, fixture);
      expect(note.state).toBe('failed');
      expect(await messageRows(db, { sessionId: sid })).toEqual([]);

      await press(shown, 'Send as file');
      await h.fake.waitForChat((ms) => ms.some((m) => m.message_id === shown.message_id && m.text === 'The recording went to the queue as a file (#1).'), {
        chatId: ADA,
      });
      const rows = await messageRows(db, { sessionId: sid });
      expect(rows).toHaveLength(1);
      expect(rows[0]?.attachments).toEqual([{ name: note.fileName, mime: 'audio/ogg', path: note.path, sizeBytes: fixture.length, sha256: sha(fixture) }]);
    });
  }
});
