import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Db } from '@bria/core/services';
import { seedChat } from '@bria/testkit/bot-fixtures';
import { type Harness, seedNode, useBotHarness } from '../test-support/bot-harness.ts';

// `/archive <words>`: the dashboard's search from the chat, over every computer's closed sessions.
let db: Db;
let h: Harness;
const ADA = 100200302;

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

async function archived(nodeId: string, title: string, texts: [string, string][]): Promise<string> {
  const id = randomUUID();
  await db.session.create({
    data: {
      id,
      nodeId,
      executor: 'claude',
      folder: '/home/ada/app',
      nativeSessionId: randomUUID(),
      state: 'Archived',
      title,
      archivedAt: new Date(),
      archiveSortAt: new Date(),
    },
  });
  for (const [i, [text, finalText]] of texts.entries()) {
    await db.message.create({ data: { id: randomUUID(), sessionId: id, seq: i + 1, source: 'telegram', text, finalText, status: 'completed' } });
  }
  return id;
}

describe('/archive <words>', () => {
  it('a NUL in the words is dropped from the search and replaced in the reply (found by the Telegram fuzz suite: both failed in Postgres)', async () => {
    const laptop = await seedNode(db, { name: 'laptop' });
    await seedChat(db, { chatId: ADA, selectedNodeId: laptop });
    await archived(laptop, 'Renderer', [['make it faster', 'I cached the hummingbird renderer.']]);
    h.fake.userSends('/archive humming\u0000bird', { userId: ADA, chatId: ADA });
    const msgs = await h.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot === true && (m.text ?? '').includes('matching')), { chatId: ADA });
    expect(
      msgs
        .filter((m) => m.from?.is_bot === true)
        .map((m) => m.text ?? '')
        .join('\n'),
    ).toContain('1. Renderer');
  });

  it('finds a word of a later message on any computer, marks it, and offers Resume', async () => {
    const laptop = await seedNode(db, { name: 'laptop' });
    const server = await seedNode(db, { name: 'server' });
    await seedChat(db, { chatId: ADA, selectedNodeId: laptop });
    await archived(laptop, 'Login work', [
      ['set up', 'ok'],
      ['tighten the login check', 'Done.'],
    ]);
    await archived(server, 'Renderer', [
      ['hello', 'hi'],
      ['make it faster', 'I cached the hummingbird renderer & profiled <it>.'],
    ]);
    h.fake.userSends('/archive HUMMING', { userId: ADA, chatId: ADA });
    const msgs = await h.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot === true && (m.text ?? '').includes('matching')), { chatId: ADA });
    const found = msgs.filter((m) => m.from?.is_bot === true && (m.text ?? '').includes('matching')).at(-1)!;
    expect(found.text).toContain('Closed sessions matching “HUMMING” (all computers):');
    expect(found.text).toContain('1. Renderer');
    expect(found.text).toContain('server · Claude Code · /home/ada/app');
    // The matching lines as the database cuts them around the words (an `&` arrives as text).
    expect(found.text).toContain('cached the hummingbird renderer & profiled');
    expect(found.text).not.toContain('Login work');
    // The matched word is bold; the rest is plain text.
    const bold = (found.entities ?? []).filter((e) => e.type === 'bold').map((e) => found.text!.slice(e.offset, e.offset + e.length));
    expect(bold).toContain('hummingbird');
    const buttons = (found.reply_markup?.inline_keyboard ?? []).flat().map((b) => b.text);
    expect(buttons).toEqual(['Resume 1']);

    h.fake.userSends('/archive zebra', { userId: ADA, chatId: ADA });
    await h.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot === true && m.text === 'No closed session on any computer matches “zebra”.'), {
      chatId: ADA,
    });
  });
});
