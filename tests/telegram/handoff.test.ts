import { randomUUID } from 'node:crypto';
import type { Message } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../apps/node-agent/src/executors/proc-tree.ts';
import { type DeskTerminal, startDesk } from '../../packages/testkit/src/desk.ts';
import { waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';

// Desk ↔ phone from Telegram (real system, real Claude Code against the mock, the bot process, the
// fake Bot API): a session begun by hand at the computer shows in /archive as running in a terminal
// with "Continue here"; the press explains first, the confirmation takes it over, and /status then
// names the command that continues it at the computer.
let w: World;
let desk: DeskTerminal | null = null;
beforeAll(async () => {
  w = await startWorld({ executors: ['claude'] });
}, 180_000);
afterAll(async () => {
  desk?.end();
  await w?.dispose();
});

const has = (s: string) => (m: Message) => m.text?.includes(s) ?? false;

describe('a Claude session begun by hand, continued from Telegram', () => {
  let sessionId = '';
  let pid = 0;

  it('is listed in /archive as running in a terminal, offered as Continue here', async () => {
    const folder = w.sys.folder(`desk-tg-${randomUUID().slice(0, 6)}`);
    desk = await startDesk({ executor: 'claude', folder, env: w.sys.cliEnv });
    const text = `typed at the desk ${randomUUID().slice(0, 8)}`;
    await desk.type(text);
    await w.sys.mocks.claude.waitForRequest((r) => r.kind === 'turn' && r.userText === text, 60_000);
    const row = await waitUntil(
      'the desk session entered',
      async () => w.sys.db.session.findFirst({ where: { folder, handoff: 'desk', deskPid: { not: null } } }),
      30_000,
    );
    sessionId = row.id;
    pid = row.deskPid!;
    const from = w.lastId();
    w.say('/archive');
    const list = await w.waitFor((m) => m.message_id > from && has(`running in a terminal (pid ${pid})`)(m));
    expect(w.buttons(list).map((b) => b.text)).toContain('Continue here 1');
  }, 240_000);

  it('the press explains first; the confirmation ends the desk CLI and reopens the same session here', async () => {
    const list = await w.waitFor(has(`running in a terminal (pid ${pid})`));
    let from = w.lastId();
    w.press(list, 'Continue here 1');
    const explain = await w.waitFor((m) => m.message_id > from && has('runs in a terminal on')(m));
    expect(explain.text).toContain(`pid ${pid}`);
    // Nothing is ended before the confirmation.
    expect(await isAlive(pid)).toBe(true);
    from = w.lastId();
    w.press(explain, 'End it there and continue here');
    await w.waitCard((t) => t.includes('State: ready'), 90_000);
    const after = await w.sys.session(sessionId);
    expect(after.state).toBe('Ready');
    expect(after.handoff).toBe('none');
    expect(await isAlive(pid)).toBe(false);
    const sent = w.say('hello again from the phone');
    await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.startsWith('MOCK-REPLY') ?? false), 60_000);
    expect(w.sys.turns('claude', after.nativeSessionId!).filter((r) => r.userText === 'hello again from the phone')).toHaveLength(1);
    from = w.lastId();
    w.say('/status');
    const status = await w.waitFor((m) => m.message_id > from && has('At the computer: tmux -L')(m));
    expect(status.text).toMatch(/At the computer: tmux -L \S+ attach -t bria-/);
  }, 240_000);
});
