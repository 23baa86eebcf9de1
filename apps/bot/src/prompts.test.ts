import type { InlineKeyboardButton, InlineKeyboardMarkup, Message } from '@grammyjs/types';
import { describe, expect, it } from 'vitest';
import { answerPrompt, type Db } from '@bria/core/services';
import { agentCommandRows, changePrompt, chatRow, countMessages, promptPhase, promptRow, seedChat, seedPrompt } from '@bria/testkit/bot-fixtures';
import { type Harness, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

// Permission requests and questions from the CLIs, answered from Telegram (issue 14).
let db: Db;
let h: Harness;
const ADA = 100200300;
type Btn = InlineKeyboardButton.CallbackButton;
const buttons = (m: Message | undefined) => ((m?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat() as Btn[];
const labels = (m: Message | undefined) => buttons(m).map((b) => b.text);
const waitFor = async (pred: (m: Message) => boolean) =>
  (await h.fake.waitForChat((ms) => ms.some(pred), { timeoutMs: 20_000 })).filter(pred).at(-1) as Message;
const shown = (id: number, pred: (m: Message) => boolean) => waitFor((m) => m.message_id === id && pred(m));
const button = (m: Message, label: string) => {
  const b = buttons(m).find((x) => x.text === label);
  if (!b) throw new Error(`no button ${label} in ${JSON.stringify(labels(m))}`);
  return b.callback_data;
};
/** Presses a button and waits for the bot's answer to that press; returns its text. */
const press = async (m: Message, label: string) => {
  const { callbackQueryId } = h.fake.userPresses(m.message_id, button(m, label));
  const answer = await h.fake.waitForCall('answerCallbackQuery', (c) => c.params.callback_query_id === callbackQueryId && c.status === 200, 20_000);
  return (answer.params.text as string | undefined) ?? '';
};
const commands = (sessionId: string) => agentCommandRows(db, { sessionId, type: 'answer_permission' });

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

async function sessionInChat(o: { flow?: object } = {}) {
  const nodeId = await seedNode(db, { name: 'laptop' });
  const sessionId = await seedSession(db, { nodeId, state: 'Running', title: 'Fix the tests' });
  await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId }, ...(o.flow ? { flow: o.flow } : {}) });
  return { nodeId, sessionId };
}

const bash = (sessionId: string, o: { canAlwaysAllow?: boolean } = {}) =>
  seedPrompt(db, {
    sessionId,
    chatId: ADA,
    toolName: 'Bash',
    toolInput: { command: 'npm test -- --run', description: 'Run the tests' },
    canAlwaysAllow: o.canAlwaysAllow ?? true,
  });

const COLOR = {
  question: 'Which color do you prefer?',
  header: 'Color',
  multiSelect: false,
  options: [
    { label: 'Red', description: 'warm' },
    { label: 'Blue', description: 'cool' },
  ],
};

