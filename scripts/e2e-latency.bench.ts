/**
 * Benchmark (not a test): end-to-end latency through the whole system — the fake Telegram Bot API,
 * the real bot (grammY long polling + outbox sender, production defaults), core services, the hub
 * and the engine, a real node agent process, and the real CLIs against the mock model servers.
 *
 *   npx tsx scripts/e2e-latency.bench.ts [--messages 40] [--executors claude,codex]
 *
 * Per executor, one message at a time (the next after the session is Ready again):
 *  - Telegram update available (the user "sends" it to the fake Bot API) → the text drawn in the
 *    CLI's pane (first sight of a unique marker in the pane's output stream, via `pipe-pane`);
 *  - journal turn-complete record (Claude `turn_duration`, Codex `task_complete`) → the final's
 *    `sendMessage` arriving at the Bot API: from the record's own `timestamp`, and from the moment
 *    a watcher in this process saw the journal reach the record's last byte.
 * The first message per executor is a warm-up and is left out. Baseline: tools that poll every 1–2 s.
 * Prints one JSON line per executor; raw samples go to bench-out/e2e-latency.json.
 */
import { watch } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { paneStream } from '../apps/node-agent/src/tmux/pane-stream.ts';
import { Tmux } from '../apps/node-agent/src/tmux/tmux.ts';
import type { Executor } from '../packages/testkit/src/system.ts';
import { startTelegramBench, stats } from './bench-telegram.ts';

/** Codex creates its rollout with the first message; the identity the hub stored may predate it. */
async function codexRollout(nativeId: string): Promise<string | null> {
  const dir = path.join(sys.home, '.codex', 'sessions');
  const names = (await readdir(dir, { recursive: true }).catch(() => [] as string[])).map(String);
  const hit = names.find((n) => n.endsWith(`-${nativeId}.jsonl`));
  return hit ? path.join(dir, hit) : null;
}

