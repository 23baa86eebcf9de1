import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';
import { PROGRESS_EDIT_GAP_MS } from '../../apps/bot/src/card/progress-ticker.ts';

// Live progress end to end (issue 15), both real CLIs: the mock model makes the CLI run commands,
// the agent reads them from the journal, the engine stores them, the bot's card shows what runs now,
// and the final arrives once, ending with the turn's summary. The permission modes run tools
// without asking (the questions are issue 14's tests).
let w: World;
beforeAll(async () => {
  w = await startWorld({ executors: ['claude', 'codex'] });
  await w.sys.db.node.updateMany({ data: { claudePermissionMode: 'bypassPermissions', codexPermissionMode: 'full-access' } });
});
afterAll(async () => {
  await w?.dispose();
});

const EXECUTORS = [
  { executor: 'claude' as const, label: 'Claude Code' },
  { executor: 'codex' as const, label: 'Codex' },
];

describe.each(EXECUTORS)('live progress with $label', ({ executor }) => {
  let sessionId = '';
  let folder = '';

  it('a turn of several commands: rows per command in order, each once, and the final once with its summary', async () => {
    folder = w.sys.folder(`progress-${executor}`);
    ({ sessionId } = await w.newSession(executor, folder));
    await w.waitCard((t) => t.includes('State: ready'));
    const sent = w.say('please run TOOLSTEPS-4');
    const final = await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('MOCK-STEPS-DONE') ?? false), 90_000);
    // The summary ends the final: four commands, and how long the turn took.
    expect(final.text).toMatch(/4 commands, \d+ (s|min)$/);
    const rows = await w.sys.db.sessionActivity.findMany({ where: { sessionId, kind: 'command' }, orderBy: { startedAt: 'asc' } });
    expect(rows.map((r) => [r.subject, r.status])).toEqual([1, 2, 3, 4].map((i) => [`echo step-${i}`, 'ok']));
    expect(new Set(rows.map((r) => r.ref)).size).toBe(4);
    // Every row names its journal record and belongs to the message's turn.
    const [msg] = await w.sys.messages(sessionId);
    expect(rows.every((r) => r.messageId === msg?.id && r.sourceRecordId.length > 0)).toBe(true);
    expect(w.botMessagesAfter(sent.message_id, (m) => m.text?.includes('MOCK-STEPS-DONE') ?? false)).toHaveLength(1);
  }, 150_000);

  it('while a command runs, the card shows it; it ends when the command does, the card goes back to ready', async () => {
    const card = await w.card();
    const sent = w.say('now TOOLWAIT-a');
    const running = await w.waitCard((t) => t.includes('State: working') && /Running until \[ -e go-a \]/.test(t), 60_000);
    // Edited in place, never a new message for progress.
    expect(running.message_id).toBe(card.message_id);
    expect(running.text).toMatch(/· \d+ s · 1 step/);
    expect(w.botMessagesAfter(sent.message_id, (m) => m.message_id !== card.message_id && !(m.text ?? '').includes('TOOL-DONE'))).toEqual([]);
    writeFileSync(path.join(folder, 'go-a'), '');
    const final = await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('TOOL-DONE') ?? false), 90_000);
    expect(final.text).toContain('released-a');
    expect(final.text).toMatch(/1 command, \d+ (s|min)$/);
    await w.waitCard((t) => t.includes('State: ready') && !t.includes('Running'));
    expect(existsSync(path.join(folder, 'go-a'))).toBe(true);
    // No Telegram call was refused for flooding along the way.
    expect(w.fake.calls().filter((c) => c.status === 429)).toEqual([]);
    await waitUntil(
      'the command row ended',
      async () => (await w.sys.db.sessionActivity.findFirst({ where: { sessionId, subject: { contains: 'go-a' }, status: 'ok' } })) !== null,
      30_000,
    );
  }, 150_000);

  it('an agent kill and a hub restart mid-turn: no activity row twice, no progress replayed as a message', async () => {
    const card = await w.card();
    const sent = w.say('then TOOLWAIT-b');
    await w.waitCard((t) => /Running until \[ -e go-b \]/.test(t), 60_000);
    const before = await w.sys.db.sessionActivity.count({ where: { sessionId } });
    // The agent dies and comes back (it re-reads the journal from its stored offset), then the hub restarts.
    await w.sys.killAgent();
    await w.sys.startAgent();
    await w.sys.restartHub();
    writeFileSync(path.join(folder, 'go-b'), '');
    const final = await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('released-b') ?? false), 120_000);
    expect(final.text).toMatch(/1 command, \d+ (s|min)$/);
    const rows = await w.sys.db.sessionActivity.findMany({ where: { sessionId }, select: { ref: true, subject: true, kind: true } });
    // One row per tool call of the whole session: the four steps and the three waits (each once).
    expect(
      rows
        .filter((r) => r.kind === 'command')
        .map((r) => r.subject?.match(/step-\d|go-[ab]/)?.[0])
        .sort(),
    ).toEqual(['go-a', 'go-b', 'step-1', 'step-2', 'step-3', 'step-4']);
    expect(rows.length).toBeGreaterThanOrEqual(before);
    // Only the final came as a new message; progress stayed on the card.
    const after = w.botMessagesAfter(sent.message_id, (m) => m.message_id !== card.message_id);
    expect(after.map((m) => (m.text ?? '').includes('released-b'))).toEqual([true]);
  }, 240_000);

  it('the context use and a compaction reach the card', async () => {
    w.say('/compact');
    const card = await w.waitCard((t) => /compactions: 1/.test(t), 120_000);
    expect(card.text).toMatch(/Context: [\d.]+% of [\d,]+ tokens · compactions: 1/);
    const row = await w.sys.session(sessionId);
    expect(row.compactions).toBe(1);
    expect(row.contextWindowSource).toBe(executor === 'codex' ? 'journal' : 'model');
  }, 180_000);

  it('a turn of 200 quick tool calls: at most one card edit per 4 s, no 429 (the final included), every call one row', async () => {
    const card = await w.card();
    // Telegram's per-chat limit as the fake applies it from now on: 20 changes a minute.
    w.fake.floodLimit = { count: 20, windowMs: 60_000 };
    try {
      const from = Date.now();
      const sent = w.say('and TOOLSTEPS-200');
      const final = await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('MOCK-STEPS-DONE: 200') ?? false), 600_000);
      expect(final.text).toMatch(/200 commands, \d+ (s|min)/);
      const edits = w.fake.calls('editMessageText').filter((c) => c.at >= from && Number(c.params.message_id) === card.message_id);
      expect(w.fake.calls().filter((c) => c.at >= from && c.status === 429)).toEqual([]);
      // Progress edits keep the gap; the state's own edit (back to ready) is not progress and goes at once.
      const progress = edits.filter((c) => !String(c.params.text ?? '').includes('State: ready'));
      for (let k = 1; k < progress.length; k++) expect(progress[k]!.at - progress[k - 1]!.at).toBeGreaterThanOrEqual(PROGRESS_EDIT_GAP_MS);
      const rows = await w.sys.db.sessionActivity.count({ where: { sessionId, kind: 'command', subject: { startsWith: 'echo step-' } } });
      expect(rows).toBe(4 + 200);
    } finally {
      w.fake.floodLimit = undefined;
    }
  }, 700_000);
});