describe('a permission request in the chat', () => {
  it('shows the session, the command and the choices; Allow reaches core once and the message says who answered, without buttons', async () => {
    const { sessionId } = await sessionInChat();
    const promptId = await bash(sessionId);
    const m = await waitFor((x) => x.text?.startsWith('Permission request · Fix the tests · project') ?? false);
    expect(m.text).toContain('Folder: /home/ada/project · Claude Code');
    expect(m.text).toContain('Tool: Bash\nnpm test -- --run\nRun the tests');
    expect(m.text?.endsWith('Waiting for your answer.')).toBe(true);
    expect(labels(m)).toEqual(['Allow', 'Deny', 'Deny with a reason…', 'Allow `npm test -- --run` for this session']);
    for (const b of buttons(m)) expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);

    expect(await press(m, 'Allow')).toBe('Allowed.');
    const row = await promptRow(db, promptId);
    expect(row).toMatchObject({ state: 'answered', answeredFrom: 'telegram', answer: { decision: 'allow' } });
    const cmds = await commands(sessionId);
    expect(cmds).toHaveLength(1);
    expect(cmds[0]?.payload).toMatchObject({ requestId: promptId, decision: 'allow', from: 'telegram', answerId: row.answerId, generation: row.generation });
    const edited = await shown(m.message_id, (x) => x.text?.endsWith('Answered: Allow (from Telegram)') ?? false);
    expect(edited.text).toContain('npm test -- --run');
    expect(buttons(edited)).toEqual([]);
  });

  it('two presses and a dashboard answer at once: exactly one answer reaches the CLI, the others hear "already answered"', async () => {
    const { sessionId } = await sessionInChat();
    const promptId = await bash(sessionId);
    const m = await waitFor((x) => x.text?.startsWith('Permission request') ?? false);
    const [a, b, dash] = await Promise.all([
      press(m, 'Allow `npm test -- --run` for this session'),
      press(m, 'Deny'),
      answerPrompt({ db }, { promptId, decision: 'allow', from: 'dashboard' }),
    ]);
    const cmds = await commands(sessionId);
    expect(cmds).toHaveLength(1);
    const row = await promptRow(db, promptId);
    const won = [a === 'Allowed for the rest of this session.', b === 'Denied.', dash.kind === 'answered'];
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(cmds[0]?.payload).toMatchObject({ answerId: row.answerId, decision: (row.answer as { decision: string }).decision });
    for (const text of [a, b].filter((x) => x !== 'Allowed for the rest of this session.' && x !== 'Denied.')) expect(text).toMatch(/^Already answered: /);
    if (dash.kind !== 'answered') expect(dash.kind).toBe('already_answered');
    await shown(m.message_id, (x) => /^(Answered|Denied)\b/.test(x.text?.split('\n').at(-1) ?? '') && buttons(x).length === 0);
  });

  it('Deny with a reason: the next text is the reason (not a message to the session), and Cancel goes back', async () => {
    // The chat's earlier flow (a resume's way back) is kept while the reason is awaited, and comes back.
    const earlier = {
      kind: 'resumeReturn',
      sessionId: '10000000-0000-4000-8000-000000000999',
      nodeId: '00000000-0000-4000-8000-000000000999',
      previousSessionId: '10000000-0000-4000-8000-000000000998',
    };
    const { sessionId } = await sessionInChat({ flow: earlier });
    const promptId = await bash(sessionId, { canAlwaysAllow: false });
    const m = await waitFor((x) => x.text?.startsWith('Permission request') ?? false);
    expect(labels(m)).toEqual(['Allow', 'Deny', 'Deny with a reason…']);
    expect(await press(m, 'Deny with a reason…')).toBe('Send it as your next message.');
    const asking = await shown(m.message_id, (x) => x.text?.includes('Send the reason for denying as your next message') ?? false);
    expect(labels(asking)).toEqual(['Cancel']);
    expect(await press(asking, 'Cancel')).toBe('Choose again.');
    const back = await shown(m.message_id, (x) => x.text?.endsWith('Waiting for your answer.') ?? false);
    expect(labels(back)).toEqual(['Allow', 'Deny', 'Deny with a reason…']);
    expect((await chatRow(db, ADA)).flow).toEqual(earlier);

    await press(back, 'Deny with a reason…');
    await shown(m.message_id, (x) => x.text?.includes('Send the reason for denying') ?? false);
    h.fake.userSends('not on the production database, use the test one');
    await waitFor((x) => x.text === 'Denied.');
    const cmds = await commands(sessionId);
    expect(cmds).toHaveLength(1);
    expect(cmds[0]?.payload).toMatchObject({
      requestId: promptId,
      decision: 'deny',
      message: 'not on the production database, use the test one',
      from: 'telegram',
    });
    expect(await countMessages(db, { sessionId })).toBe(0);
    const done = await shown(m.message_id, (x) => x.text?.endsWith('Denied (from Telegram): not on the production database, use the test one') ?? false);
    expect(buttons(done)).toEqual([]);
    expect((await chatRow(db, ADA)).flow).toEqual(earlier);
  });

  it('two requests: the text goes to the one whose "Deny with a reason…" was pressed last; the other goes back to its choices', async () => {
    const { sessionId } = await sessionInChat();
    const first = await bash(sessionId);
    const a = await waitFor((x) => x.text?.startsWith('Permission request') ?? false);
    const second = await seedPrompt(db, {
      sessionId,
      chatId: ADA,
      toolName: 'Write',
      toolInput: { file_path: '/home/ada/project/notes.md', content: 'hello' },
    });
    const b = await waitFor((x) => x.message_id > a.message_id && (x.text?.includes('File: /home/ada/project/notes.md') ?? false));
    await press(a, 'Deny with a reason…');
    await shown(a.message_id, (x) => x.text?.includes('Send the reason for denying') ?? false);
    await press(b, 'Deny with a reason…');
    await shown(b.message_id, (x) => x.text?.includes('Send the reason for denying') ?? false);
    const back = await shown(a.message_id, (x) => x.text?.endsWith('Waiting for your answer.') ?? false);
    expect(labels(back)).toEqual(['Allow', 'Deny', 'Deny with a reason…', 'Allow `npm test -- --run` for this session']);
    h.fake.userSends('keep notes out of the repo');
    await waitFor((x) => x.text === 'Denied.');
    expect((await commands(sessionId)).map((c) => c.payload)).toEqual([
      expect.objectContaining({ requestId: second, decision: 'deny', message: 'keep notes out of the repo' }),
    ]);
    expect((await promptRow(db, first)).state).toBe('pending');
  });

  it('the text after "Deny with a reason…" is not sent to the session even when the request was answered elsewhere meanwhile', async () => {
    const { sessionId } = await sessionInChat();
    const promptId = await bash(sessionId);
    const m = await waitFor((x) => x.text?.startsWith('Permission request') ?? false);
    await press(m, 'Deny with a reason…');
    await shown(m.message_id, (x) => x.text?.includes('Send the reason for denying') ?? false);
    await answerPrompt({ db }, { promptId, decision: 'allow', from: 'dashboard' });
    await shown(m.message_id, (x) => (x.text?.endsWith('Answered: Allow (from the dashboard)') ?? false) && buttons(x).length === 0);
    h.fake.userSends('too late, deny');
    const notUsed = await waitFor((x) => x.text?.startsWith('That request is no longer pending, so your text was not used') ?? false);
    expect(notUsed.text?.endsWith('Already answered: Allow (from the dashboard)')).toBe(true);
    expect(await countMessages(db, { sessionId })).toBe(0);
    expect(await commands(sessionId)).toHaveLength(1);
    expect((await chatRow(db, ADA)).flow).toBeNull();
    // Only that one text: the next is a message for the session again.
    h.fake.userSends('carry on');
    await expect.poll(() => countMessages(db, { sessionId }), { timeout: 20_000 }).toBe(1);
  });

  it("an answer from a push notification's Allow: the Telegram message says so and loses its buttons", async () => {
    const { sessionId } = await sessionInChat();
    const promptId = await bash(sessionId);
    const m = await waitFor((x) => x.text?.startsWith('Permission request') ?? false);
    // The path the notification's token takes (services/push/push-answer.ts) ends in this call.
    await answerPrompt({ db }, { promptId, decision: 'allow', from: 'notification' });
    await shown(m.message_id, (x) => (x.text?.endsWith('Answered: Allow (from the notification)') ?? false) && buttons(x).length === 0);
    expect((await commands(sessionId)).map((c) => c.payload)).toEqual([expect.objectContaining({ requestId: promptId, decision: 'allow', from: 'dashboard' })]);
  });

  it('later phases redraw the message: from the dashboard, waits at the computer (with a notice), answered there, turn ended; a late press is out of date', async () => {
    const { sessionId } = await sessionInChat();
    const viaDashboard = await bash(sessionId);
    const m1 = await waitFor((x) => x.text?.startsWith('Permission request') ?? false);
    await answerPrompt({ db }, { promptId: viaDashboard, decision: 'allow', from: 'dashboard' });
    await shown(m1.message_id, (x) => (x.text?.endsWith('Answered: Allow (from the dashboard)') ?? false) && buttons(x).length === 0);

    const waits = await bash(sessionId);
    const m2 = await waitFor((x) => x.message_id > m1.message_id && (x.text?.startsWith('Permission request') ?? false));
    await changePrompt(db, waits, { state: 'waiting_at_computer' });
    // A retry of the row (Telegram answered 502 to the notice) edits again and sends the notice once.
    h.fake.failNext('sendMessage', { code: 502 });
    await promptPhase(db, { promptId: waits, chatId: ADA, phase: 'waiting_at_computer' });
    const notice = await waitFor((x) => x.text === 'Nobody answered in time: the question now waits at the computer. Session: Fix the tests · project');
    await shown(m2.message_id, (x) => (x.text?.endsWith('Nobody answered in time: it now waits at the computer.') ?? false) && buttons(x).length === 0);
    await changePrompt(db, waits, { state: 'answered_at_computer', answeredFrom: 'computer', resolvedAt: new Date() });
    await promptPhase(db, { promptId: waits, chatId: ADA, phase: 'answered_at_computer' });
    await shown(m2.message_id, (x) => x.text?.endsWith('Answered at the computer.') ?? false);
    const chat = await h.fake.waitForChat((ms) => ms.some((x) => x.message_id === notice.message_id));
    expect(chat.filter((x) => x.text?.startsWith('Nobody answered in time'))).toHaveLength(1);

    const ends = await bash(sessionId);
    const m3 = await waitFor((x) => x.message_id > notice.message_id && (x.text?.startsWith('Permission request') ?? false));
    await changePrompt(db, ends, { state: 'ended', resolvedAt: new Date() });
    expect(await press(m3, 'Allow')).toBe('This request is no longer pending.');
    await promptPhase(db, { promptId: ends, chatId: ADA, phase: 'ended' });
    await shown(m3.message_id, (x) => (x.text?.endsWith('No longer pending: the turn ended.') ?? false) && buttons(x).length === 0);
    expect(await commands(sessionId)).toHaveLength(1);
  });
});

