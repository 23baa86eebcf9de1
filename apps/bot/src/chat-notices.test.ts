import { randomUUID } from 'node:crypto';
import type { InlineKeyboardButton, InlineKeyboardMarkup, Message } from '@grammyjs/types';
import { describe, expect, it } from 'vitest';
import type { Db } from '@bria/core/services';
import { changeSession, seedChat, seedMessage, seedOutboxRow, sessionRow } from '@bria/testkit/bot-fixtures';
import { type Harness, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

// What the chat says about sessions and messages: outcome notices, superseded cards, names and labels.
let db: Db;
let h: Harness;
const ADA = 100200300;
type Btn = InlineKeyboardButton.CallbackButton;
const buttons = (m: Message | undefined) => ((m?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat() as Btn[];
const waitFor = async (pred: (m: Message) => boolean) =>
  (await h.fake.waitForChat((ms) => ms.some(pred), { timeoutMs: 20_000 })).filter(pred).at(-1) as Message;
const press = (m: Message, label: string | RegExp) => {
  const b = buttons(m).find((x) => (typeof label === 'string' ? x.text === label : label.test(x.text)));
  if (!b) throw new Error(`no button ${label} in ${JSON.stringify(buttons(m).map((x) => x.text))}`);
  h.fake.userPresses(m.message_id, b.callback_data);
};

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

async function chatOn(nodeId: string, active: string | null) {
  await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: active } });
}

