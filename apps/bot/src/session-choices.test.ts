import type { InlineKeyboardButton, InlineKeyboardMarkup, Message } from '@grammyjs/types';
import { describe, expect, it } from 'vitest';
import type { Db } from '@bria/core/services';
import { changeNode, findSessionRow, nodeRow } from '@bria/testkit/bot-fixtures';
import { answerFolderChecks, type Harness, seedNode, useBotHarness } from '../test-support/bot-harness.ts';

// The session's permission mode and model in /new (on the folder question, no extra step), on the
// card, and the node default in /settings: real core services and database, the fake Bot API.
let db: Db;
let h: Harness;
const ADA = 100200300;
type Btn = InlineKeyboardButton.CallbackButton;
const buttons = (m: Message | undefined) => ((m?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat() as Btn[];
const current = (m: Message) => h.fake.chatMessages().find((x) => x.message_id === m.message_id) as Message;
const press = (m: Message, label: string) => {
  const b = buttons(current(m)).find((x) => x.text === label);
  if (!b) throw new Error(`no button ${label} in ${JSON.stringify(buttons(current(m)).map((x) => x.text))}`);
  h.fake.userPresses(m.message_id, b.callback_data);
};
const waitFor = async (pred: (m: Message) => boolean) => (await h.fake.waitForChat((ms) => ms.some(pred))).filter(pred).at(-1) as Message;
const folderAsk = () => waitFor((m) => m.text?.startsWith('Which folder?') ?? false);

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

describe('/new: permission mode and model', () => {
  it('the node default is preselected; a tapped mode and model are used, stored and shown on the card', async () => {
    const nodeId = await seedNode(db, { name: 'laptop', executors: ['claude'] });
    await changeNode(db, nodeId, { claudePermissionMode: 'acceptEdits' });
    const stop = answerFolderChecks(db, nodeId);
    h.fake.userSends('/new');
    const ask = await folderAsk();
    expect(ask.text).toContain('Permission mode: acceptEdits · Model: CLI default');
    expect(buttons(ask).map((b) => b.text)).toEqual(['default', '✓ acceptEdits', 'plan', 'bypassPermissions', 'opus', 'sonnet', 'fable', '✏️ model', 'Cancel']);
    press(ask, 'plan');
    await expect.poll(() => current(ask).text).toContain('Permission mode: plan · Model: CLI default');
    press(ask, 'sonnet');
    await expect.poll(() => current(ask).text).toContain('Permission mode: plan · Model: sonnet');
    expect(buttons(current(ask)).map((b) => b.text)).toContain('✓ plan');
    h.fake.userSends('/srv/app');
    const card = await waitFor((m) => m.text?.startsWith('Claude Code · laptop') ?? false);
    expect(card.text).toContain('Mode: plan · Model: sonnet');
    const s = await findSessionRow(db, { nodeId });
    expect([s.permissionMode, s.model]).toEqual(['plan', 'sonnet']);
    stop();
  });

  it('a typed model is checked; without a tap the node default goes to the session', async () => {
    const nodeId = await seedNode(db, { name: 'laptop', executors: ['codex'] });
    const stop = answerFolderChecks(db, nodeId);
    h.fake.userSends('/new');
    const ask = await folderAsk();
    expect(ask.text).toContain('Permission mode: workspace-write · Model: CLI default');
    press(ask, '✏️ model');
    await waitFor((m) => m.text?.startsWith('Type a model name as your next message') ?? false);
    h.fake.userSends('gpt 6; rm -rf ~');
    await waitFor((m) => m.text?.startsWith('Not a model name') ?? false);
    h.fake.userSends('mock-model');
    await waitFor((m) => (m.text?.startsWith('Which folder?') && m.text.includes('Model: mock-model')) ?? false);
    h.fake.userSends('/srv/app');
    const card = await waitFor((m) => m.text?.startsWith('Codex · laptop') ?? false);
    expect(card.text).toContain('Mode: workspace-write · Model: mock-model');
    const s = await findSessionRow(db, { nodeId });
    expect([s.permissionMode, s.model]).toEqual(['workspace-write', 'mock-model']);
    stop();
  });

  it('a mode the computer cannot start is not offered, with the reason', async () => {
    const nodeId = await seedNode(db, { name: 'laptop', executors: ['claude'] });
    await changeNode(db, nodeId, { unavailableModes: ['claude:bypassPermissions'] });
    h.fake.userSends('/new');
    const ask = await folderAsk();
    expect(buttons(ask).map((b) => b.text)).not.toContain('bypassPermissions');
    expect(ask.text).toContain('Claude Code refuses to skip permissions when run as root');
  });

  it('/settings steps the node default through the modes the node can start', async () => {
    const nodeId = await seedNode(db, { name: 'laptop', executors: ['claude'] });
    await changeNode(db, nodeId, { unavailableModes: ['claude:bypassPermissions'] });
    h.fake.userSends('/settings');
    const msg = await waitFor((m) => m.text?.startsWith('Settings') ?? false);
    expect(msg.text).toContain('Default mode (Claude Code): default');
    for (const [label, next] of [
      ['Claude Code: default ↻', 'acceptEdits'],
      ['Claude Code: acceptEdits ↻', 'plan'],
      ['Claude Code: plan ↻', 'default'],
    ] as const) {
      press(msg, label);
      await expect.poll(() => current(msg).text).toContain(`Default mode (Claude Code): ${next}`);
      expect((await nodeRow(db, nodeId)).claudePermissionMode).toBe(next);
    }
  });
});
