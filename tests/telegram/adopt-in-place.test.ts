import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Message } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeskTerminal, startDesk } from '../../packages/testkit/src/desk.ts';
import { isRecordedProcess, waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';

// Adopt in place from Telegram (real system, real Claude Code against the mock, the bot process, the
// fake Bot API): the explanation of a session begun by hand in the user's tmux offers "Adopt in place"
// beside "Continue here"; the press makes it Ready in that very pane (same process), a message from
// the phone is typed there and answered, and /status names the user's own server.
let w: World;
let desk: DeskTerminal | null = null;
const socket = `desk-tg-adopt-${randomUUID().slice(0, 6)}`;
beforeAll(async () => {
  w = await startWorld({ executors: ['claude'] });
}, 180_000);
afterAll(async () => {
  desk?.end();
  await w?.dispose();
});

const has = (s: string) => (m: Message) => m.text?.includes(s) ?? false;
const paneText = () => execFileSync('tmux', ['-L', socket, 'capture-pane', '-p', '-J', '-S', '-500', '-t', 'desk'], { encoding: 'utf8' });

describe('a Claude session begun by hand in tmux, adopted in place from Telegram', () => {
  it("the explanation offers Adopt in place; the press keeps the same CLI and types the phone's message into its pane", async () => {
    const folder = w.sys.folder(`desk-tg-adopt-${randomUUID().slice(0, 6)}`);
    desk = await startDesk({ executor: 'claude', folder, env: w.sys.cliEnv, socket });
    const first = `typed at the desk ${randomUUID().slice(0, 8)}`;
    await desk.type(first);
    await w.sys.mocks.claude.waitForRequest((r) => r.kind === 'turn' && r.userText === first, 60_000);
    const row = await waitUntil(
      'the desk session entered',
      async () => w.sys.db.session.findFirst({ where: { folder, handoff: 'desk', deskPid: { not: null }, deskInTmux: true } }),
      30_000,
    );
    const pid = row.deskPid!;
    const start = row.deskStart!;
    let from = w.lastId();
    w.say('/archive');
    const list = await w.waitFor((m) => m.message_id > from && has(`running in a terminal (pid ${pid})`)(m));
    from = w.lastId();
    w.press(list, 'Continue here 1');
    const explain = await w.waitFor((m) => m.message_id > from && has('runs in a terminal on')(m));
    expect(explain.text).toContain('Adopt in place');
    expect(w.buttons(explain).map((b) => b.text)).toEqual(['End it there and continue here', 'Adopt in place (keep it running)']);
    w.press(explain, 'Adopt in place (keep it running)');
    await w.sys.waitState(row.id, 'Ready', 90_000).catch(async (err: Error) => {
      const dump = {
        session: await w.sys.session(row.id),
        commands: await w.sys.db.agentCommand.findMany({ where: { sessionId: row.id } }),
        evidence: await w.sys.evidence(row.id),
        outbox: await w.sys.outbox(row.id),
      };
      throw new Error(`${err.message}\n${JSON.stringify(dump, (_k, v) => (typeof v === 'bigint' ? String(v) : v), 1).slice(0, 6000)}`);
    });
    await w.waitCard((t) => t.includes('State: ready'), 90_000);
    const after = await w.sys.session(row.id);
    expect(after.handoff).toBe('adopted');
    expect(isRecordedProcess(pid, start)).toBe(true);
    const text = `hello from the phone ${randomUUID().slice(0, 8)}`;
    const sent = w.say(text);
    await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.startsWith('MOCK-REPLY') ?? false) && (m.text?.includes(text) ?? false), 60_000);
    await waitUntil("the phone's message in the user's pane", async () => paneText().includes(text), 30_000);
    expect(w.sys.turns('claude', after.nativeSessionId!).filter((r) => r.userText === text)).toHaveLength(1);
    expect(isRecordedProcess(pid, start)).toBe(true);
    from = w.lastId();
    w.say('/status');
    const status = await w.waitFor((m) => m.message_id > from && has('At the computer: tmux -S')(m));
    expect(status.text).toMatch(new RegExp(`At the computer: tmux -S \\S+/${socket} attach -t desk`));
  }, 300_000);
});
