import { randomUUID } from 'node:crypto';
import type { InlineKeyboardButton, InlineKeyboardMarkup, Message } from '@grammyjs/types';
import { describe, expect, it } from 'vitest';
import type { Db } from '@bria/core/services';
import {
  activeSessionIdOf,
  changeNode,
  changeSession,
  chatRow,
  countAgentCommands,
  countSessions,
  findSessionRow,
  messageRows,
  outboxRowWhere,
  seedChat,
  seedMessage,
  seedOutboxRow,
  seedSettings,
  sessionRow,
} from '@bria/testkit/bot-fixtures';
import { answerFolderChecks, type Harness, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

// The flows up to the engine's door: real core services and database, the fake Bot API as Telegram.
let db: Db;
let h: Harness;
const ADA = 100200300;
type Btn = InlineKeyboardButton.CallbackButton;
const buttons = (m: Message | undefined) => ((m?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat() as Btn[];
const press = (m: Message, label: string | RegExp) => {
  const b = buttons(m).find((x) => (typeof label === 'string' ? x.text === label : label.test(x.text)));
  if (!b) throw new Error(`no button ${label} in ${JSON.stringify(buttons(m).map((x) => x.text))}`);
  h.fake.userPresses(m.message_id, b.callback_data);
};
const waitFor = async (pred: (m: Message) => boolean) => (await h.fake.waitForChat((ms) => ms.some(pred))).filter(pred).at(-1) as Message;

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

describe('/new', () => {
  it('node → executor → typed folder → the session is created Starting and its card shows it', async () => {
    await seedNode(db, { name: 'desk' });
    const nodeId = await seedNode(db, { name: 'laptop' });
    const stopAnswering = answerFolderChecks(db, nodeId, (f) =>
      f === '/srv/app' ? { ok: true, folder: f } : { ok: false, reason: 'The folder does not exist on this computer.' },
    );
    h.fake.userSends('/new');
    press(await waitFor((m) => m.text === 'New session — which computer?'), /laptop/);
    const exec = await waitFor((m) => m.text === 'New session on laptop — which agent?');
    expect(buttons(exec).map((b) => b.text)).toEqual(['Claude Code', 'Codex', 'Cancel']);
    press(exec, 'Codex');
    await waitFor((m) => m.text?.startsWith('Which folder?') ?? false);
    h.fake.userSends('relative/path');
    await waitFor((m) => m.text === 'Please type an absolute path, e.g. /home/me/project.');
    h.fake.userSends('/srv/missing');
    // The node's own reason reaches the user, and nothing is created.
    await waitFor((m) => m.text === 'That folder cannot be used: the folder does not exist on this computer. Type another absolute path.');
    expect(await countSessions(db)).toBe(0);
    h.fake.userSends('/srv/app');
    const card = await waitFor((m) => m.text?.startsWith('Codex · laptop') ?? false);
    expect(card.text).toContain('State: starting');
    expect(card.text).toContain('Folder: /srv/app');
    const s = await findSessionRow(db, { nodeId });
    expect([s.executor, s.folder, s.state]).toEqual(['codex', '/srv/app', 'Starting']);
    expect(await countAgentCommands(db, { sessionId: s.id })).toBeGreaterThan(0);
    const chat = await chatRow(db, ADA);
    expect(chat.flow).toBeNull();
    expect(chat.cardSessionId).toBe(s.id);
    expect(await activeSessionIdOf(db, ADA, nodeId)).toBe(s.id);
    stopAnswering();
  });

  it('one node with one enabled executor: straight to the folder; recent folders are buttons; resume offered when the setting is on', async () => {
    const nodeId = await seedNode(db, { name: 'laptop', executors: ['claude'] });
    const stopAnswering = answerFolderChecks(db, nodeId);
    const archived = await seedSession(db, { nodeId, state: 'Archived', title: 'fix the parser' });
    await seedSettings(db, { resumeRecommendations: true });
    h.fake.userSends('/new');
    const folders = await waitFor((m) => m.text?.startsWith('Which folder?') ?? false);
    expect(buttons(folders).map((b) => b.text)).toEqual([
      '/home/ada/project',
      '✓ default',
      'acceptEdits',
      'plan',
      'bypassPermissions',
      'opus',
      'sonnet',
      'fable',
      '✏️ model',
      'Cancel',
    ]);
    press(folders, '/home/ada/project');
    const offer = await waitFor((m) => m.text?.startsWith('There are earlier Claude Code sessions') ?? false);
    expect(buttons(offer).map((b) => b.text)).toEqual(['Resume: fix the parser', 'Start a new one']);
    press(offer, 'Start a new one');
    await waitFor((m) => m.text?.includes('State: starting') ?? false);
    expect(await countSessions(db, { nodeId, state: 'Starting' })).toBe(1);
    expect((await sessionRow(db, archived)).state).toBe('Archived');
    stopAnswering();
  });

  it('an executor the computer cannot run is not offered, and the chat is told why', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    // The node's agent reported in its hello that it could not run `codex --version`.
    await changeNode(db, nodeId, { missingExecutors: ['codex'] });
    h.fake.userSends('/new');
    await waitFor((m) => m.text?.startsWith('Codex is not offered on laptop: it is not installed there') ?? false);
    // Only Claude Code is left, so nothing is asked: straight to the folder.
    await waitFor((m) => m.text?.startsWith('Which folder?') ?? false);
    expect(h.fake.chatMessages().filter((m) => m.text === 'New session on laptop — which agent?')).toEqual([]);
    expect((await chatRow(db, ADA)).flow).toMatchObject({ step: 'folder', executor: 'claude' });
  });

  it('flow progress is kept in the database (TelegramChat.flow); a button of an earlier flow is out of date', async () => {
    await seedNode(db, { name: 'a' });
    await seedNode(db, { name: 'b' });
    h.fake.userSends('/new');
    const ask = await waitFor((m) => m.text === 'New session — which computer?');
    const chat = await chatRow(db, ADA);
    expect(chat.flow).toMatchObject({ kind: 'new', step: 'node' });
    h.fake.userSends('/new');
    await h.fake.waitForChat((ms) => ms.filter((m) => m.text === 'New session — which computer?').length === 2);
    press(ask, /a$/);
    await h.fake.waitForCall('answerCallbackQuery');
    expect(h.fake.callbackAnswers().at(-1)?.text).toBe('This button is out of date.');
  });
});

describe('sessions, background completion and archive', () => {
  it('/sessions switches the active session without touching the other; a background notice opens its card', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const a = await seedSession(db, { nodeId, state: 'Running', title: 'A' });
    const b = await seedSession(db, { nodeId, state: 'Ready', title: 'B' });
    await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: a } });
    h.fake.userSends('/sessions');
    const list = await waitFor((m) => m.text === 'Open sessions on laptop:');
    expect(buttons(list)).toHaveLength(2);
    press(list, /ready/);
    await waitFor((m) => (m.text?.includes('State: ready') && m.text.includes('B')) ?? false);
    expect(await activeSessionIdOf(db, ADA, nodeId)).toBe(b);
    expect((await sessionRow(db, a)).state).toBe('Running');

    // A's final, written while A is in the background, is held: it does not land in B's conversation.
    const msg = await seedMessage(db, {
      id: randomUUID(),
      sessionId: a,
      seq: 1,
      source: 'telegram',
      text: 'q',
      status: 'completed',
      finalText: 'the **answer** of A',
    });
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `final:${msg.id}:${ADA}`,
      kind: 'final',
      chatId: BigInt(ADA),
      sessionId: a,
      payload: { kind: 'final', sessionId: a, nodeId, messageId: msg.id, text: 'the **answer** of A', active: false },
    });
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `done:${a}`,
      kind: 'background_done',
      chatId: BigInt(ADA),
      sessionId: a,
      payload: { kind: 'background_done', sessionId: a, nodeId, title: 'A', jump: { sessionId: a, nodeId } },
    });
    const notice = await waitFor((m) => m.text === 'A background session finished: A · project');
    expect(h.fake.chatMessages().some((m) => m.text === 'the answer of A')).toBe(false);
    press(notice, 'Open');
    const cardA = await waitFor((m) => (m.text?.includes('State: working') && m.text.includes('\nA\n')) ?? false);
    // Opening it shows its final after its card, once, however often Open is pressed.
    const final = await waitFor((m) => m.text === 'the answer of A');
    expect(final.message_id).toBeGreaterThan(cardA.message_id);
    press(notice, 'Open');
    // The second Open posts a new card of A; the first one is edited once to say it is no longer current.
    await h.fake.waitForChat(
      (ms) =>
        ms.some((m) => m.message_id === cardA.message_id && m.text?.startsWith('Earlier card: A · project')) &&
        ms.some((m) => m.message_id > cardA.message_id && m.text?.includes('\nA\n')),
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(h.fake.chatMessages().filter((m) => m.text === 'the answer of A')).toHaveLength(1);
    expect(await activeSessionIdOf(db, ADA, nodeId)).toBe(a);
    expect((await sessionRow(db, b)).state).toBe('Ready');
  });

  it('/archive is paginated, newest first', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    for (let i = 0; i < 7; i++) {
      const id = await seedSession(db, { nodeId, state: 'Archived', title: `task ${i}` });
      await changeSession(db, id, { nativeLastActivity: new Date(Date.UTC(2026, 0, 1 + i)) });
    }
    h.fake.userSends('/archive');
    const p1 = await waitFor((m) => m.text?.startsWith('Archive of laptop (page 1)') ?? false);
    expect(p1.text?.match(/task \d/g)).toEqual(['task 6', 'task 5', 'task 4', 'task 3', 'task 2']);
    expect(buttons(p1).map((b) => b.text)).toEqual(['Resume 1', 'Resume 2', 'Resume 3', 'Resume 4', 'Resume 5', 'More']);
    press(p1, 'More');
    const p2 = await waitFor((m) => m.text?.startsWith('Archive of laptop (page 2)') ?? false);
    expect(p2.text?.match(/task \d/g)).toEqual(['task 1', 'task 0']);
    // Resume acts (the /new flow's resume buttons share the action name and must not swallow it).
    press(p2, 'Resume 2');
    // While it resumes the chat shows a plain status, not a card (a failure must leave no card behind).
    const status = await waitFor((m) => m.text?.startsWith('Resuming task 0 · project…') ?? false);
    expect(buttons(status)).toEqual([]);
    const resumed = await findSessionRow(db, { title: 'task 0' });
    await expect.poll(async () => (await sessionRow(db, resumed.id)).state).toBe('Resuming');
    expect(await countAgentCommands(db, { sessionId: resumed.id, type: 'resume_session' })).toBe(1);
    expect(h.fake.chatMessages().some((m) => m.text?.includes('State:'))).toBe(false);
    // What the engine does once the CLI reopened it: Ready and a card update. The status becomes the card, in place.
    await changeSession(db, resumed.id, { state: 'Ready' });
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `card:${resumed.id}:ready`,
      kind: 'card_update',
      chatId: BigInt(ADA),
      sessionId: resumed.id,
      payload: { kind: 'card_update', sessionId: resumed.id, nodeId, state: 'Ready', version: 9, active: true },
    });
    const card = await waitFor((m) => (m.message_id === status.message_id && m.text?.includes('State: ready')) ?? false);
    expect(card.text).toContain('task 0');
    expect(buttons(card).map((b) => b.text)).toEqual(['Close', 'Sessions', 'New session']);
    await expect
      .poll(async () => {
        const chat = await chatRow(db, ADA);
        return [chat.cardSessionId, chat.cardMessageId];
      })
      .toEqual([resumed.id, status.message_id]);
    expect(h.fake.chatMessages().filter((m) => m.text?.includes('task 0') && !m.text.startsWith('Archive'))).toHaveLength(1);
  });
  const activeOn = async (nodeId: string) => await activeSessionIdOf(db, ADA, nodeId);

  it('a failed resume: one notice with a New session button, and the session active before is active again under it', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const b = await seedSession(db, { nodeId, state: 'Ready', title: 'B' });
    const ghost = await seedSession(db, { nodeId, state: 'Archived', title: 'old one' });
    await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId: b } });
    h.fake.userSends('/archive');
    press(await waitFor((m) => m.text?.startsWith('Archive of laptop') ?? false), 'Resume 1');
    const status = await waitFor((m) => m.text?.startsWith('Resuming old one · project…') ?? false);
    expect(await activeOn(nodeId)).toBe(ghost);
    // The edit that turns the status into the notice reaches Telegram but its answer is lost (the
    // window a killed bot leaves): the row is tried again and edits the same message once more.
    h.fake.failNext('editMessageText', { drop: true, afterExecute: true });
    // What the engine does when the CLI cannot reopen it: the record stays archived, one resume_failed row.
    await changeSession(db, ghost, { state: 'Archived' });
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `resume_failed:${ghost}`,
      kind: 'resume_failed',
      chatId: BigInt(ADA),
      sessionId: ghost,
      payload: { kind: 'resume_failed', sessionId: ghost, nodeId, cause: 'CLI exited before its prompt: No conversation found with session ID: native-7' },
    });
    const notice = await waitFor(
      (m) =>
        m.text?.startsWith(
          "The archived session could not be resumed: the agent's CLI found no conversation with this session's id on the computer (the computer said: CLI exited before its prompt: No conversation found with session ID: native-7).",
        ) ?? false,
    );
    expect(buttons(notice).map((x) => x.text)).toEqual(['New session']);
    // The status became the notice: no card of the failed session was ever shown, none is left.
    expect(notice.message_id).toBe(status.message_id);
    await expect.poll(async () => (await outboxRowWhere(db, { kind: 'resume_failed', sessionId: ghost })).status, { timeout: 8000 }).toBe('sent');
    expect(h.fake.calls('editMessageText').filter((c) => c.params.message_id === status.message_id).length).toBeGreaterThanOrEqual(2);
    expect(h.fake.chatMessages().filter((m) => m.text?.includes('old one') && !m.text.startsWith('Archive'))).toEqual([]);
    expect(h.fake.calls('sendMessage').some((c) => String(c.params.text).includes('old one') && String(c.params.text).includes('State:'))).toBe(false);
    const card = await waitFor((m) => (m.message_id > notice.message_id && m.text?.includes('\nB\n')) ?? false);
    expect(card.text).toContain('State: ready');
    expect(await activeOn(nodeId)).toBe(b);
    const chat = await chatRow(db, ADA);
    expect([chat.cardSessionId, chat.flow]).toEqual([b, null]);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.chatMessages().filter((m) => m.text?.startsWith('The archived session could not be resumed'))).toHaveLength(1);
    // Its New session button starts the /new flow.
    press(notice, 'New session');
    await waitFor((m) => m.text === 'New session on laptop — which agent?');
  });

  it('a resume that cannot be asked for (computer offline): the same notice with that cause at once; nothing changes', async () => {
    const nodeId = await seedNode(db, { name: 'laptop', online: false });
    const b = await seedSession(db, { nodeId, state: 'Ready', title: 'B' });
    const ghost = await seedSession(db, { nodeId, state: 'Archived', title: 'old one' });
    await seedChat(db, { chatId: ADA, language: 'ru', selectedNodeId: nodeId, active: { nodeId, sessionId: b } });
    h.fake.userSends('/archive');
    press(await waitFor((m) => m.text?.startsWith('Архив') ?? false), /1$/);
    const notice = await waitFor((m) => m.text?.startsWith('Не удалось возобновить сессию из архива: её компьютер не в сети.') ?? false);
    expect(await activeOn(nodeId)).toBe(b);
    // One message: the status row, still held back, became the notice; no status or card was sent.
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.chatMessages().filter((m) => m.from?.is_bot && m.message_id >= notice.message_id)).toHaveLength(1);
    expect(h.fake.calls('sendMessage').some((c) => String(c.params.text).includes('old one') && !String(c.params.text).includes('Архив'))).toBe(false);
    expect(h.fake.chatMessages().some((m) => m.text?.includes('old one') && !m.text.startsWith('Архив'))).toBe(false);
    expect((await sessionRow(db, ghost)).state).toBe('Archived');
    expect(await countAgentCommands(db, { sessionId: ghost })).toBe(0);
    expect((await chatRow(db, ADA)).flow).toBeNull();
  });
  it('the bot stopped between Resume and asking core: the held status, once due, is the one notice and the chat goes back', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const b = await seedSession(db, { nodeId, state: 'Ready', title: 'B' });
    const ghost = await seedSession(db, { nodeId, state: 'Archived', title: 'old one' });

    // What a press leaves behind when the process dies before resumeSession: the active session
    // switched, the way back recorded, the status row written (held, now due); nothing asked of core.
    await seedChat(db, {
      chatId: ADA,
      selectedNodeId: nodeId,
      flow: { kind: 'resumeReturn', sessionId: ghost, nodeId, previousSessionId: b },
      active: { nodeId, sessionId: ghost },
    });
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `resume_status:${ADA}:${ghost}:1`,
      kind: 'resume_status',
      chatId: BigInt(ADA),
      sessionId: ghost,
      payload: { kind: 'resume_status', sessionId: ghost, nodeId, title: 'old one', askedAfter: '0' },
    });
    const notice = await waitFor(
      (m) => m.text?.startsWith('The archived session could not be resumed: the bot stopped before it could ask the computer; press Resume again.') ?? false,
    );
    expect(buttons(notice).map((x) => x.text)).toEqual(['New session']);
    await waitFor((m) => (m.message_id > notice.message_id && m.text?.includes('\nB\n')) ?? false);
    expect(await activeOn(nodeId)).toBe(b);
    expect(h.fake.chatMessages().some((m) => m.text?.startsWith('Resuming'))).toBe(false);
    expect((await sessionRow(db, ghost)).state).toBe('Archived');
  });

  it("Open on a notice about another computer's session selects that computer, so the next text goes to the session shown", async () => {
    const desk = await seedNode(db, { name: 'desk' });
    const laptop = await seedNode(db, { name: 'laptop' });
    const onDesk = await seedSession(db, { nodeId: desk, state: 'Ready', title: 'D' });
    const onLaptop = await seedSession(db, { nodeId: laptop, state: 'Ready', title: 'L' });
    await seedChat(db, { chatId: ADA, selectedNodeId: laptop, active: { nodeId: laptop, sessionId: onLaptop } });
    await seedOutboxRow(db, {
      channel: 'telegram',
      dedupeKey: `done:${onDesk}`,
      kind: 'background_done',
      chatId: BigInt(ADA),
      sessionId: onDesk,
      payload: { kind: 'background_done', sessionId: onDesk, nodeId: desk, title: 'D', jump: { sessionId: onDesk, nodeId: desk } },
    });
    press(await waitFor((m) => m.text === 'A background session finished: D · project'), 'Open');
    await waitFor((m) => (m.text?.startsWith('Claude Code · desk') && m.text.includes('\nD\n')) ?? false);
    expect((await chatRow(db, ADA)).selectedNodeId).toBe(desk);
    h.fake.userSends('for the desk session');
    await h.fake.waitForCall('setMessageReaction');
    expect((await messageRows(db, { text: 'for the desk session' })).map((m) => m.sessionId)).toEqual([onDesk]);
    expect(await activeOn(laptop)).toBe(onLaptop);
  });
});
