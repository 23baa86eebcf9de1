import type { ActivityItem } from '@bria/core/protocol';
import { zActivity } from '@bria/core/protocol';
import { claudeBin, codexBin } from '@bria/testkit/cli-homes';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeActivity } from '../journal/claude-activity.ts';
import { CodexActivity } from '../journal/codex-activity.ts';
import { linesOf } from '../journal/fixture-lines.ts';
import { claudeDriver } from './claude-driver.ts';
import { codexDriver } from './codex-driver.ts';
import { SessionHost } from './session-host.ts';
import { createRig, is, type Rig, sendAndFinish } from '../../test-support/test-rig.ts';
import type { HostEvent } from './types.ts';

// The real pinned CLIs run tools without asking (Claude bypassPermissions, allowed for root because
// the test homes declare IS_SANDBOX=1; Codex full-access) on the mock's TOOLSTEPS / TOOLMIX words,
// and the host reports what their journals record as `activity`. The journals of such runs are the
// fixtures of claude-activity.test.ts and codex-activity.test.ts.
const rigs: Rig[] = [];
afterAll(async () => {
  for (const r of rigs) await r.dispose();
});

type ActivityEvent = Extract<HostEvent, { type: 'activity' }>;
const isActivity = (e: HostEvent): e is ActivityEvent => e.type === 'activity';

/**
 * Every event of a host in order, activity included (the host's own log leaves activity out), and
 * a wait on it that sees past and future events alike.
 */
function record(h: SessionHost) {
  const log: HostEvent[] = [];
  h.on((e) => log.push(e));
  return {
    log,
    items: () => log.filter(isActivity).flatMap((e) => e.activity.items),
    contexts: () =>
      log
        .filter(isActivity)
        .map((e) => e.activity.context)
        .filter((c) => c !== undefined),
    until(pred: (e: HostEvent) => boolean, ms = 20_000): Promise<HostEvent> {
      const past = log.find(pred);
      if (past) return Promise.resolve(past);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          off();
          reject(new Error(`no matching event within ${ms} ms; saw: ${log.map((x) => x.type).join(',')}`));
        }, ms);
        const off = h.on((e) => {
          if (!pred(e)) return;
          clearTimeout(timer);
          off();
          resolve(e);
        });
      });
    },
  };
}
type Recorded = ReturnType<typeof record>;

/** The latest state per ref, in the order refs first appeared. */
function latest(list: ActivityItem[]): ActivityItem[] {
  const byRef = new Map<string, ActivityItem>();
  for (const i of list) byRef.set(i.ref, i);
  return [...byRef.values()];
}
/** Waits for the activity event that ends the command with this subject (never a fixed sleep). */
const commandEnded = (r: Recorded, subject: string) =>
  r.until((e) => isActivity(e) && e.activity.items.some((i) => i.kind === 'command' && i.subject === subject && i.status !== 'running'));

/** A command that fails (TOOLFAIL-3): an error with exit code 3, whichever way the CLI states it. */
async function failTurn(h: SessionHost, r: Recorded, executor: 'claude' | 'codex') {
  const turn = await sendAndFinish(h, 'TOOLFAIL-3 please');
  expect(turn.final).toMatch(/^TOOL-DONE-\d+: /);
  await commandEnded(r, 'echo failing-3 >&2; exit 3');
  const calls = latest(r.items()).filter((i) => i.nativeTurnId === turn.nativeRef && i.kind === 'command');
  expect(calls.map((i) => [i.status, i.exitCode])).toEqual([['error', 3]]);
  expect(calls[0]?.outputHead).toBe(executor === 'claude' ? 'Exit code 3\nfailing-3' : 'failing-3');
}

/** `/compact` through the host, then the context event that counts it (Claude compact_boundary, Codex ContextCompaction). */
async function compactCounted(h: SessionHost, r: Recorded) {
  const done = await h.compact(90_000);
  expect(done.ok, JSON.stringify(done)).toBe(true);
  const e = await r.until((x) => isActivity(x) && x.activity.context?.compactions === 1);
  return (e as ActivityEvent).activity.context;
}

/** A fresh parser over the whole journal, as after an agent restart that reads it from the start. */
function reread(executor: 'claude' | 'codex', path: string): ActivityItem[] {
  const parser = executor === 'claude' ? new ClaudeActivity() : new CodexActivity();
  parser.ingest(linesOf(path));
  return latest(parser.drain().flatMap((p) => p.items));
}

