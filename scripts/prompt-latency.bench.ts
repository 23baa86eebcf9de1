/**
 * Benchmark (not a test): a permission request through the whole system and back (issue 14). The
 * fake Telegram Bot API, the real bot (grammY long polling + outbox sender with production defaults,
 * in this process), core services, the hub and engine, a real node agent process and the real CLIs
 * against the mock model servers, which answer `TOOLBASH-<x>` (Claude: Bash) / `TOOLSHELL-<x>`
 * (Codex: an escalated exec_command) with a tool call the CLI asks permission for.
 *
 *   npx tsx scripts/prompt-latency.bench.ts [--requests 30] [--executors claude,codex]
 *
 * Per request, one at a time:
 *  - the request reached Bria's hook (the agent's own receive time, `PermissionPrompt.receivedAt`)
 *    → the request's `sendMessage` with its buttons arriving at the Bot API;
 *  - "Allow" pressed (the callback query given to the Bot API) → the CLI continues: the mock model
 *    receives the CLI's next request carrying the tool's result (the tool ran).
 *  - the request reached Bria's hook → the Web Push request for it arriving at the device's push
 *    service (issue 32): the hub's push sender in this process, a local push service
 *    (testkit push-endpoint.ts) that decrypts each push with the subscription's keys, one device;
 * The first request per executor is a warm-up and is left out. Prints one JSON line per executor;
 * raw samples go to bench-out/prompt-latency.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { InlineKeyboardMarkup } from '@grammyjs/types';
import type { Executor } from '../packages/testkit/src/system.ts';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { PushSender } from '../packages/core/src/hub/push-sender.ts';
import { subscribePush } from '../packages/core/src/services/push/push-devices.ts';
import { browserKeys, decryptPush, PushEndpoint } from '../packages/testkit/src/push-endpoint.ts';
import { startTelegramBench, stats } from './bench-telegram.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '30' }, executors: { type: 'string', default: 'claude,codex' } } });
const REQUESTS = Number(values.requests);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { sys, fake, user: USER, stop } = await startTelegramBench();
const raw: Record<string, number[]> = {};
// One push device, as a phone subscribed in Settings would be.
const pushService = await new PushEndpoint().start();
const pushSender = new PushSender({ db: sys.db, databaseUrl: sys.databaseUrl, log: pino({ level: 'silent' }) });
await pushSender.start();
const deviceKeys = browserKeys();
const user = await sys.db.dashboardUser.create({ data: { id: randomUUID(), name: 'bench' } });
await subscribePush({ db: sys.db }, { userId: user.id, subscription: { endpoint: pushService.endpoint('phone'), keys: deviceKeys.keys }, name: 'phone' });
/** When the push service received the show push for `promptId` (event-driven: waits for the next push until it is there). */
async function pushArrival(promptId: string): Promise<number> {
  for (;;) {
    const got = pushService.to('phone');
    const hit = got.find((r) => (JSON.parse(decryptPush(r.body, deviceKeys).toString('utf8')) as { promptId?: string; action: string }).promptId === promptId);
    if (hit) return hit.at;
    await pushService.waitFor('phone', got.length + 1, 90_000);
  }
}
try {
  await sys.startAgent();
  for (const kind of values.executors.split(',') as Executor[]) {
    // Codex asks only for an escalated command under on-request approvals; Claude asks for Bash in its default mode.
    await sys.db.node.update({ where: { id: sys.nodeId }, data: { claudePermissionMode: 'default', codexPermissionMode: 'workspace-write' } });
    const created = await sys.createSession(kind, sys.folder(`prompt-${kind}`));
    await sys.waitState(created.id, 'Ready', 90_000);
    const toBotApi: number[] = [];
    const pressToCli: number[] = [];
    const toPush: number[] = [];
    for (let i = 0; i <= REQUESTS; i++) {
      const marker = `b${i}x${Math.random().toString(36).slice(2, 8)}`;
      fake.userSends(`please ${kind === 'claude' ? 'TOOLBASH' : 'TOOLSHELL'}-${marker} now`, { chatId: USER, userId: USER });
      // The request's own message (its buttons), not any other message quoting the command.
      const shown = await fake.waitForCall(
        'sendMessage',
        (c) => String(c.params.text ?? '').includes(`touch ran-${marker}`) && JSON.stringify(c.params.reply_markup ?? '').includes('"Allow"'),
        90_000,
      );
      const prompt = await sys.db.permissionPrompt.findFirstOrThrow({
        where: { sessionId: created.id, toolInput: { path: ['command'], equals: `touch ran-${marker}` } },
      });
      const pushedAt = await pushArrival(prompt.id);
      const messageId = (shown.response as { result?: { message_id?: number } } | undefined)?.result?.message_id;
      const allow = ((shown.params.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat().find((b) => b.text === 'Allow') as
        | { callback_data?: string }
        | undefined;
      if (!messageId || !allow?.callback_data) throw new Error(`${kind}: request ${i} has no Allow button`);
      const pressed = Date.now();
      fake.userPresses(messageId, allow.callback_data, { chatId: USER, userId: USER });
      const next = await sys.mocks[kind].waitForRequest(
        (q) => q.toolResult !== null && q.toolResult !== undefined && JSON.stringify(q.toolResult).includes(marker),
        90_000,
      );
      await fake.waitForCall('sendMessage', (c) => String(c.params.text ?? '').startsWith('TOOL-DONE-') && c.at > pressed, 90_000);
      await sys.waitState(created.id, 'Ready', 60_000);
      if (i === 0) continue;
      toBotApi.push(shown.at - prompt.receivedAt.getTime());
      pressToCli.push(Date.parse(next.time) - pressed);
      toPush.push(pushedAt - prompt.receivedAt.getTime());
    }
    raw[`prompt ${kind}/request→push service`] = toPush;
    raw[`prompt ${kind}/request→Bot API`] = toBotApi;
    raw[`prompt ${kind}/Allow pressed→CLI continues`] = pressToCli;
    console.log(
      JSON.stringify({
        bench: 'prompt_latency',
        executor: kind,
        requests: REQUESTS,
        requestToBotApiMs: stats(toBotApi),
        allowPressedToCliContinuesMs: stats(pressToCli),
        requestToPushServiceMs: stats(toPush),
      }),
    );
    await sys.close(created.id);
    await sys.waitState(created.id, 'Archived', 60_000).catch(() => undefined);
  }
  await mkdir(path.join(root, 'bench-out'), { recursive: true });
  await writeFile(path.join(root, 'bench-out', 'prompt-latency.json'), JSON.stringify({ bench: 'prompt_latency', unit: 'ms', samples: raw }));
} finally {
  await pushSender.stop();
  await pushService.stop();
  await stop();
}
process.exit(0);
