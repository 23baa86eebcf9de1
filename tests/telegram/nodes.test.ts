import { randomUUID } from 'node:crypto';
import type { Message } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeBin } from '../../packages/testkit/src/cli-homes.ts';
import { procAlive, waitUntil } from '../../packages/testkit/src/system.ts';
import { enrolSecondNode, type SecondNode } from './second-node.ts';
import { startWorld, type World } from './world.ts';

// Two computers from one chat over the real system: node-1 (the scenario system's agent) and node-2
// (a second real agent with its own CLI home and tmux server), both running the real Claude Code
// against the mock model server. Node selection, a failed resume, tampered buttons and refused
// messages. One system for the file; the tests run in order.
let w: World;
let n2: SecondNode;
beforeAll(async () => {
  w = await startWorld({ executors: ['claude'] });
  n2 = await enrolSecondNode(w.sys, { name: 'node-2', executors: ['claude'] });
  // Someone used Claude Code on node-2 by hand before Bria's agent ever ran there.
  handFolder = n2.folder('by-hand');
  expect(await n2.runByHand(claudeBin, ['-p', 'a question typed by hand'], handFolder)).toBe(0);
});
afterAll(async () => {
  await n2?.dispose();
  await w?.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const has = (s: string) => (m: Message) => m.text?.includes(s) ?? false;
const is = (s: string) => (m: Message) => m.text === s;
const chatRow = () => w.sys.db.telegramChat.findUniqueOrThrow({ where: { chatId: BigInt(w.userId) } });
const activeOn = async (nodeId: string) =>
  (await w.sys.db.chatNodeState.findUnique({ where: { chatId_nodeId: { chatId: BigInt(w.userId), nodeId } } }))?.activeSessionId ?? null;
let a = '';
let b = '';
let folderA = '';
let folderB = '';
let handFolder = '';

/** `/new` with two computers: the computer, then (one executor enabled) straight to the folder. */
async function newSessionOn(nodeButton: string, folder: string, nodeName: string): Promise<string> {
  const from = w.lastId();
  w.say('/new');
  const pick = await w.waitFor((m) => m.message_id > from && is('New session — which computer?')(m));
  w.press(pick, nodeButton);
  await w.waitFor((m) => m.message_id > pick.message_id && (m.text?.startsWith('Which folder?') ?? false));
  w.say(folder);
  await w.waitFor((m) => m.message_id > pick.message_id && has(`Claude Code · ${nodeName}`)(m) && has(`Folder: ${folder}`)(m));
  await w.waitCard((t) => t.includes(`Folder: ${folder}`) && t.includes('State: ready'));
  return (await chatRow()).cardSessionId as string;
}

async function finalFor(text: string): Promise<Message> {
  const sent = w.say(text);
  return w.waitFor((m) => m.message_id > sent.message_id && has(text)(m) && (m.text?.startsWith('MOCK-REPLY') ?? false), 60_000);
}

describe('two computers in one chat', () => {
  it('/nodes lists each computer online/offline with its open sessions; choosing the offline one shows nothing of the other', async () => {
    folderA = w.sys.folder('nodes-a');
    a = await newSessionOn('🟢 node-1', folderA, 'node-1');
    const from = w.lastId();
    w.say('/nodes');
    const list = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Computers:') ?? false));
    expect(list.text).toBe('Computers:\nnode-1 · online · 1 open\nnode-2 · offline · 0 open');
    expect(w.buttons(list).map((x) => x.text)).toEqual(['🟢 node-1', '⚪ node-2']);

    const { callbackQueryId } = w.press(list, '⚪ node-2');
    expect((await w.callbackAnswer(callbackQueryId)).text).toBe('Selected: node-2.');
    await w.waitFor((m) => m.message_id > list.message_id && is('No open session on node-2. Send /new to start one.')(m));
    expect((await chatRow()).selectedNodeId).toBe(n2.nodeId);
    const from2 = w.lastId();
    w.say('/sessions');
    await w.waitFor((m) => m.message_id > from2 && is('No open sessions on node-2.')(m));
    // Text goes nowhere: node-1's session is not this computer's.
    const sent = w.say('hello second computer');
    await w.waitFor((m) => m.message_id > sent.message_id && is('There is no active session. Send /new to start one.')(m));
    expect(await w.sys.db.message.count({ where: { text: 'hello second computer' } })).toBe(0);
    expect((await w.sys.session(a)).state).toBe('Ready');
  });

  it('with a session on each: choosing a computer restores its last active session, shows only its sessions, and text reaches its CLI', async () => {
    await n2.startAgent();
    folderB = n2.folder('nodes-b');
    b = await newSessionOn('🟢 node-2', folderB, 'node-2');
    expect(b).not.toBe(a);
    expect((await w.sys.session(b)).nodeId).toBe(n2.nodeId);
    const from = w.lastId();
    w.say('/nodes');
    const list = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Computers:') ?? false));
    expect(list.text).toBe('Computers:\nnode-1 · online · 1 open\nnode-2 · online · 1 open');
    const from2 = w.lastId();
    w.say('/sessions');
    const s2 = await w.waitFor((m) => m.message_id > from2 && is('Open sessions on node-2:')(m));
    expect(w.buttons(s2).map((x) => x.text)).toEqual(['Claude Code · ready · work/nodes-b']);

    w.press(list, '🟢 node-1');
    const cardA = await w.waitFor((m) => m.message_id > s2.message_id && has('Claude Code · node-1')(m) && has(`Folder: ${folderA}`)(m));
    expect((await w.waitCard((t) => t.includes(`Folder: ${folderA}`), 10_000)).message_id).toBe(cardA.message_id);
    expect((await chatRow()).selectedNodeId).toBe(w.sys.nodeId);
    expect([await activeOn(w.sys.nodeId), await activeOn(n2.nodeId)]).toEqual([a, b]);
    const from3 = w.lastId();
    w.say('/sessions');
    const s1 = await w.waitFor((m) => m.message_id > from3 && is('Open sessions on node-1:')(m));
    expect(w.buttons(s1).map((x) => x.text)).toEqual(['Claude Code · ready · work/nodes-a']);
    const nativeA = (await w.sys.session(a)).nativeSessionId as string;
    const nativeB = (await w.sys.session(b)).nativeSessionId as string;
    await finalFor('to the first computer');
    expect(w.sys.turns('claude', nativeA).filter((r) => (r.userText ?? '').includes('to the first computer'))).toHaveLength(1);
    expect(w.sys.turns('claude', nativeB)).toHaveLength(0);
    // /status is about the selected computer's active session, token use included.
    await w.waitCard((t) => t.includes('State: ready'), 15_000);
    const usage = await waitUntil(
      'the usage report',
      async () => (await w.sys.session(a)).usage as { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number } | null,
      15_000,
    );
    await waitUntil('the context use', async () => (await w.sys.session(a)).contextUsed !== null, 15_000);
    const from4 = w.lastId();
    w.say('/status');
    const st = await w.waitFor((m) => m.message_id > from4 && has('Native id')(m));
    expect(st.text?.split('\n')).toEqual([
      'Claude Code · node-1',
      `Native id: ${nativeA}`,
      'State: ready',
      expect.stringMatching(/^Time left: 11 h 5\d min$/),
      // The journal's context use (the last request's input, cache reads included) against Claude's window.
      // The usage report sends the kinds apart (issue 33): input without cache, cache reads, cache writes.
      `Context: ${Math.round(((usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)) / 200_000) * 1000) / 10}% of 200,000 tokens · compactions: 0`,
      `Output: ${usage.outputTokens.toLocaleString('en-US')} tokens (last request)`,
      'Queue: 0 waiting',
      // Back to the desk: the command that continues this very CLI at the computer (docs/handoff.md).
      `At the computer: tmux -L ${w.sys.tmuxSocket} attach -t ${(await w.sys.identity(a)).tmuxSession}`,
    ]);

    // The same list again (navigation, not an action: an earlier list still works).
    w.press(list, '🟢 node-2');
    const cardB = await w.waitFor((m) => m.message_id > cardA.message_id && has('Claude Code · node-2')(m) && has(`Folder: ${folderB}`)(m));
    expect((await w.waitCard((t) => t.includes(`Folder: ${folderB}`), 10_000)).message_id).toBe(cardB.message_id);
    await finalFor('to the second computer');
    expect(w.sys.turns('claude', nativeB).filter((r) => (r.userText ?? '').includes('to the second computer'))).toHaveLength(1);
    expect(w.sys.turns('claude', nativeA).filter((r) => (r.userText ?? '').includes('to the second computer'))).toHaveLength(0);
    // Switching computers never stopped anything.
    expect(procAlive((await w.sys.identity(a)).cliPid) && procAlive((await w.sys.identity(b)).cliPid)).toBe(true);
    // (the final leaves before the engine has recorded the end of the work: wait for that)
    await w.sys.waitState(b, 'Ready', 15_000);
    expect((await w.sys.session(a)).state).toBe('Ready');
  });

  it('a failed resume: one notice with the cause and a New session button; the session active before is active again', async () => {
    const ghost = await w.sys.db.session.create({
      data: {
        id: randomUUID(),
        nodeId: n2.nodeId,
        executor: 'claude',
        nativeSessionId: randomUUID(),
        folder: n2.folder('vanished'),
        state: 'Archived',
        launchSource: 'discovered',
        observerGeneration: 0,
        archivedAt: new Date(),
        archiveSortAt: new Date(),
        nativeLastActivity: new Date(),
        title: 'a vanished session',
      },
    });
    const from = w.lastId();
    w.say('/archive');
    const list = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Archive of node-2') ?? false));
    expect(list.text).toContain('1. a vanished session');
    w.press(list, 'Resume 1');
    const status = await w.waitFor((m) => m.message_id > list.message_id && (m.text?.startsWith('Resuming a vanished session · ') ?? false), 15_000);
    expect(w.buttons(status)).toEqual([]);
    const isNotice = (m: Message) => m.text?.startsWith('The archived session could not be resumed') ?? false;
    const notice = await w.waitFor((m) => m.message_id > list.message_id && isNotice(m), 45_000);
    expect(notice.text).toContain('You can open a new session and ask the agent to recover the context from the archived one.');
    expect(w.buttons(notice).map((x) => x.text)).toEqual(['New session']);
    // No card of the failed session: the status became the notice, nothing else names it.
    expect(notice.message_id).toBe(status.message_id);
    // Under the notice: the card of the session that was active before, which is active again.
    const back = await w.waitFor((m) => m.message_id > notice.message_id && has('Claude Code · node-2')(m) && has(`Folder: ${folderB}`)(m), 15_000);
    expect((await w.waitCard((t) => t.includes(`Folder: ${folderB}`), 10_000)).message_id).toBe(back.message_id);
    expect(await activeOn(n2.nodeId)).toBe(b);
    await sleep(2500);
    expect(w.botMessagesAfter(list.message_id, isNotice)).toHaveLength(1);
    // What the chat shows after the list: the notice and the card of the session active before. Nothing else.
    expect(w.botMessagesAfter(list.message_id).map((m) => m.message_id)).toEqual([notice.message_id, back.message_id]);
    expect(
      [...w.fake.calls('sendMessage'), ...w.fake.calls('editMessageText')].filter((c) => String(c.params.text).includes(`Folder: ${ghost.folder}`)),
    ).toEqual([]);
    const after = await w.sys.session(ghost.id);
    expect([after.state, after.nativeSessionId, after.title]).toEqual(['Archived', ghost.nativeSessionId, ghost.title]);
    // And text goes to that session's CLI at once.
    await finalFor('back after the failed resume');
    const nativeB = (await w.sys.session(b)).nativeSessionId as string;
    expect(w.sys.turns('claude', nativeB).filter((r) => (r.userText ?? '').includes('back after the failed resume'))).toHaveLength(1);
    await w.sys.waitState(b, 'Ready', 15_000);
  });

  it('tampered or unknown button data is answered "out of date" (no spinner left turning), the card is refreshed, nothing acts', async () => {
    const card = await w.card();
    const gen = (await chatRow()).cardGeneration;
    const sessionsBefore = await w.sys.db.session.count();
    const tampered = [
      // unparseable: no generation, a session id that is not one, no known action
      'arch:zz',
      'resume:1:not-a-uuid:a',
      'nonsense',
      // well-formed but not drawn by Bria: an unknown computer, a lifetime not offered, another
      // session than the card's, a /new flow that does not exist
      `node:${gen}:::${randomUUID()}`,
      `set:${gen}:::life=7`,
      `close:${gen}:${a}:1`,
      `fnode:1:::${n2.nodeId}`,
    ];
    for (const data of tampered) {
      const edits = w.fake.calls('editMessageText').length;
      const { callbackQueryId } = w.fake.userPresses(card.message_id, data, { force: true });
      expect((await w.callbackAnswer(callbackQueryId)).text, data).toBe('This button is out of date.');
      await waitUntil(
        `the card refreshed after ${data}`,
        async () =>
          w.fake
            .calls('editMessageText')
            .slice(edits)
            .some((c) => Number(c.params.message_id) === card.message_id),
        10_000,
      );
    }
    // Every press answered exactly once.
    const ids = w.fake.callbackAnswers().map((x) => x.callbackQueryId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await w.sys.db.session.count()).toBe(sessionsBefore);
    expect([(await w.sys.session(a)).state, (await w.sys.session(b)).state]).toEqual(['Ready', 'Ready']);
    expect((await w.card()).text).not.toContain('Close this session?');
  });

  it('the card says plainly while a session awaits recovery, and is Ready again once its computer is back; nothing is added to answers', async () => {
    const card = await w.card();
    const pid = (await w.sys.identity(b)).cliPid;
    await n2.killAgent();
    const waiting = await w.waitCard((t) => t.includes('State: reconnecting'), 30_000);
    expect(waiting.message_id).toBe(card.message_id);
    expect(waiting.text).toContain('The connection to this session is being restored. Your messages are kept and will be delivered.');
    // No lifecycle button while reconnecting (the engine closes only a Ready session; no manual Recover).
    expect(w.buttons(waiting).map((x) => x.text)).toEqual(['Sessions', 'New session']);
    await n2.startAgent();
    await w.waitCard((t) => t.includes('State: ready') && !t.includes('being restored'), 45_000);
    // The same CLI process, re-attached; the next answer carries no error text.
    expect((await w.sys.identity(b)).cliPid).toBe(pid);
    expect(procAlive(pid)).toBe(true);
    const final = await finalFor('after the computer came back');
    expect(final.text).toMatch(/^MOCK-REPLY-\d+: you said "after the computer came back"$/);
    await w.sys.waitState(b, 'Ready', 15_000);
  });

  it("refused messages say why, in the chat's language: control characters, a closing session, a closed one", async () => {
    const count = () => w.sys.db.message.count({ where: { sessionId: b } });
    const before = await count();
    const bell = w.say('ring the \u0007 bell');
    await w.waitFor(
      (m) =>
        m.message_id > bell.message_id && is('Not sent: the message contains control characters a terminal cannot take. Remove them and send it again.')(m),
    );
    expect(await count()).toBe(before);

    // Closing: node-2's agent is paused, so the close cannot finish while the message arrives.
    const card = await w.waitCard((t) => t.includes('State: ready'), 15_000);
    w.press(card, 'Close');
    const confirm = await w.waitCard((t) => t.includes('Close this session?'), 10_000);
    n2.pauseAgent();
    try {
      w.press(confirm, 'Yes, close');
      await w.sys.waitState(b, 'Closing', 10_000);
      const late = w.say('one more for the closing session');
      await w.waitFor(
        (m) => m.message_id > late.message_id && is('Not sent: this session is closing. Once it is in the /archive you can resume it, or start a /new one.')(m),
      );
      expect(await count()).toBe(before);
      expect((await w.sys.session(b)).state).toBe('Closing');
    } finally {
      n2.resumeAgent();
    }
    await w.waitFor((m) => m.message_id > card.message_id && is('The session was closed and moved to the archive.')(m), 60_000);
    expect((await w.sys.session(b)).state).toBe('Archived');

    const after = w.say('anyone there?');
    await w.waitFor((m) => m.message_id > after.message_id && is('Not sent: this session is closed. Resume it from /archive or start a /new one.')(m));
    // The same refusal in Russian once the chat's language is switched in /settings.
    const from = w.lastId();
    w.say('/settings');
    const settings = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Settings') ?? false));
    w.press(settings, 'Русский');
    await w.waitFor((m) => m.message_id === settings.message_id && (m.text?.startsWith('Настройки') ?? false));
    const ru = w.say('есть кто?');
    await w.waitFor((m) => m.message_id > ru.message_id && is('Не отправлено: эта сессия закрыта. Возобновите её из /archive или начните новую: /new.')(m));
    await sleep(1000);
    expect(w.botMessagesAfter(bell.message_id, (m) => /^(Not sent|Не отправлено)/.test(m.text ?? ''))).toHaveLength(4);
    expect(await count()).toBe(before);
    // Back to English for what follows.
    const ruSettings = w.messages().find((m) => m.message_id === settings.message_id) as Message;
    w.press(ruSettings, 'English');
    await w.waitFor((m) => m.message_id === settings.message_id && (m.text?.startsWith('Settings') ?? false));
  });
  it('a session run by hand on the computer is in its /archive; Resume reopens that same native session with its history', async () => {
    const hand = w.sys.allTurns('claude').find((r) => r.userText === 'a question typed by hand');
    const nativeHand = hand?.sessionId as string;
    expect(nativeHand).toMatch(/^[0-9a-f-]{36}$/);
    const row = await waitUntil(
      'the discovered session',
      async () => w.sys.db.session.findFirst({ where: { nodeId: n2.nodeId, nativeSessionId: nativeHand } }),
      30_000,
    );
    expect([row.state, row.folder, row.launchSource]).toEqual(['Archived', handFolder, 'discovered']);
    const from = w.lastId();
    w.say('/archive');
    const list = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Archive of node-2') ?? false));
    const n = (list.text ?? '')
      .split(/\n(?=\d+\. )/)
      .find((e) => e.includes('a question typed by hand'))
      ?.match(/^(\d+)\. /)?.[1];
    expect(n, list.text).toBeTruthy();
    expect(list.text).toContain(handFolder);
    expect(list.text).not.toContain('nodes-a');
    w.press(list, `Resume ${n}`);
    await w.waitFor((m) => m.message_id > list.message_id && has(`Folder: ${handFolder}`)(m));
    await w.waitCard((t) => t.includes(`Folder: ${handFolder}`) && t.includes('State: ready'), 45_000);
    expect(await activeOn(n2.nodeId)).toBe(row.id);
    await finalFor('what did I type by hand before?');
    const turns = w.sys.turns('claude', nativeHand).filter((r) => (r.userText ?? '').includes('what did I type by hand before?'));
    expect(turns).toHaveLength(1);
    expect(JSON.stringify(turns[0]?.body)).toContain('a question typed by hand');
    expect((await w.sys.session(row.id)).nativeSessionId).toBe(nativeHand);
  });
  it('lifetime ends while the agent works: the answer still arrives, new text gets one notice and is not queued, then it closes; a closed session elsewhere is named', async () => {
    const from = w.lastId();
    w.say('/nodes');
    const list = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Computers:') ?? false));
    w.press(list, '🟢 node-1');
    await w.waitFor((m) => m.message_id > list.message_id && has(`Folder: ${folderA}`)(m));
    await w.waitCard((t) => t.includes(`Folder: ${folderA}`) && t.includes('State: ready'), 15_000);
    const other = (await activeOn(n2.nodeId)) as string;
    expect((await w.sys.session(other)).state).toBe('Ready');
    const pid = (await w.sys.identity(a)).cliPid;
    const nativeA = (await w.sys.session(a)).nativeSessionId as string;
    const slow = w.say('SLOW the last long answer');
    await w.waitCard((t) => t.includes('State: working'), 30_000);
    // The lifetime runs out now. (Not by moving the engine's clock: the bot process keeps real time, so
    // outbox rows the engine dated 12 h ahead would wait 12 h. The deadline and its timer are moved
    // instead, for this session and node-2's idle one, as if both had been started 12 h ago.)
    const due = new Date(Date.now() + 1000);
    for (const id of [a, other]) {
      await w.sys.db.session.update({ where: { id }, data: { lifetimeDeadline: due } });
      expect((await w.sys.db.sessionTimer.updateMany({ where: { sessionId: id, name: 'lifetime' }, data: { dueAt: due } })).count).toBe(1);
    }
    await w.sys.waitState(a, 'ClosingAfterWork', 15_000);
    await w.waitCard((t) => t.includes('State: finishing, then closing'), 15_000);
    expect(procAlive(pid)).toBe(true);
    const late = w.say('too late for this one');
    const expired = "Not sent: this session's lifetime has ended. It will close after its current work. Start a /new session.";
    await w.waitFor((m) => m.message_id > late.message_id && is(expired)(m));
    const final = await w.waitFor(
      (m) => m.message_id > slow.message_id && has('SLOW the last long answer')(m) && (m.text?.startsWith('MOCK-REPLY') ?? false),
      60_000,
    );
    expect(final.text).toContain('[40/40]');
    await w.sys.waitState(a, 'Archived', 45_000);
    await w.waitFor((m) => m.message_id > slow.message_id && is('The session was closed and moved to the archive.')(m), 15_000);
    // node-2's idle session expired too; its notice says which session on which computer.
    await w.sys.waitState(other, 'Archived', 45_000);
    await w.waitFor(
      (m) => m.message_id > slow.message_id && (m.text?.startsWith('A session on node-2 was closed and moved to the archive: ') ?? false),
      15_000,
    );
    expect(procAlive(pid)).toBe(false);
    const after = w.say('still there?');
    await w.waitFor(
      (m) =>
        m.message_id > after.message_id && is("Not sent: this session's lifetime ended and it was closed. Resume it from /archive or start a /new one.")(m),
    );
    await sleep(1000);
    expect(w.botMessagesAfter(slow.message_id, is(expired))).toHaveLength(1);
    expect(w.botMessagesAfter(slow.message_id, is('The session was closed and moved to the archive.'))).toHaveLength(1);
    expect(await w.sys.db.message.count({ where: { text: { in: ['too late for this one', 'still there?'] } } })).toBe(0);
    expect(w.sys.turns('claude', nativeA).filter((r) => /too late|still there/.test(r.userText ?? ''))).toHaveLength(0);
  });
});
