import { randomUUID } from 'node:crypto';
import type { Message } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procAlive, waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';

// /archive paging and the /new flow's "resume instead?" step over the real system (hub, engine,
// a node agent running the real Claude Code against the mock model, the bot process, the fake Bot
// API). Every archived session here is a real one that was used and closed, except one Codex row
// written directly (this world runs no Codex) to show the offer leaves out other executors. One
// system for the file; the tests run in order.
let w: World;
beforeAll(async () => {
  w = await startWorld({ executors: ['claude'] });
});
afterAll(async () => {
  await w?.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const has = (s: string) => (m: Message) => m.text?.includes(s) ?? false;
const chatRow = () => w.sys.db.telegramChat.findUniqueOrThrow({ where: { chatId: BigInt(w.userId) } });
const minute = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
const OFFER = 'There are earlier Claude Code sessions in this folder. Resume one instead?';

let folder = '';
let s1 = '';
let native1 = '';

/** `/new` with one computer and one executor: straight to the folder, then the typed folder. */
async function typeNew(f: string): Promise<number> {
  const from = w.lastId();
  w.say('/new');
  await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Which folder?') ?? false));
  w.say(f);
  return from;
}

describe('the archive from the chat', () => {
  it('a real session, used and closed, is in the archive', async () => {
    folder = w.sys.folder('offer');
    const from = await typeNew(folder);
    await w.waitFor((m) => m.message_id > from && has(`Folder: ${folder}`)(m));
    s1 = (await chatRow()).cardSessionId as string;
    await w.waitCard((t) => t.includes('State: ready'));
    const sent = w.say('the first prompt of the offered session');
    await w.waitFor(
      (m) => m.message_id > sent.message_id && has('the first prompt of the offered session')(m) && (m.text?.startsWith('MOCK-REPLY') ?? false),
      60_000,
    );
    const card = await w.waitCard((t) => t.includes('State: ready'), 15_000);
    const pid = (await w.sys.identity(s1)).cliPid;
    w.press(card, 'Close');
    w.press(await w.waitCard((t) => t.includes('Close this session?'), 10_000), 'Yes, close');
    await w.waitFor((m) => m.message_id > card.message_id && m.text === 'The session was closed and moved to the archive.', 45_000);
    const row = await w.sys.session(s1);
    expect(row.state).toBe('Archived');
    native1 = row.nativeSessionId as string;
    expect(native1).toBeTruthy();
    expect(procAlive(pid)).toBe(false);
  });

  it('/archive: newest first, five a page with More, each entry with its title or first prompt, executor, folder and last activity', async () => {
    // Five more real sessions (real Claude Code, one turn each, a verified close), made through the
    // services rather than the chat to save the chat steps; with the first one, six: more than a
    // page. One after another, a second apart, so their last activity has a known order (the
    // engine and the agent's discovery both set it, the latter from the journal, a little later).
    const made: string[] = [];
    for (const i of [1, 2, 3, 4, 5]) {
      await sleep(1100);
      const { id } = await w.sys.createSession('claude', w.sys.folder(`page-${i}`));
      await w.sys.waitState(id, 'Ready', 60_000);
      await w.sys.send(id, `archived prompt number ${i}`);
      await w.sys.waitMessages(id, (st) => st.at(-1) === 'completed', 60_000);
      await w.sys.waitState(id, 'Ready', 15_000);
      await w.sys.close(id);
      await w.sys.waitState(id, 'Archived', 60_000);
      made.push(id);
    }
    const read = () => Promise.all([s1, ...made].map((id) => w.sys.session(id)));
    type Row = Awaited<ReturnType<typeof read>>[number];
    const when = (r: Row) => r.nativeLastActivity ?? r.archivedAt ?? r.createdAt;
    const line = (r: Row, n: number) =>
      `${n}. ${(r.title ?? r.firstPrompt ?? '(no title)').replace(/\s+/g, ' ').slice(0, 80)}\n   Claude Code · ${r.folder} · ${minute(when(r))}`;
    // Each entry is titled by the CLI's own title (the first prompt when it has none) and shows its own folder.
    for (const [i, r] of (await read()).slice(1).entries()) {
      expect(r.firstPrompt).toContain(`archived prompt number ${i + 1}`);
      expect(r.title ?? r.firstPrompt).toBeTruthy();
      expect(r.folder).toBe(w.sys.folder(`page-${i + 1}`));
    }

    const from = w.lastId();
    w.say('/archive');
    const p1 = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Archive of node-1 (page 1):') ?? false));
    // Newest first: the last one used comes first, the first session (used longest ago) last.
    const rows = await read();
    const newest = [5, 4, 3, 2, 1, 0].map((k) => rows[k] as Row);
    expect(p1.text?.split('\n').slice(1).join('\n')).toBe(
      newest
        .slice(0, 5)
        .map((r, k) => line(r, k + 1))
        .join('\n'),
    );
    expect(w.buttons(p1).map((b) => b.text)).toEqual(['Resume 1', 'Resume 2', 'Resume 3', 'Resume 4', 'Resume 5', 'More']);

    w.press(p1, 'More');
    const p2 = await w.waitFor((m) => m.message_id > p1.message_id && (m.text?.startsWith('Archive of node-1 (page 2):') ?? false));
    expect(p2.text?.split('\n').slice(1).join('\n')).toBe(line(newest[5] as Row, 1));
    // The last page offers no More.
    expect(w.buttons(p2).map((b) => b.text)).toEqual(['Resume 1']);
    // Paging posts a new message; page 1 stays as it was.
    expect(w.messages().find((m) => m.message_id === p1.message_id)?.text).toBe(p1.text);
    // Nothing was resumed by looking.
    expect((await Promise.all(rows.map((r) => w.sys.session(r.id)))).map((r) => r.state)).toEqual(rows.map(() => 'Archived'));
  });

  it('/new in a folder with archived sessions: no offer with the setting off; with it on, Resume instead reopens the archived session', async () => {
    // Not offered: an archived Codex session in the same folder (another executor).
    await w.sys.db.session.create({
      data: {
        id: randomUUID(),
        nodeId: w.sys.nodeId,
        executor: 'codex',
        nativeSessionId: randomUUID(),
        folder,
        state: 'Archived',
        launchSource: 'discovered',
        observerGeneration: 0,
        archivedAt: new Date(),
        archiveSortAt: new Date(),
        nativeLastActivity: new Date(),
        title: 'a codex session here',
      },
    });
    expect((await w.sys.db.settings.findUnique({ where: { id: 1 } }))?.resumeRecommendations ?? false).toBe(false);
    const from = await typeNew(folder);
    const card2 = await w.waitFor((m) => m.message_id > from && has(`Folder: ${folder}`)(m), 20_000);
    expect(w.botMessagesAfter(from, (m) => m.text === OFFER)).toEqual([]);
    const s2 = (await chatRow()).cardSessionId as string;
    expect(s2).not.toBe(s1);
    expect((await w.sys.session(s1)).state).toBe('Archived');
    await w.waitCard((t) => t.includes('State: ready'));

    const from2 = w.lastId();
    w.say('/settings');
    const st = await w.waitFor((m) => m.message_id > from2 && has('Resume suggestions: off')(m));
    w.press(st, 'Resume suggestions: on');
    await w.waitFor((m) => m.message_id === st.message_id && has('Resume suggestions: on')(m));
    expect((await w.sys.db.settings.findUniqueOrThrow({ where: { id: 1 } })).resumeRecommendations).toBe(true);

    const from3 = await typeNew(folder);
    const offer = await w.waitFor((m) => m.message_id > from3 && m.text === OFFER, 20_000);
    // Only this folder's archived Claude Code sessions: not the open one (s2), not the Codex one, not other folders.
    const r1 = await w.sys.session(s1);
    expect(w.buttons(offer).map((b) => b.text)).toEqual([`Resume: ${(r1.title ?? r1.firstPrompt ?? '').slice(0, 40)}`, 'Start a new one']);
    const sessionsBefore = await w.sys.db.session.count();
    w.press(offer, /^Resume: /);
    const status = await w.waitFor((m) => m.message_id > offer.message_id && (m.text?.startsWith('Resuming ') ?? false), 15_000);
    expect(w.buttons(status)).toEqual([]);
    // Once resumed, the status becomes its card, in place.
    // (s2's card shows the same folder: wait for the chat's card to be s1's)
    await waitUntil('s1 as the card', async () => (await chatRow()).cardSessionId === s1, 45_000);
    const card = await w.waitCard((t) => t.includes(`Folder: ${folder}`) && t.includes('State: ready'), 45_000);
    expect(card.message_id).toBe(status.message_id);
    expect((await chatRow()).cardSessionId).toBe(s1);
    const row = await w.sys.session(s1);
    expect([row.state, row.nativeSessionId]).toEqual(['Ready', native1]);
    expect(await w.sys.db.session.count()).toBe(sessionsBefore);
    // The other session of this folder kept running in the background.
    expect((await w.sys.session(s2)).state).toBe('Ready');
    expect(card2.message_id).toBeLessThan(card.message_id);

    const sent = w.say('after resuming from the offer, what did I ask before?');
    await w.waitFor((m) => m.message_id > sent.message_id && has('after resuming from the offer')(m) && (m.text?.startsWith('MOCK-REPLY') ?? false), 60_000);
    const turns = w.sys.turns('claude', native1).filter((r) => (r.userText ?? '').includes('after resuming from the offer'));
    expect(turns).toHaveLength(1);
    expect(JSON.stringify(turns[0]?.body)).toContain('the first prompt of the offered session');
    await sleep(1000);
    expect(w.botMessagesAfter(offer.message_id, has('Resuming '))).toEqual([]);
  });
});