describe('a question in the chat', () => {
  it('answered by a button: the option is the answer', async () => {
    const { sessionId } = await sessionInChat();
    const promptId = await seedPrompt(db, { sessionId, chatId: ADA, kind: 'question', toolName: 'AskUserQuestion', toolInput: { questions: [COLOR] } });
    const m = await waitFor((x) => x.text?.startsWith('Question · Fix the tests · project') ?? false);
    expect(m.text).toContain('Color · Which color do you prefer?\n  • Red: warm\n  • Blue: cool');
    expect(labels(m)).toEqual(['Red', 'Blue', 'Answer in text']);
    expect(await press(m, 'Blue')).toBe('Answer sent.');
    const cmds = await commands(sessionId);
    expect(cmds).toHaveLength(1);
    expect(cmds[0]?.payload).toMatchObject({ requestId: promptId, decision: 'allow', answers: { 'Which color do you prefer?': 'Blue' }, from: 'telegram' });
    await shown(m.message_id, (x) => (x.text?.endsWith('Answered (from Telegram): Blue') ?? false) && buttons(x).length === 0);
  });

  it('several questions: ticks and Send for a multi-select, then an answer in text; one answer with both', async () => {
    const { sessionId } = await sessionInChat();
    const toppings = {
      question: 'Which toppings?',
      header: 'Toppings',
      multiSelect: true,
      options: [
        { label: 'Cheese', description: '' },
        { label: 'Ham', description: '' },
        { label: 'Olives', description: '' },
      ],
    };
    await seedPrompt(db, { sessionId, chatId: ADA, kind: 'question', toolName: 'AskUserQuestion', toolInput: { questions: [toppings, COLOR] } });
    const m = await waitFor((x) => x.text?.startsWith('Question') ?? false);
    expect(labels(m)).toEqual(['☐ Cheese', '☐ Ham', '☐ Olives', 'Next', 'Answer in text']);
    expect(m.text).toContain('(question 1 of 2)');
    expect(await press(m, 'Next')).toBe('Tick at least one option first.');
    await press(m, '☐ Cheese');
    const one = await shown(m.message_id, (x) => labels(x)[0] === '☑ Cheese');
    await press(one, '☐ Olives');
    const two = await shown(m.message_id, (x) => labels(x)[2] === '☑ Olives');
    expect(labels(two)).toEqual(['☑ Cheese', '☐ Ham', '☑ Olives', 'Next', 'Answer in text']);
    expect(await commands(sessionId)).toHaveLength(0);
    await press(two, 'Next');
    const second = await shown(m.message_id, (x) => x.text?.includes('(question 2 of 2)') ?? false);
    expect(second.text).toContain('→ Cheese, Olives');
    expect(labels(second)).toEqual(['Red', 'Blue', 'Answer in text']);
    expect(await press(second, 'Answer in text')).toBe('Send it as your next message.');
    await shown(m.message_id, (x) => x.text?.includes('Send your answer to "Which color do you prefer?" as your next message') ?? false);
    h.fake.userSends('green, like the logo');
    await waitFor((x) => x.text === 'Answer sent.');
    const cmds = await commands(sessionId);
    expect(cmds).toHaveLength(1);
    expect(cmds[0]?.payload).toMatchObject({
      decision: 'allow',
      answers: { 'Which toppings?': 'Cheese, Olives', 'Which color do you prefer?': 'green, like the logo' },
    });
    expect(await countMessages(db, { sessionId })).toBe(0);
    await shown(
      m.message_id,
      (x) =>
        (x.text?.endsWith('Answered (from Telegram): Which toppings? → Cheese, Olives; Which color do you prefer? → green, like the logo') ?? false) &&
        buttons(x).length === 0,
    );
    expect((await chatRow(db, ADA)).flow).toBeNull();
  });
});
