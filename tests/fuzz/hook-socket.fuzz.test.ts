// Fuzz: random, malformed, oversized and hostile lines into the agent's real hook socket (a real
// HookChannel on a real Unix socket). Invariants: nothing crashes, every refusal carries a known
// reason, nothing refused is stored, memory stays bounded, and a valid request from the real hook
// program still works afterwards. Runs, time limit and seed as every fuzz file (fuzz-config.ts):
// FUZZ_RUNS, FUZZ_MINUTES, FUZZ_SEED (printed at the start and with a failure).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookChannel, permissionHookProgram } from '../../apps/node-agent/src/hooks/hook-channel.ts';
import { HOOK_REFUSALS, MAX_HOOK_LINE_BYTES } from '../../apps/node-agent/src/hooks/hook-wire.ts';
import { count, fuzzCounts, fuzzParams, fuzzTimeoutMs } from './fuzz-config.ts';
/** The live session: its tree is this test process (the hook program below is its child). */
const LIVE = 'live-1';

let root: string;
let channel: HookChannel;
const refusals: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bria-fuzz-hook-'));
  channel = new HookChannel({
    dir: join(root, 'hooks'),
    boundMs: 60_000,
    sessionRoot: (id) => (id === LIVE ? process.pid : null),
    log: (_level, _msg, fields) => refusals.push(String(fields.reason)),
  });
  await channel.open();
});
afterAll(async () => {
  await channel?.close();
  await rm(root, { recursive: true, force: true });
});

type Outcome = { kind: 'refused'; reason: string } | { kind: 'opened' } | { kind: 'closed' };

/**
 * Writes the payload, then ends the write side (a real hook keeps its side open while it waits, so
 * a live frame is sent with `keepOpen`: the agent then must answer it); what the agent did with it.
 */
function send(payload: Buffer, keepOpen = false): Promise<Outcome> {
  return new Promise((resolve) => {
    const s = connect(channel.socketPath);
    let got = '';
    let settled = false;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      off();
      s.destroy();
      resolve(o);
    };
    // A frame that opened something (a request for the live session, a tool start) keeps the
    // connection: its record or its `go` is the outcome.
    const off = channel.on((e) => {
      if (e.type === 'permission_request' && e.record.sessionId === LIVE) {
        channel.release(e.record.requestId);
        done({ kind: 'opened' });
      }
    });
    s.setEncoding('utf8');
    s.on('data', (c: string) => {
      got += c;
      const m = /\{"type":"refused","reason":"([a-z_]+)"\}/.exec(got);
      if (m) done({ kind: 'refused', reason: m[1] as string });
      else if (got.includes('{"type":"go"}')) done({ kind: 'opened' });
    });
    s.on('error', () => undefined);
    s.on('close', () => done({ kind: 'closed' }));
    s.on('connect', () => (keepOpen ? s.write(payload) : s.end(payload)));
  });
}

const frameish = fc.record(
  {
    type: fc.constantFrom('permission_request', 'tool_start', 'delivered', 'answer', 'go', ''),
    sessionId: fc.oneof(fc.constant(LIVE), fc.constant('other-session'), fc.string(), fc.integer()),
    executor: fc.oneof(fc.constantFrom('claude', 'codex'), fc.string()),
    hookPid: fc.oneof(fc.integer(), fc.constant(1), fc.string()),
    hookKey: fc.string(),
    toolUseId: fc.oneof(fc.string(), fc.constant(null)),
    request: fc.oneof(fc.object(), fc.jsonValue()),
  },
  { requiredKeys: ['type'] },
);

/** Well-formed frames of the live session, so the open path (record, release, typing gate) runs too. */
const liveFrame = fc.oneof(
  fc.record({
    type: fc.constant('permission_request'),
    sessionId: fc.constant(LIVE),
    executor: fc.constantFrom('claude', 'codex'),
    hookPid: fc.constant(process.pid),
    request: fc.record({ tool_name: fc.constantFrom('Bash', 'Write', 'AskUserQuestion'), tool_input: fc.jsonValue(), session_id: fc.uuid() }),
  }),
  fc.record({ type: fc.constant('tool_start'), sessionId: fc.constant(LIVE), toolUseId: fc.string({ maxLength: 40 }), hookPid: fc.constant(process.pid) }),
);

const payload = fc.oneof(
  fc.string().map((s) => `${s}\n`),
  fc.jsonValue().map((v) => `${JSON.stringify(v)}\n`),
  frameish.map((f) => `${JSON.stringify(f)}\n`),
  fc.array(frameish, { minLength: 2, maxLength: 4 }).map((fs) => fs.map((f) => `${JSON.stringify(f)}\n`).join('')),
  fc.integer({ min: MAX_HOOK_LINE_BYTES + 1, max: 3 * MAX_HOOK_LINE_BYTES }).map((n) => 'x'.repeat(n)),
  fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b).toString('latin1')),
);

describe('the hook socket under random and hostile input', () => {
  it(
    'refuses with a reason or opens only for the live session, never crashes, stays bounded, still works',
    async () => {
      const rssBefore = process.memoryUsage().rss;
      await fc.assert(
        fc.asyncProperty(fc.oneof(payload, liveFrame), async (p) => {
          const live = typeof p !== 'string';
          const bytes = Buffer.from(live ? `${JSON.stringify(p)}\n` : p, 'latin1');
          const before = refusals.length;
          const out = await send(bytes, live);
          // The live session's well-formed frame is taken (a record announced, or `go`), never refused.
          if (live) expect(out).toEqual({ kind: 'opened' });
          count(out.kind === 'refused' ? `refused:${out.reason}` : out.kind);
          if (out.kind === 'refused') {
            expect(HOOK_REFUSALS).toContain(out.reason);
            // Logged with the same reason: the channel logs a refusal before it writes the `refused`
            // frame, so the log has it by the time the frame arrives. (Not `expect.poll`: vitest keeps
            // every poll of a test until the test ends, ~3.7 KB each, which a 30-minute run turns into
            // hundreds of MB that look like the channel's.)
            expect(refusals.slice(before)).toContain(out.reason);
          }
          // A line past the cap is never anything but line_too_long.
          if (!bytes.includes(10) && bytes.length > MAX_HOOK_LINE_BYTES) expect(out).toEqual({ kind: 'refused', reason: 'line_too_long' });
        }),
        fuzzParams('hook socket lines'),
      );
      console.log(`[fuzz] hook socket outcomes ${JSON.stringify(fuzzCounts)}`);
      // Bounded: a few hundred KiB lines went through without the agent keeping them.
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
      // Nothing refused was stored: every record on disk belongs to the live session.
      const text = await readFile(join(channel.dir, 'permissions.jsonl'), 'utf8').catch(() => '');
      for (const line of text.split('\n').filter(Boolean)) expect((JSON.parse(line) as { sessionId?: string }).sessionId ?? LIVE).toBe(LIVE);

      // A valid request from the real hook program still works.
      const hook = spawn(process.execPath, [permissionHookProgram, channel.socketPath, LIVE, '60000', 'claude'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      hook.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
      });
      hook.stdin.end(JSON.stringify({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'touch after-fuzz' } }));
      const r = await channel.waitFor((x) => x.state === 'pending' && (x.toolInput as { command?: string } | null)?.command === 'touch after-fuzz', 20_000);
      expect(channel.answer(r.requestId, { behavior: 'allow' }).ok).toBe(true);
      await new Promise((res) => hook.on('close', res));
      expect(JSON.parse(stdout).hookSpecificOutput.decision).toEqual({ behavior: 'allow' });
    },
    fuzzTimeoutMs(),
  );
});