describe('what the chat says', () => {
  it('a message whose turn ended without a final gets its outcome as a reply to it', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const s = await seedSession(db, { nodeId, state: 'Running', title: 'A' });
    await chatOn(nodeId, s);
    const sent = h.fake.userSends('tell me a long story').message;
    const msg = await seedMessage(db, {
      id: randomUUID(),
      sessionId: s,
      seq: 1,
      source: 'telegram',
      sourceKey: `tg:${ADA}:${sent.message_id}`,
      text: 'q',
      status: 'unknown',
      outcomeDetail: 'evidence_unknown',
    });
    // The row as the engine writes it with the outcome (core db/repos/outcome-notices.ts).
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `outcome:${msg.id}:unknown`,
      kind: 'message_outcome',
      chatId: BigInt(ADA),
      sessionId: s,
      payload: { kind: 'message_outcome', sessionId: s, nodeId, messageId: msg.id, status: 'unknown', reason: 'crash', replyTo: sent.message_id },
    });
    const notice = await waitFor((m) => m.text?.startsWith("No answer to this message: the agent's CLI stopped unexpectedly") ?? false);
    expect(notice.reply_to_message?.message_id).toBe(sent.message_id);
    expect(buttons(notice)).toEqual([]);
  });

  it('a card that is no longer current is edited once to say so, without buttons (here: working, then archived)', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const a = await seedSession(db, { nodeId, state: 'Running', title: 'Build the parser' });
    const b = await seedSession(db, { nodeId, state: 'Ready', title: 'B' });
    await chatOn(nodeId, a);
    h.fake.userSends('/start');
    const old = await waitFor((m) => m.text?.includes('State: working') ?? false);
    expect(buttons(old).map((x) => x.text)).toContain('Stop');
    await changeSession(db, a, { state: 'Archived', archivedAt: new Date() });
    h.fake.userSends('/sessions');
    press(await waitFor((m) => m.text === 'Open sessions on laptop:'), /ready/);
    const card = await waitFor((m) => (m.text?.includes('State: ready') && m.text.includes('\nB\n')) ?? false);
    const edited = await waitFor((m) => m.message_id === old.message_id && (m.text?.startsWith('Earlier card: Build the parser · project.') ?? false));
    expect(edited.text).not.toContain('working');
    expect(buttons(edited)).toEqual([]);
    expect(card.message_id).toBeGreaterThan(old.message_id);
    // Once: showing the current card again edits that card, never the old one again.
    h.fake.userSends('/start');
    await h.fake.waitForChat((ms) => ms.filter((m) => m.text?.startsWith('Earlier card: B · project.')).length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.calls('editMessageText').filter((c) => Number(c.params.message_id) === old.message_id)).toHaveLength(1);
    expect((await sessionRow(db, b)).state).toBe('Ready');
  });

  it('list labels keep the END of the folder, where sessions differ; a CLI dialog says which session waits', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const base = '/home/ada/work/northwind-traders-customer-portal-backend-services';
    const a = await seedSession(db, { nodeId, state: 'Ready', title: 'gateway' });
    const b = await seedSession(db, { nodeId, state: 'Ready', title: 'worker' });
    await changeSession(db, a, { folder: `${base}/api-gateway` });
    await changeSession(db, b, { folder: `${base}/api-worker` });
    await chatOn(nodeId, null);
    h.fake.userSends('/sessions');
    const list = await waitFor((m) => m.text === 'Open sessions on laptop:');
    const labels = buttons(list).map((x) => x.text);
    expect(labels).toHaveLength(2);
    for (const l of labels) expect(l.length).toBeLessThanOrEqual(60);
    expect(labels.map((l) => l.split('/').at(-1)).sort()).toEqual(['api-gateway', 'api-worker']);
    expect(new Set(labels).size).toBe(2);

    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `blocked:${b}:1`,
      kind: 'blocked_on_prompt',
      chatId: BigInt(ADA),
      sessionId: b,
      payload: { kind: 'blocked_on_prompt', sessionId: b, nodeId, text: 'Do you trust the files in this folder?' },
    });
    const dialog = await waitFor((m) => m.text?.includes('Do you trust the files') ?? false);
    expect(dialog.text?.startsWith('worker · api-worker is waiting for an answer on the computer:')).toBe(true);
  });
  it('a budget notice says which budget, how much of it, and at 100 % that messages wait (issue 33)', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const s = await seedSession(db, { nodeId, state: 'Ready', title: 'refactor' });
    await chatOn(nodeId, s);
    // The rows as the engine writes them after a turn's tokens (core engine/step/usage.ts).
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `budget:session:${s}:warn:5:${ADA}`,
      kind: 'budget',
      chatId: BigInt(ADA),
      sessionId: s,
      payload: { kind: 'budget', sessionId: s, nodeId, scope: 'session', level: 'warn', budgetUsd: 5, spentUsd: 4.12 },
    });
    const warn = await waitFor((m) => m.text?.includes('of its $5.00 budget') ?? false);
    expect(warn.text).toBe('Session "refactor · project" has used an estimated $4.12 of its $5.00 budget (80 %).');
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `budget:day:2026-12-07:reached:20:${ADA}`,
      kind: 'budget',
      chatId: BigInt(ADA),
      sessionId: s,
      payload: { kind: 'budget', sessionId: s, nodeId, scope: 'day', level: 'reached', budgetUsd: 20, spentUsd: 20.5 },
    });
    const reached = await waitFor((m) => m.text?.startsWith("Today's budget is reached") ?? false);
    expect(reached.text).toContain('$20.50 of $20.00');
    expect(reached.text).toContain('Messages wait until you raise the budget');
  });
  it('a queued message cancelled or edited on the dashboard is told as a reply to the Telegram message it came from', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const s = await seedSession(db, { nodeId, state: 'Running', title: 'queue' });
    await chatOn(nodeId, s);
    const sent = h.fake.userSends('run the migrations after this').message;
    const messageId = randomUUID();
    // The rows as core writes them with the change (services/sessions/change-message.ts).
    for (const change of ['edited', 'cancelled'] as const)
      await seedOutboxRow(db, {
        channel: 'telegram',
        dedupeKey: `changed:${messageId}:${change}`,
        kind: 'message_changed',
        chatId: BigInt(ADA),
        sessionId: s,
        payload: { kind: 'message_changed', sessionId: s, nodeId, messageId, seq: 4, change, replyTo: sent.message_id },
      });
    const edited = await waitFor((m) => m.text?.startsWith('Message #4 was edited on the dashboard') ?? false);
    expect(edited.text).toBe('Message #4 was edited on the dashboard: the CLI gets the new text, not this one.');
    expect(edited.reply_to_message?.message_id).toBe(sent.message_id);
    const cancelled = await waitFor((m) => m.text?.startsWith('Message #4 was cancelled on the dashboard') ?? false);
    expect(cancelled.reply_to_message?.message_id).toBe(sent.message_id);
  });
  it('a scheduled message that was not sent is told with its session, the reason and its text (issue 33)', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const s = await seedSession(db, { nodeId, state: 'Archived', title: 'nightly' });
    await chatOn(nodeId, null);
    const scheduleId = randomUUID();
    // The row as the engine writes it when an occurrence is not sent (core engine/schedules.ts).
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `schedule_failed:${scheduleId}:1765090800000:${ADA}`,
      kind: 'schedule_failed',
      chatId: BigInt(ADA),
      sessionId: s,
      payload: { kind: 'schedule_failed', sessionId: s, nodeId, scheduleId, reason: 'closed', detail: '', text: 'run the nightly check' },
    });
    const told = await waitFor((m) => m.text?.startsWith('A scheduled message for') ?? false);
    expect(told.text).toBe(
      'A scheduled message for "nightly · project" was not sent: the session is closed. Resume it, or edit the schedule to resume the session first.\nThe message: run the nightly check',
    );
  });
});