const { values } = parseArgs({ options: { messages: { type: 'string', default: '40' }, executors: { type: 'string', default: 'claude,codex' } } });
const MESSAGES = Number(values.messages);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { sys, fake, user: USER, stop } = await startTelegramBench();
const tmux = new Tmux({ socketName: sys.tmuxSocket, runDir: path.join(sys.root, 'bench-run') });
const raw: Record<string, number[]> = {};
try {
  await sys.startAgent();
  for (const kind of values.executors.split(',') as Executor[]) {
    const created = await sys.createSession(kind, sys.folder(`e2e-${kind}`));
    await sys.waitState(created.id, 'Ready', 60_000);
    const id = await sys.identity(created.id);
    const pane = await paneStream(tmux, id.paneId, path.join(sys.root, `pane-${kind}.out`), Date.now);
    const s = { tgToPane: [] as number[], turnEndTsToTelegram: [] as number[], turnEndWriteToTelegram: [] as number[] };
    // Where the time goes, from the rows' own commit-time stamps (ms, Postgres clock = this machine's).
    const parts: Record<string, number[]> = {
      'update→message stored': [],
      'message stored→deliver command stored': [],
      'command stored→sent to agent': [],
      'sent to agent→pane shows text': [],
      'turn-end record→agent event stored': [],
      'agent event stored→outbox row': [],
      'outbox row→sendMessage at Bot API': [],
    };
    let sizes: { at: number; size: number }[] = [];
    let watcher: ReturnType<typeof watch> | null = null;
    for (let i = 0; i <= MESSAGES; i++) {
      const marker = `tg${String(i).padStart(4, '0')}x${Math.random().toString(36).slice(2, 8)}`;
      const shown = pane.expect(marker);
      const t0 = Date.now();
      fake.userSends(`benchmark ${marker}`, { chatId: USER, userId: USER });
      const shownAt = await Promise.race([shown, new Promise<number>((r) => setTimeout(() => r(Number.NaN), 30_000))]);
      const final = await fake.waitForCall(
        'sendMessage',
        (c) => String(c.params.text ?? '').includes(marker) && String(c.params.text ?? '').includes('MOCK-REPLY'),
        60_000,
      );
      await sys.waitState(created.id, 'Ready', 30_000);
      const journal = (await sys.identity(created.id)).journalPath ?? (await codexRollout(id.nativeId));
      if (!journal) throw new Error(`${kind}: no journal found`);
      if (!watcher) {
        // From now on (message 1 on) every size the journal reaches is seen with its time.
        watcher = watch(
          path.dirname(journal),
          () =>
            void stat(journal).then(
              (st) => sizes.push({ at: Date.now(), size: st.size }),
              () => undefined,
            ),
        );
      }
      if (i === 0) continue;
      if (Number.isNaN(shownAt)) throw new Error(`${kind}: marker ${i} never drawn in the pane`);
      s.tgToPane.push(shownAt - t0);
      // The terminal record of this turn: the first turn_duration / task_complete after the prompt.
      const text = await readFile(journal, 'utf8');
      const promptAt = text.indexOf(marker);
      const needle = kind === 'claude' ? '"subtype":"turn_duration"' : '"type":"task_complete"';
      const hit = text.indexOf(needle, promptAt);
      const start = text.lastIndexOf('\n', hit) + 1;
      const end = Buffer.byteLength(text.slice(0, text.indexOf('\n', hit) + 1));
      const ts = Date.parse((JSON.parse(text.slice(start, text.indexOf('\n', hit))) as { timestamp: string }).timestamp);
      s.turnEndTsToTelegram.push(final.at - ts);
      const msg = await sys.db.message.findFirstOrThrow({ where: { sessionId: created.id, text: { contains: marker } } });
      const cmd = msg.deliveryId ? await sys.db.agentCommand.findUnique({ where: { id: msg.deliveryId } }) : null;
      const out = await sys.db.outbox.findFirst({ where: { dedupeKey: { startsWith: `final:${msg.id}` } } });
      const evs = await sys.db.$queryRaw<
        { type: string; receivedAt: Date }[]
      >`select type, "receivedAt" from "AgentEvent" where payload::text like ${`%${msg.id}%`} order by id`;
      const ev = evs.find((e) => /final|complete/i.test(e.type) || /final|complete/i.test(JSON.stringify(e))) ?? evs.at(-1);
      const push = (k: string, v: number | null | undefined) => v !== null && v !== undefined && !Number.isNaN(v) && parts[k]!.push(v);
      push('update→message stored', msg.createdAt.getTime() - t0);
      push('message stored→deliver command stored', cmd ? cmd.createdAt.getTime() - msg.createdAt.getTime() : null);
      push('command stored→sent to agent', cmd?.sentAt ? cmd.sentAt.getTime() - cmd.createdAt.getTime() : null);
      push('sent to agent→pane shows text', cmd?.sentAt ? shownAt - cmd.sentAt.getTime() : null);
      push('turn-end record→agent event stored', ev ? ev.receivedAt.getTime() - ts : null);
      push('agent event stored→outbox row', ev && out ? out.createdAt.getTime() - ev.receivedAt.getTime() : null);
      push('outbox row→sendMessage at Bot API', out ? final.at - out.createdAt.getTime() : null);
      const written = sizes.find((x) => x.size >= end);
      if (written) s.turnEndWriteToTelegram.push(final.at - written.at);
      sizes = sizes.filter((x) => x.size >= end);
    }
    watcher?.close();
    await pane.close();
    for (const [k, v] of Object.entries(s)) raw[`e2e ${kind}/${k}`] = v;
    console.log(
      JSON.stringify({
        bench: 'e2e_latency',
        executor: kind,
        messages: MESSAGES,
        telegramToPaneMs: stats(s.tgToPane),
        turnEndRecordTsToTelegramMs: stats(s.turnEndTsToTelegram),
        turnEndWriteToTelegramMs: stats(s.turnEndWriteToTelegram),
        medianPartsMs: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, stats(v).median])),
        outboxPollMs: 500,
        baselinePollMs: [1000, 2000],
      }),
    );
    await sys.close(created.id);
    await sys.waitState(created.id, 'Archived', 60_000).catch(() => undefined);
  }
} finally {
  await stop();
}
await mkdir(path.join(root, 'bench-out'), { recursive: true });
await writeFile(
  path.join(root, 'bench-out', 'e2e-latency.json'),
  JSON.stringify({ bench: 'e2e-latency', unit: 'ms', at: new Date().toISOString(), samples: raw }),
);
process.exit(0);
