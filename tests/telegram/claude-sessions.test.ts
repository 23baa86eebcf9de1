import { randomUUID } from 'node:crypto';
import type { Message } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procAlive, waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';

// Several sessions from one chat over the real system (real Claude Code, mock model): background
// completion and Open, Close with confirmation, Resume from /archive, a failed resume, and the bot
// process SIGKILLed mid-turn. One system for the file; the tests run in order.
let w: World;
beforeAll(async () => {
  w = await startWorld({ executors: ['claude'], slowChunks: 40, slowChunkMs: 250 });
});
afterAll(async () => {
  await w?.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const has = (s: string) => (m: Message) => m.text?.includes(s) ?? false;
/** Entry n (1-based) of an /archive page: its title line and its executor · folder · time line. */
const entry = (m: Message, n: number) => (m.text ?? '').split(/\n(?=\d+\. )/).find((e) => e.startsWith(`${n}. `)) ?? '';
let a = '';
let b = '';
let nativeA = '';

describe('sessions from the chat', () => {
  it('a background session finishing: one short notice; Open makes it active and shows its final; the other keeps working', async () => {
    // With one executor enabled the executor step is skipped.
    const from = w.lastId();
    w.say('/new');
    await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Which folder?') ?? false));
    const folderA = w.sys.folder('bg-a');
    w.say(folderA);
    await w.waitFor((m) => m.message_id > from && has(`Folder: ${folderA}`)(m));
    a = (await w.sys.db.telegramChat.findUniqueOrThrow({ where: { chatId: BigInt(w.userId) } })).cardSessionId as string;
    await w.waitCard((t) => t.includes('State: ready'));
    nativeA = (await w.sys.session(a)).nativeSessionId as string;

    w.say('SLOW background chapter');
    await w.waitCard((t) => t.includes('State: working'));
    // The user moves on to a new session while A works: A is now in the background.
    const folderB = w.sys.folder('bg-b');
    const from2 = w.lastId();
    w.say('/new');
    const ask = await w.waitFor((m) => m.message_id > from2 && (m.text?.startsWith('Which folder?') ?? false));
    w.say(folderB);
    const cardB = await w.waitFor((m) => m.message_id > ask.message_id && has(`Folder: ${folderB}`)(m));
    b = (await w.sys.db.telegramChat.findUniqueOrThrow({ where: { chatId: BigInt(w.userId) } })).cardSessionId as string;
    expect(b).not.toBe(a);
    await w.waitCard((t) => t.includes('State: ready'));
    w.say('SLOW foreground work in B');
    await w.waitCard((t) => t.includes('State: working'));
    const pidA = (await w.sys.identity(a)).cliPid;
    const pidB = (await w.sys.identity(b)).cliPid;

    const notice = await w.waitFor((m) => m.message_id > cardB.message_id && (m.text?.startsWith('A background session finished') ?? false), 60_000);
    expect(w.buttons(notice).map((x) => x.text)).toEqual(['Open']);
    // The notice is short and the background final did not land in B's conversation.
    expect(notice.text?.length).toBeLessThan(200);
    expect(w.botMessagesAfter(cardB.message_id, has('SLOW background chapter'))).toHaveLength(0);
    expect((await w.card()).text).toContain(`Folder: ${folderB}`);

    w.press(notice, 'Open');
    const cardA = await w.waitFor((m) => m.message_id > notice.message_id && has(`Folder: ${folderA}`)(m));
    expect(cardA.text).toContain('State: ready');
    const final = await w.waitFor((m) => m.message_id > cardA.message_id && has('SLOW background chapter')(m), 15_000);
    expect(final.text).toMatch(/^MOCK-REPLY-\d+/);
    expect((await w.sys.db.chatNodeState.findFirstOrThrow({ where: { chatId: BigInt(w.userId) } })).activeSessionId).toBe(a);
    // B kept working all along and finishes in the background in its turn; nothing was restarted.
    expect((await w.sys.session(b)).state).toBe('Running');
    const noticeB = await w.waitFor((m) => m.message_id > final.message_id && (m.text?.startsWith('A background session finished') ?? false), 60_000);
    expect(w.botMessagesAfter(notice.message_id, has('SLOW foreground work in B'))).toHaveLength(0);
    expect((await w.sys.messages(b)).map((m) => m.status)).toEqual(['completed']);
    expect([(await w.sys.identity(a)).cliPid, (await w.sys.identity(b)).cliPid]).toEqual([pidA, pidB]);
    expect(procAlive(pidA) && procAlive(pidB)).toBe(true);
    // Opening again (the notice pressed twice) never shows the final a second time.
    w.press(notice, 'Open');
    await sleep(2000);
    expect(w.botMessagesAfter(notice.message_id, has('SLOW background chapter'))).toHaveLength(1);
    expect(noticeB.message_id).toBeGreaterThan(final.message_id);
  });

  it('Close asks for confirmation; then the process is gone and the session is in /archive', async () => {
    const card = await w.waitCard((t) => t.includes('bg-a') && t.includes('State: ready'));
    const ident = await w.sys.identity(a);
    w.press(card, 'Close');
    const confirm = await w.waitCard((t) => t.includes('Close this session?'), 10_000);
    expect(
      w
        .buttons(confirm)
        .map((x) => x.text)
        .slice(0, 2),
    ).toEqual(['Yes, close', 'Cancel']);
    expect((await w.sys.session(a)).state).toBe('Ready');
    w.press(confirm, 'Yes, close');
    const closed = await w.waitFor((m) => m.message_id > card.message_id && m.text === 'The session was closed and moved to the archive.', 45_000);
    expect((await w.sys.session(a)).state).toBe('Archived');
    expect(procAlive(ident.cliPid)).toBe(false);
    // The card says so too, and offers no lifecycle button any more.
    const after = await w.waitCard((t) => t.includes('State: archived'), 10_000);
    expect(w.buttons(after).map((x) => x.text)).toEqual(['Sessions', 'New session']);
    expect(w.sys.paneDead(ident.paneId)).toBeNull();
    w.say('/archive');
    const list = await w.waitFor((m) => m.message_id > closed.message_id && (m.text?.startsWith('Archive of node-1') ?? false));
    expect(list.text).toContain('bg-a');
    expect(w.buttons(list).map((x) => x.text)).toContain('Resume 1');
  });

  it('Resume from /archive reopens the same native session with its earlier history', async () => {
    const from = w.lastId();
    w.say('/archive');
    const list = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Archive of node-1') ?? false));
    expect(entry(list, 1)).toContain('bg-a');
    w.press(list, 'Resume 1');
    const card = await w.waitFor((m) => m.message_id > list.message_id && has('bg-a')(m) && has('State:')(m));
    await w.waitCard((t) => t.includes('State: ready'), 45_000);
    const row = await w.sys.session(a);
    expect(row.nativeSessionId).toBe(nativeA);
    expect(card.message_id).toBe((await w.card()).message_id);
    const sent = w.say('after resume, what did I ask before?');
    await w.waitFor((m) => m.message_id > sent.message_id && has('after resume, what did I ask before?')(m), 60_000);
    const turns = w.sys.turns('claude', nativeA).filter((r) => (r.userText ?? '').includes('after resume'));
    expect(turns).toHaveLength(1);
    expect(JSON.stringify(turns[0]?.body)).toContain('SLOW background chapter');
  });

  it('a failed resume: exactly one notice with the cause and the way forward; the archive record is unchanged', async () => {
    const ghost = await w.sys.db.session.create({
      data: {
        id: randomUUID(),
        nodeId: w.sys.nodeId,
        executor: 'claude',
        nativeSessionId: randomUUID(),
        folder: w.sys.folder('gone'),
        state: 'Archived',
        launchSource: 'discovered',
        observerGeneration: 0,
        archivedAt: new Date(),
        archiveSortAt: new Date(),
        nativeLastActivity: new Date(),
        title: 'an old session',
      },
    });
    const sessionsBefore = await w.sys.db.session.count();
    const from = w.lastId();
    w.say('/archive');
    const list = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Archive of node-1') ?? false));
    expect(entry(list, 1)).toContain('an old session');
    w.press(list, 'Resume 1');
    // While it resumes: a plain status, no card (SPEC §3: a failed resume creates no card).
    const status = await w.waitFor((m) => m.message_id > list.message_id && (m.text?.startsWith('Resuming an old session · ') ?? false), 15_000);
    expect(w.buttons(status)).toEqual([]);
    const isNotice = (m: Message) => m.text?.startsWith('The archived session could not be resumed') ?? false;
    const notice = await w.waitFor((m) => m.message_id > list.message_id && isNotice(m), 45_000);
    expect(notice.text).toContain('You can open a new session and ask the agent to recover the context from the archived one.');
    // The real CLI's refusal, said in the user's words with the CLI's own text as the detail.
    expect(notice.text).toContain("could not be resumed: the agent's CLI found no conversation with this session's id on the computer (the computer said: ");
    await w.sys.waitState(ghost.id, 'Archived');
    await sleep(2500);
    expect(w.botMessagesAfter(list.message_id, isNotice)).toHaveLength(1);
    // The status itself became the notice; what the chat shows now holds no card of the failed
    // session (nor the status), and no card of it was ever sent or edited in.
    expect(notice.message_id).toBe(status.message_id);
    expect(w.botMessagesAfter(list.message_id, (m) => has(ghost.folder)(m) || has('an old session')(m) || has('Resuming')(m))).toEqual([]);
    const cardsOfGhost = [...w.fake.calls('sendMessage'), ...w.fake.calls('editMessageText')].filter((c) =>
      String(c.params.text).includes(`Folder: ${ghost.folder}`),
    );
    expect(cardsOfGhost).toEqual([]);
    expect((await w.sys.db.telegramChat.findUniqueOrThrow({ where: { chatId: BigInt(w.userId) } })).cardSessionId).not.toBe(ghost.id);
    // The session active before the attempt is active again, its card under the notice.
    expect((await w.sys.db.chatNodeState.findFirstOrThrow({ where: { chatId: BigInt(w.userId) } })).activeSessionId).toBe(a);
    expect((await w.waitCard((t) => t.includes('bg-a'), 10_000)).message_id).toBeGreaterThan(notice.message_id);
    expect((await w.card()).text).not.toContain('State: resuming');
    const after = await w.sys.session(ghost.id);
    expect([after.state, after.nativeSessionId, after.folder, after.title]).toEqual(['Archived', ghost.nativeSessionId, ghost.folder, ghost.title]);
    expect(await w.sys.db.session.count()).toBe(sessionsBefore);
    expect(w.sys.turns('claude', ghost.nativeSessionId as string)).toHaveLength(0);
  });

  it('a resume that fails while the bot is down: after its restart the status becomes the one notice; no card', async () => {
    const ghost = await w.sys.db.session.create({
      data: {
        id: randomUUID(),
        nodeId: w.sys.nodeId,
        executor: 'claude',
        nativeSessionId: randomUUID(),
        folder: w.sys.folder('gone-too'),
        state: 'Archived',
        launchSource: 'discovered',
        observerGeneration: 0,
        archivedAt: new Date(),
        archiveSortAt: new Date(),
        nativeLastActivity: new Date(),
        title: 'another old session',
      },
    });
    const from = w.lastId();
    w.say('/archive');
    const list = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Archive of node-1') ?? false));
    w.press(list, 'Resume 1');
    const status = await w.waitFor((m) => m.message_id > list.message_id && (m.text?.startsWith('Resuming another old session · ') ?? false), 15_000);
    // Killed once the status is recorded as sent (a kill between Telegram's answer and that record is
    // the outbox's documented window: the status could then be shown twice).
    await waitUntil('the status recorded', async () => (await w.sys.outbox(ghost.id)).find((r) => r.kind === 'resume_status' && r.status === 'sent'), 10_000);
    await w.bot.kill();
    // The engine decides while no bot runs: its resume_failed row waits in the outbox.
    await waitUntil('the resume_failed row', async () => (await w.sys.outbox(ghost.id)).find((r) => r.kind === 'resume_failed'), 45_000);
    expect(w.botMessagesAfter(list.message_id).map((m) => m.message_id)).toEqual([status.message_id]);
    await w.bot.start();
    const notice = await w.waitFor(
      (m) => m.message_id === status.message_id && (m.text?.startsWith('The archived session could not be resumed') ?? false),
      30_000,
    );
    expect(w.buttons(notice).map((x) => x.text)).toEqual(['New session']);
    await w.waitCard((t) => t.includes('bg-a'), 15_000);
    await sleep(2500);
    // Exactly one message about the attempt, then the card of the session active before; no card of the ghost ever.
    const after = w.botMessagesAfter(list.message_id);
    expect(after.map((m) => m.message_id)).toEqual([status.message_id, (await w.card()).message_id]);
    expect(
      [...w.fake.calls('sendMessage'), ...w.fake.calls('editMessageText')].filter((c) => String(c.params.text).includes(`Folder: ${ghost.folder}`)),
    ).toEqual([]);
    expect((await w.sys.session(ghost.id)).state).toBe('Archived');
    expect((await w.sys.outbox(ghost.id)).map((r) => [r.kind, r.status])).toEqual(
      expect.arrayContaining([
        ['resume_status', 'sent'],
        ['resume_failed', 'sent'],
      ]),
    );
  });

  it('the bot SIGKILLed mid-turn and started again delivers the final exactly once', async () => {
    const from = w.lastId();
    w.say('/sessions');
    const list = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Open sessions on node-1') ?? false));
    w.press(list, /bg-a/);
    await w.waitFor((m) => m.message_id > list.message_id && has('bg-a')(m) && has('State: ready')(m));
    const sent = w.say('SLOW answer while the bot dies');
    await w.waitCard((t) => t.includes('State: working'));
    await w.bot.kill();
    await w.sys.waitMessages(a, (st) => st.at(-1) === 'completed', 60_000);
    expect(w.botMessagesAfter(sent.message_id, has('SLOW answer while the bot dies'))).toHaveLength(0);
    await w.bot.start();
    const final = await w.waitFor((m) => m.message_id > sent.message_id && has('SLOW answer while the bot dies')(m), 30_000);
    expect(final.text).toContain('[40/40]');
    await w.waitCard((t) => t.includes('State: ready'), 15_000);
    await sleep(2500);
    expect(w.botMessagesAfter(sent.message_id, has('SLOW answer while the bot dies'))).toHaveLength(1);
    const rows = (await w.sys.outbox(a)).filter((r) => r.kind === 'final');
    expect(rows.every((r) => r.status === 'sent')).toBe(true);
  });
});
