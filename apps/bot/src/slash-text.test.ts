import type { Message } from '@grammyjs/types';
import { describe, expect, it } from 'vitest';
import { catalogs } from '@bria/core/i18n';
import type { Db } from '@bria/core/services';
import { changeSession, messageTexts, seedChat } from '@bria/testkit/bot-fixtures';
import { type Harness, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

// Text starting with `/`: Bria's own commands are answered; any other is a message for the active
// session, stored byte for byte, or refused with a reply when its CLI could not pass it on as sent.
const en = catalogs.en;
let db: Db;
let h: Harness;
const ADA = 100200300;

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

async function activeSession(executor: 'claude' | 'codex'): Promise<string> {
  const nodeId = await seedNode(db, { name: 'laptop' });
  const sessionId = await seedSession(db, { nodeId, state: 'Ready', title: 'S' });
  await changeSession(db, sessionId, { executor });
  await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: sessionId } });
  return sessionId;
}
const botSaid = (text: string) => async () =>
  (await h.fake.waitForChat((ms) => ms.some((m: Message) => m.from?.is_bot === true && m.text === text))).length > 0;
const stored = (sessionId: string) => messageTexts(db, sessionId);

describe('a text starting with / in Telegram', () => {
  it('a path or an unknown /word goes to the active session exactly, with the stored reaction', async () => {
    const sessionId = await activeSession('claude');
    const texts = ['/srv/app/notes.md is the file to read', '/srv/app/notes.md\nsecond line'];
    for (const text of texts) {
      const sent = h.fake.userSends(text);
      await h.fake.waitForCall('setMessageReaction', (r) => (r.params as { message_id?: number }).message_id === sent.message.message_id);
    }
    expect(await stored(sessionId)).toEqual(texts);
  });

  it('Codex takes /word texts (its own command names included) as text', async () => {
    const sessionId = await activeSession('codex');
    const texts = ['/unknownword please', '/help me with this\nsecond line'];
    for (const text of texts) {
      const sent = h.fake.userSends(text);
      await h.fake.waitForCall('setMessageReaction', (r) => (r.params as { message_id?: number }).message_id === sent.message.message_id);
    }
    expect(await stored(sessionId)).toEqual(texts);
  });

  it('a /command Claude Code would run itself is refused with a reply saying so, never silently', async () => {
    const sessionId = await activeSession('claude');
    h.fake.userSends('/help me');
    expect(await botSaid(en['msg.refusedCliCommand'])()).toBe(true);
    h.fake.userSends('exit');
    expect(await botSaid(en['msg.refusedCliWord'])()).toBe(true);
    expect(await stored(sessionId)).toEqual([]);
  });

  it('without an active session, /unknown words get the same reply as any text', async () => {
    await seedNode(db, { name: 'laptop' });
    h.fake.userSends('/unknown words');
    expect(await botSaid(en['msg.noActive'])()).toBe(true);
  });

  it("Bria's own commands are still answered by Bria and never stored as messages", async () => {
    const sessionId = await activeSession('claude');
    h.fake.userSends('/new');
    expect(await botSaid('New session on laptop — which agent?')()).toBe(true);
    h.fake.userSends('/status');
    await h.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot === true && (m.text?.includes(en['status.queue'].split('{')[0]!) ?? false)));
    expect(await stored(sessionId)).toEqual([]);
  });
});
