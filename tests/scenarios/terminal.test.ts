import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../packages/core/src/db/repos/change-feed.ts';
import { notifyTerminal, type PaneNotice } from '../../packages/core/src/db/repos/terminal-notices.ts';
import { terminalInput } from '../../packages/core/src/services/sessions/terminal-input.ts';
import { startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

// Issue 31: the live terminal's path without a browser: dashboard NOTIFY → hub → the real agent
// following the real Claude pane → hub → NOTIFY pieces a dashboard reassembles; typing reaches the
// pane, and is refused while a permission dialog Bria tracks is open.
let sys: System;
let feed: ChangeFeed;
beforeAll(async () => {
  sys = await startSystem({ executors: ['claude'] });
  await sys.startAgent();
  feed = new ChangeFeed(sys.databaseUrl);
  await feed.ensure();
});
afterAll(async () => {
  await feed?.close();
  await sys?.dispose();
});

const pane = (paneId: string) => execFileSync('tmux', ['-L', sys.tmuxSocket, 'capture-pane', '-p', '-t', paneId], { encoding: 'utf8' });

describe('the live terminal', () => {
  it('shows the pane (a snapshot, then what is drawn), takes typed keys, and refuses them while a dialog is open', async () => {
    const s = await sys.createSession('claude', sys.folder(`term-${Date.now()}`));
    await sys.waitState(s.id, 'Ready');
    const id = await sys.identity(s.id);
    const got: PaneNotice[] = [];
    const stop = new AbortController();
    const reading = (async () => {
      for await (const p of feed.panes(s.id, stop.signal, () => void notifyTerminal(sys.db, { sessionId: s.id, op: 'open', data: 'snapshot' }))) got.push(p);
    })();
    // What the stream draws, its escape sequences (colours, cursor moves) removed.
    const text = () =>
      Buffer.concat(got.map((p) => Buffer.from(p.data, 'base64')))
        .toString('utf8')
        // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences
        .replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\-_=>]/g, '');
    const snap = await waitUntil('a snapshot', async () => got.find((p) => p.kind === 'snapshot') ?? null, 20_000, 20);
    // Sized to the pane, and holding what the pane shows.
    const [cols, rows] = execFileSync('tmux', ['-L', sys.tmuxSocket, 'display-message', '-p', '-t', id.paneId, '#{pane_width} #{pane_height}'], {
      encoding: 'utf8',
    })
      .trim()
      .split(' ')
      .map(Number);
    expect({ cols: snap.cols, rows: snap.rows }).toEqual({ cols, rows });
    expect(text()).toContain('? for shortcuts');

    // Typed keys reach the CLI's input box (not submitted), and the stream shows them drawn.
    const word = `typed${Date.now()}`;
    await terminalInput({ db: sys.db }, { sessionId: s.id, data: word });
    await waitUntil('the keys on the pane', async () => pane(id.paneId).includes(word), 20_000, 50);
    await waitUntil('the keys in the stream', async () => text().includes(word), 20_000, 50);
    // Ctrl-U clears the box again.
    await terminalInput({ db: sys.db }, { sessionId: s.id, data: '\u0015' });
    await waitUntil('the box cleared', async () => !pane(id.paneId).includes(word), 20_000, 50);

    // A permission dialog Bria tracks: typing is refused, and nothing reaches the pane.
    await sys.send(s.id, `TOOLBASH-term${Date.now()} please`);
    await waitUntil('the open prompt', async () => ((await sys.session(s.id)).openPrompts > 0 ? true : null), 30_000, 50);
    await expect(terminalInput({ db: sys.db }, { sessionId: s.id, data: '1' })).rejects.toMatchObject({
      code: 'CONFLICT',
      userMessage: 'sessions.terminal_dialog_open',
    });
    // Even a notice that skips the dashboard's check is not typed by the agent while the dialog is open.
    await notifyTerminal(sys.db, { sessionId: s.id, op: 'input', data: 'zzdialogzz' });
    const before = text().length;
    await waitUntil('more output after the notice', async () => (text().length > before ? true : null), 10_000, 50).catch(() => null);
    expect(pane(id.paneId)).not.toContain('zzdialogzz');
    expect((await sys.session(s.id)).openPrompts).toBeGreaterThan(0);
    stop.abort();
    await reading;
    // Nothing of the stream is stored.
    expect(await sys.db.agentEvent.count({ where: { type: { in: ['pane', 'terminal'] } } })).toBe(0);
  });
});
