import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InlineKeyboardMarkup, Message } from '@grammyjs/types';
import { describe, expect, it } from 'vitest';
import type { Db } from '@bria/core/services';
import { messageRows, seedChat, voiceNoteRows } from '@bria/testkit/bot-fixtures';
import { type Harness, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

// Without BRIA_TRANSCRIBE_URL a voice note is still never "not supported": it is kept with the
// session as audio, the reply says how to turn transcription on, and it can go to the CLI as a file.
let db: Db;
let h: Harness;
const ADA = 100200300;
const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../test-support/fixtures/voice-note.ogg');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const buttons = (m: Message | undefined) =>
  ((m?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat() as { text: string; callback_data: string }[];

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

describe('a Telegram voice note without a transcription service', () => {
  it('is kept as audio for the session and the reply says how to turn transcription on; audio messages too', async () => {
    const nodeId = await seedNode(db);
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: sid } });
    const fixture = await readFile(FIXTURE);
    h.fake.userSendsMedia('voice', fixture);
    const ms = await h.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot && m.text?.startsWith('Voice note kept')), { chatId: ADA });
    const shown = ms.find((m) => m.from?.is_bot && m.text?.startsWith('Voice note kept'));
    expect(shown?.text).toBe(
      'Voice note kept with the session as an audio file (1 KB). Transcription is off: set BRIA_TRANSCRIBE_URL (and BRIA_TRANSCRIBE_KEY for OpenAI) where Bria runs and restart it; see docs/voice.md.',
    );
    expect(buttons(shown).map((b) => b.text)).toEqual(['Send as file', 'Cancel']);
    expect(ms.some((m) => m.text?.includes('cannot carry'))).toBe(false);
    const [note] = await voiceNoteRows(db, { sessionId: sid });
    expect([note?.state, note?.sha256, sha(await readFile(note?.path ?? ''))]).toEqual(['kept', sha(fixture), sha(fixture)]);
    expect(await messageRows(db, { sessionId: sid })).toEqual([]);

    h.fake.userSendsMedia('audio', Buffer.from('ID3 not really an mp3'));
    await h.fake.waitForChat((ms) => ms.filter((m) => m.from?.is_bot && m.text?.startsWith('Voice note kept')).length === 2, { chatId: ADA });
    expect((await voiceNoteRows(db, { sessionId: sid })).map((n) => n.mime)).toEqual(['audio/ogg', 'audio/mpeg']);
  });
});
