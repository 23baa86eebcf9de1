import type { Message } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procAlive, waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';

// The same chat journey with the real Codex CLI (against the mock Responses server): /new to Ready,
// a final, Stop during a slow answer, Close with confirmation and Resume from /archive.
let w: World;
beforeAll(async () => {
  w = await startWorld({ executors: ['claude', 'codex'] });
});
afterAll(async () => {
  await w?.dispose();
});

const has = (s: string) => (m: Message) => m.text?.includes(s) ?? false;
let sessionId = '';
let native = '';
let folder = '';

describe('Codex from the Telegram chat', () => {
  it('/new → Codex → folder: the CLI starts and the card becomes Ready', async () => {
    folder = w.sys.folder('tg-codex');
    const r = await w.newSession('codex', folder);
    sessionId = r.sessionId;
    expect(r.card.text).toContain('Codex · node-1');
    const ready = await w.waitCard((t) => t.includes('State: ready'));
    expect(ready.message_id).toBe(r.card.message_id);
    const row = await w.sys.session(sessionId);
    expect([row.executor, row.folder]).toEqual(['codex', folder]);
    native = row.nativeSessionId as string;
    expect(native).toBeTruthy();
    expect(procAlive((await w.sys.identity(sessionId)).cliPid)).toBe(true);
  });

  it('a message gets a reaction and exactly one rendered final as a new message', async () => {
    const sent = w.say('Explain **this** with `code`, please');
    await waitUntil('the 👀 reaction', async () => w.fake.reactions(w.userId, sent.message_id).length > 0, 15_000);
    const final = await w.waitFor((m) => m.message_id > sent.message_id && has('MOCK-REPLY')(m), 60_000);
    expect(final.text).toContain('Explain this with code, please');
    expect((final.entities ?? []).map((e) => e.type)).toEqual(expect.arrayContaining(['bold', 'code']));
    await w.waitCard((t) => t.includes('State: ready'), 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.botMessagesAfter(sent.message_id, has('MOCK-REPLY'))).toHaveLength(1);
    expect(w.sys.turns('codex', native).filter((r) => (r.userText ?? '').includes('Explain **this**'))).toHaveLength(1);
  });

  it('Stop during a slow answer: confirmed by the CLI, card Ready, the next message continues the same native session', async () => {
    const pid = (await w.sys.identity(sessionId)).cliPid;
    w.say('SLOW codex story');
    const req = await w.sys.mocks.codex.waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').includes('SLOW codex story'), 20_000);
    const working = await w.waitCard((t) => t.includes('State: working'));
    await new Promise((r) => setTimeout(r, 500));
    w.press(working, 'Stop');
    await w.waitCard((t) => t.includes('State: ready'), 30_000);
    await waitUntil('the model stream cut by the CLI', async () => req.clientClosed, 5000);
    expect((await w.sys.messages(sessionId)).at(-1)?.status).toBe('terminal_failed');
    const next = w.say('codex after the stop');
    await w.waitFor((m) => m.message_id > next.message_id && has('codex after the stop')(m), 60_000);
    const turns = w.sys.turns('codex', native).filter((r) => (r.userText ?? '').includes('codex after the stop'));
    expect(turns).toHaveLength(1);
    expect(JSON.stringify(turns[0]?.body)).toContain('Explain **this**');
    expect((await w.sys.identity(sessionId)).cliPid).toBe(pid);
    await w.waitCard((t) => t.includes('State: ready'), 15_000);
  });

  it('Close with confirmation, then Resume from /archive: the same native session with its history', async () => {
    const card = await w.card();
    const pid = (await w.sys.identity(sessionId)).cliPid;
    w.press(card, 'Close');
    const confirm = await w.waitCard((t) => t.includes('Close this session?'), 10_000);
    w.press(confirm, 'Yes, close');
    const closed = await w.waitFor((m) => m.message_id > card.message_id && m.text === 'The session was closed and moved to the archive.', 45_000);
    expect((await w.sys.session(sessionId)).state).toBe('Archived');
    expect(procAlive(pid)).toBe(false);

    w.say('/archive');
    const list = await w.waitFor((m) => m.message_id > closed.message_id && (m.text?.startsWith('Archive of node-1') ?? false));
    expect(list.text).toContain(`Codex · ${folder}`);
    w.press(list, 'Resume 1');
    await w.waitFor((m) => m.message_id > list.message_id && has(`Folder: ${folder}`)(m));
    await w.waitCard((t) => t.includes('State: ready'), 45_000);
    expect((await w.sys.session(sessionId)).nativeSessionId).toBe(native);
    const sent = w.say('codex after resume');
    await w.waitFor((m) => m.message_id > sent.message_id && has('codex after resume')(m), 60_000);
    const turns = w.sys.turns('codex', native).filter((r) => (r.userText ?? '').includes('codex after resume'));
    expect(turns).toHaveLength(1);
    expect(JSON.stringify(turns[0]?.body)).toContain('codex after the stop');
  });

  it('a folder that does not exist on the computer: the user is told, no session is left starting', async () => {
    const from = w.lastId();
    w.say('/new');
    const pick = await w.waitFor((m) => m.message_id > from && has('which agent?')(m));
    w.press(pick, 'Codex');
    await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Which folder?') ?? false));
    const missing = `${w.sys.work}/no-such-folder`;
    const typed = w.say(missing);
    // The node's agent checked it: its reason reaches the user and the flow still waits for a folder.
    await w.waitFor(
      (m) =>
        m.message_id > typed.message_id && m.text === 'That folder cannot be used: the folder does not exist on this computer. Type another absolute path.',
      20_000,
    );
    expect(await w.sys.db.session.count({ where: { folder: missing } })).toBe(0);
    const good = w.sys.folder('tg-codex-second');
    const again = w.say(good);
    await w.waitFor((m) => m.message_id > again.message_id && has(`Folder: ${good}`)(m), 20_000);
    expect(await w.sys.db.session.count({ where: { folder: good, executor: 'codex' } })).toBe(1);
  });
});
