import { describe, expect, it } from 'vitest';
import { createLogger } from '@bria/core/log';
import type { Db } from '@bria/core/services';
import { countMessages, countOutbox, seedChat } from '@bria/testkit/bot-fixtures';
import { createBot } from '../bot.ts';
import { coreActions } from '../core-actions.ts';
import { type Harness, scratchAttachmentsDir, seedNode, seedSession, useBotHarness } from '../../test-support/bot-harness.ts';

// Messages Bria cannot carry to a CLI get one reply, in the chat's language, through the outbox.
let db: Db;
let h: Harness;
const ADA = 100200300;
const IVAN = 4242;
const botTexts = (chatId: number) =>
  h.fake
    .chatMessages(chatId)
    .filter((m) => m.from?.is_bot)
    .map((m) => m.text ?? '');

useBotHarness({ allowed: [ADA, IVAN] }, (x) => {
  ({ db, h } = x);
});

describe('unsupported messages', () => {
  it('a video and a sticker each get one "not supported yet" reply; nothing reaches the session (voice has its own feature)', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, active: { nodeId, sessionId: sid } });
    const voice = h.fake.userSendsMedia('video', new Uint8Array([1, 2, 3]));
    await h.fake.waitForChat(
      (ms) => ms.some((m) => m.from?.is_bot && m.text === 'Not sent: Bria cannot carry videos to your computer yet. Send text, a photo or a file instead.'),
      { chatId: ADA },
    );
    h.fake.userSendsMedia('sticker', new Uint8Array([4]));
    await h.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot && m.text?.includes('cannot carry stickers')), { chatId: ADA });
    expect(await countMessages(db, { sessionId: sid })).toBe(0);

    // The same update again (Telegram redelivers after a restart): still one reply.
    const log = createLogger({ name: 'bot-test-2', level: 'silent' });
    const actions = coreActions({ db, log, publicUrl: 'http://127.0.0.1:3999', attachmentsDir: scratchAttachmentsDir() });
    const again = createBot(
      h.fake.token,
      { db, log, allowedUsers: new Set([ADA, IVAN]), apiRoot: h.fake.apiRoot, actions },
      { client: { apiRoot: h.fake.apiRoot } },
    );
    await again.init();
    await again.handleUpdate(structuredClone(voice.update));
    expect(await countOutbox(db, { kind: 'reply', chatId: BigInt(ADA) })).toBe(2);
    expect(botTexts(ADA).filter((t) => t.includes('cannot carry'))).toHaveLength(2);
  });

  it('answers in Russian in a Russian chat', async () => {
    h.fake.userSendsMedia('video_note', new Uint8Array([5]), { chatId: IVAN, userId: IVAN, languageCode: 'ru', firstName: 'Ivan' });
    await h.fake.waitForChat(
      (ms) =>
        ms.some(
          (m) => m.from?.is_bot && m.text === 'Не отправлено: Bria пока не умеет передавать на компьютер видеосообщения. Отправьте текст, фото или файл.',
        ),
      { chatId: IVAN },
    );
  });
});