async function stepsTurn(h: SessionHost, r: Recorded, executor: 'claude' | 'codex') {
  const turn = await sendAndFinish(h, 'TOOLSTEPS-3 please');
  expect(turn.final).toBe('MOCK-STEPS-DONE: 3 steps');
  await commandEnded(r, 'echo step-3');
  for (const e of r.log.filter(isActivity)) expect(zActivity.safeParse(e.activity).success).toBe(true);
  const mine = latest(r.items()).filter((i) => i.nativeTurnId === turn.nativeRef);
  const commands = mine.filter((i) => i.kind === 'command');
  expect(commands.map((i) => [i.subject, i.status, i.exitCode])).toEqual([1, 2, 3].map((n) => [`echo step-${n}`, 'ok', executor === 'codex' ? 0 : null]));
  expect(commands.map((i) => i.outputHead)).toEqual(['step-1', 'step-2', 'step-3']);
  expect(commands.map((i) => i.toolName)).toEqual(Array(3).fill(executor === 'codex' ? 'exec_command' : 'Bash'));
  // Texts between the calls are shown, the final answer is not (it is the turn's final).
  expect(mine.filter((i) => i.kind === 'text').map((i) => i.text?.replace(/^MOCK-STEP-\d+: /, ''))).toEqual(['1/3', '2/3', '3/3']);
  // Every update of a call carries the same ref; none is announced twice as new.
  for (const c of commands)
    expect(
      r
        .items()
        .filter((i) => i.ref === c.ref)
        .at(-1)?.status,
    ).toBe('ok');
  expect(new Set(commands.map((c) => c.ref)).size).toBe(3);
  // The calls reach the hub before the turn's final.
  const finalAt = r.log.findIndex(is('final', turn.messageId));
  const lastCallAt = r.log.findLastIndex((e) => isActivity(e) && e.activity.items.some((i) => commands.some((c) => c.ref === i.ref)));
  expect(lastCallAt).toBeLessThan(finalAt);
  // The host's replayable log leaves the activity stream out.
  expect(h.events.some(isActivity)).toBe(false);
  const context = r.contexts().at(-1);
  expect(context?.usedTokens).toBeGreaterThan(0);
  expect(context?.windowSource).toBe(executor === 'codex' ? 'journal' : 'model');
  return { turn, mine };
}

describe('activity of real CLI sessions', () => {
  it('Claude: TOOLSTEPS-3, TOOLMIX and TOOLFAIL as calls with stable refs, the same after a re-read and a re-attach; /compact counted', async () => {
    const rig = await createRig('claude');
    rigs.push(rig);
    const a = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });
    const ra = record(a);
    const id = await a.start({ cwd: rig.work, sessionName: 'activity-claude', permissionMode: 'bypassPermissions' });
    const { mine } = await stepsTurn(a, ra, 'claude');
    const path = id.journalPath as string;
    expect(reread('claude', path).filter((i) => mine.some((m) => m.ref === i.ref))).toEqual(mine);

    const mix = await sendAndFinish(a, 'TOOLMIX-m please');
    expect(mix.final).toBe('MOCK-MIX-DONE: mix-m');
    await ra.until((e) => isActivity(e) && e.activity.items.some((i) => i.kind === 'edit' && i.status !== 'running'));
    const calls = latest(ra.items()).filter((i) => i.nativeTurnId === mix.nativeRef && i.kind !== 'text');
    expect(calls.map((i) => [i.kind, i.toolName, i.subject, i.status])).toEqual([
      ['command', 'Bash', 'echo mix-m', 'ok'],
      ['write', 'Write', 'mix-m.txt', 'ok'],
      ['edit', 'Edit', 'mix-m.txt', 'ok'],
    ]);
    expect(calls[1]?.diff).toMatchObject({ added: 1, removed: 0 });
    expect(calls[2]?.diff).toEqual({ added: 1, removed: 1, text: '--- mix-m.txt\n+++ mix-m.txt\n-old line\n+new line' });
    await failTurn(a, ra, 'claude');
    expect((await compactCounted(a, ra))?.windowTokens).toBe(200_000);

    // An agent restart: a new host attaches from the stored offset and re-sends nothing older.
    const offset = a.journalOffset;
    a.detach();
    const b = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });
    const rb = record(b);
    expect(await b.attach(id, { journalOffset: offset })).toEqual({ ok: true });
    const again = await sendAndFinish(b, 'TOOLSTEPS-2 again');
    await commandEnded(rb, 'echo step-2');
    expect(rb.items().length).toBeGreaterThan(0);
    expect(rb.items().every((i) => i.source.offset >= offset && i.nativeTurnId === again.nativeRef)).toBe(true);
    await b.close();
  }, 120_000);

  it('Codex: TOOLSTEPS-3, TOOLMIX and TOOLFAIL as calls with exit codes and stable refs, the same after a re-read; /compact counted once', async () => {
    const rig = await createRig('codex');
    rigs.push(rig);
    const a = new SessionHost({ driver: codexDriver, tmux: rig.tmux, bin: codexBin, env: rig.env });
    const ra = record(a);
    await a.start({ cwd: rig.work, sessionName: 'activity-codex', permissionMode: 'full-access' });
    const { mine } = await stepsTurn(a, ra, 'codex');
    const path = a.identity().journalPath as string;
    expect(reread('codex', path).filter((i) => mine.some((m) => m.ref === i.ref))).toEqual(mine);

    const mix = await sendAndFinish(a, 'TOOLMIX-m please');
    expect(mix.final).toBe('MOCK-MIX-DONE: mix-m');
    await commandEnded(ra, "printf 'a\\nb\\n' > mix-m.txt");
    const calls = latest(ra.items()).filter((i) => i.nativeTurnId === mix.nativeRef && i.kind !== 'text');
    expect(calls.map((i) => [i.subject, i.status, i.exitCode])).toEqual([
      ['echo mix-m', 'ok', 0],
      ["printf 'a\\nb\\n' > mix-m.txt", 'ok', 0],
    ]);
    await failTurn(a, ra, 'codex');
    const context = ra.contexts().at(-1);
    expect(context?.windowTokens).toBeGreaterThan(0);
    expect((await compactCounted(a, ra))?.windowTokens).toBe(context?.windowTokens);
    // A fresh parser counts the one compaction too (Codex may record it twice: item and `compacted` line).
    const parser = new CodexActivity();
    parser.ingest(linesOf(path));
    expect(parser.drain().at(-1)?.context?.compactions).toBe(1);
    await a.close();
  }, 120_000);
});
