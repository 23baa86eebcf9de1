import { afterEach, expect, it } from 'vitest';
import { listEvidence } from '../db/repos/evidence.ts';
import { createSession } from '../services/index.ts';
import { REFUSAL_WINDOW_MS } from './refusal-log.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
});

const refusedLines = (lines: string[]) =>
  lines.map((l) => JSON.parse(l) as { msg: string; count?: number }).filter((l) => l.msg.startsWith('engine.event_refused'));

/** Issue 31, defect 7: the running engine logs a burst of stale reports as one line and one counted summary. */
it('a burst of stale reports of one session: every one recorded as evidence, one log line at once, one summary with the count', async () => {
  const lines: string[] = [];
  rig = await engineRig({ logLines: lines });
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/w', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
  for (let i = 0; i < 6; i++) await rig.emit(s.id, 'observer_lost', {}, 0);

  expect((await listEvidence(rig.db, s.id)).filter((e) => e.event === 'refused:observer_lost')).toHaveLength(6);
  const first = refusedLines(lines);
  expect(first.map((l) => l.msg)).toEqual([
    `engine.event_refused: set aside one observer_lost report from session ${s.id.slice(0, 8)} (STALE_GENERATION, outdated: from an earlier run of the CLI)`,
  ]);
  // The engine's loop flushes once a second; the window is over on the engine's clock.
  rig.clock.advance(REFUSAL_WINDOW_MS);
  await expect.poll(() => refusedLines(lines).length, { timeout: 10_000 }).toBe(2);
  expect(refusedLines(lines)[1]).toMatchObject({
    msg: `engine.event_refused: set aside 5 more STALE_GENERATION reports from session ${s.id.slice(0, 8)} in the last 10 s`,
    count: 5,
  });
});
