import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createDb, createNodeWithToken, issueAgentToken, revokeAgentToken, type Db } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { acceptMessage, createSession } from '@bria/core/services';
import { createLoginLink, redeemLoginToken } from '@bria/core/trpc';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { Agent } from '../../apps/node-agent/src/agent.ts';
import { startEngine, type Engine } from '../../packages/core/src/engine/start-engine.ts';
import { startBot } from './bot-rig.ts';
import { capturedLogger, leaks, until } from './support.ts';

/**
 * A representative run with every logger at info level writing to a buffer: an agent connecting
 * with its token, a login link redeemed, the bot serving the owner and refusing a stranger, a
 * session created in a temp folder, messages accepted, delivered and answered, the final sent to
 * Telegram. Afterwards no log line may contain a token, a text, the final answer or a temp path.
 */
let tdb: TestDatabase;
let db: Db;
let hub: Hub;
let engine: Engine;
let bot: Awaited<ReturnType<typeof startBot>>;
let agent: Agent;
let refused: Agent;
const root = mkdtempSync(join(tmpdir(), 'bria-sec-logs-'));
const hubLog = capturedLogger('hub');
const engineLog = capturedLogger('engine');
const botLog = capturedLogger('bot');
const servicesLog = capturedLogger('services');
const agentLines: string[] = [];
const OWNER = 700800900;
const unique = (label: string) => `${label}-${randomBytes(9).toString('base64url')}`;
const S = {
  botToken: `123456:${unique('TGSECRET')}`,
  ownerText: unique('owner-says-sk-live'),
  strangerText: unique('stranger-says-password'),
  serviceText: unique('service-text-api-key'),
  finalText: unique('final-answer-secret'),
  folder: join(root, 'project-secret-folder'),
  journal: join(root, 'journal-secret.jsonl'),
  agentToken: '',
  revokedToken: '',
  loginToken: '',
  sessionSecret: '',
  csrf: '',
  dbPassword: '',
};

beforeAll(async () => {
  tdb = await createTestDatabase();
  S.dbPassword = new URL(tdb.url).password;
  db = createDb(tdb.url, { max: 8 });
  mkdirSync(S.folder);
  hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 60_000, log: hubLog.log });
  await hub.start();
  engine = await startEngine({ db, databaseUrl: tdb.url, log: engineLog.log, safetyPollMs: 200 });
  bot = await startBot(db, { allowed: [OWNER], log: botLog.log, token: S.botToken });
}, 120_000);
afterAll(async () => {
  await agent?.stop();
  await refused?.stop();
  await bot?.stop();
  await engine?.stop();
  await hub?.stop();
  await db?.$disconnect();
  await tdb?.drop();
  rmSync(root, { recursive: true, force: true });
});

/** A scripted agent for the session node: acknowledges commands and answers deliveries from "the CLI". */
async function scriptedAgent(token: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
  let seq = 0;
  const send = (o: object) => ws.send(JSON.stringify(o));
  const event = (event: string, sessionId: string, generation: number, payload: object) =>
    send({ type: 'event', seq: ++seq, at: Date.now(), event, sessionId, generation, payload });
  ws.on('message', (raw) => {
    const f = JSON.parse(raw.toString()) as {
      type: string;
      id: string;
      command: string;
      sessionId: string;
      payload: { generation: number; messageId: string };
    };
    if (f.type === 'welcome') seq = (f as unknown as { lastEventSeq: number }).lastEventSeq;
    if (f.type !== 'command') return;
    send({ type: 'command_ack', id: f.id });
    const g = f.payload.generation;
    if (f.command === 'start_session') event('session_ready', f.sessionId, g, { identity: { nativeSessionId: 'native-1', pid: 4242, journalPath: S.journal } });
    if (f.command === 'deliver') {
      const turn = `rec-${f.payload.messageId}`;
      event('turn_accepted', f.sessionId, g, { messageId: f.payload.messageId, nativeRecordId: turn, offset: 1 });
      event('turn_final', f.sessionId, g, { messageId: f.payload.messageId, nativeTurnId: turn, text: `${S.finalText} for ${f.payload.messageId}` });
      event('turn_completed', f.sessionId, g, { messageId: f.payload.messageId, nativeTurnId: turn, offset: 2 });
    }
  });
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  send({ type: 'hello', protocol: 1, agentVersion: '0.1.0', instanceId: 'scripted', hostname: 'scripted', executors: [], lastEventSeq: 0 });
  return ws;
}

describe('logs of a full run', () => {
  it('contain no token, message text, final answer or temp path at info level', async () => {
    // A real agent connects with its token (it runs no CLI here: those paths do not exist).
    const real = await createNodeWithToken(db, { name: 'real-agent' });
    S.agentToken = real.token;
    agent = new Agent(
      {
        hubUrl: `ws://127.0.0.1:${hub.port}/agent`,
        token: real.token,
        dir: join(root, 'agent'),
        claudeBin: join(root, 'no-claude'),
        codexBin: join(root, 'no-codex'),
        tmuxSocket: `bria-sec-logs-${process.pid}`,
        logLevel: 'info',
      },
      (level, msg, fields) => agentLines.push(JSON.stringify({ level, msg, ...fields })),
    );
    void agent.start();
    await until(async () => (await db.node.findUniqueOrThrow({ where: { id: real.nodeId } })).online, 10_000, 'real agent online');
    // And one whose token was revoked: it is refused and says so in its log.
    const old = await issueAgentToken(db, real.nodeId, 'old');
    await revokeAgentToken(db, old.tokenId);
    S.revokedToken = old.token;
    refused = new Agent(
      {
        hubUrl: `ws://127.0.0.1:${hub.port}/agent`,
        token: old.token,
        dir: join(root, 'agent-old'),
        claudeBin: join(root, 'no-claude'),
        codexBin: join(root, 'no-codex'),
        tmuxSocket: `bria-sec-logs-old-${process.pid}`,
        logLevel: 'info',
      },
      (level, msg, fields) => agentLines.push(JSON.stringify({ level, msg, ...fields })),
    );
    void refused.start();
    await until(() => agentLines.some((l) => l.includes('refused')), 10_000, 'refusal logged by the agent');

    // A login link is created and redeemed.
    const link = await createLoginLink({ db, baseUrl: 'http://127.0.0.1:3000' });
    S.loginToken = new URL(link.url).searchParams.get('token') ?? '';
    const web = await redeemLoginToken({ db, token: S.loginToken });
    S.sessionSecret = web.secret;
    S.csrf = web.csrfToken;

    // The session node, its session in a temp folder, and the owner's chat.
    const node = await createNodeWithToken(db, { name: 'session-node' });
    await db.node.update({ where: { id: node.nodeId }, data: { enabledExecutors: ['claude'] } });
    const ws = await scriptedAgent(node.token);
    await until(async () => (await db.node.findUniqueOrThrow({ where: { id: node.nodeId } })).online, 10_000, 'scripted agent online');
    const owner = { chatId: OWNER, userId: OWNER, firstName: 'Ada', languageCode: 'en' };
    bot.fake.userSends('/start', owner);
    await bot.fake.waitForChat((m) => m.some((x) => x.from?.is_bot), { chatId: OWNER });
    // The owner picked this computer (what /nodes does).
    await db.telegramChat.update({ where: { chatId: BigInt(OWNER) }, data: { selectedNodeId: node.nodeId } });
    const session = await createSession({ db, log: servicesLog.log }, { nodeId: node.nodeId, executor: 'claude', folder: S.folder, chatId: BigInt(OWNER) });
    await until(async () => (await db.session.findUniqueOrThrow({ where: { id: session.id } })).state === 'Ready', 10_000, 'Ready');

    // Texts from the owner (through the bot), from the services, and from a stranger.
    bot.fake.userSends(S.ownerText, owner);
    await acceptMessage({ db, log: servicesLog.log }, { sessionId: session.id, text: S.serviceText, source: 'web', sourceKey: 'sec-1' });
    bot.fake.userSends(S.strangerText, { chatId: 31337, userId: 31337, firstName: 'Eve', languageCode: 'en' });
    await bot.fake.waitForChat((m) => m.filter((x) => x.text?.startsWith(S.finalText)).length >= 2, { chatId: OWNER, timeoutMs: 20_000 });
    await bot.fake.waitForChat((m) => m.some((x) => x.from?.is_bot), { chatId: 31337 });
    const stored = await until(
      async () => {
        const rows = await db.message.findMany({ where: { sessionId: session.id }, select: { text: true, status: true } });
        return rows.length === 2 && rows.every((m) => m.status === 'completed') ? rows : undefined;
      },
      10_000,
      'both messages completed',
    );
    expect(stored.map((m) => m.text).sort()).toEqual([S.ownerText, S.serviceText].sort());
    ws.close();

    const all = { hub: hubLog.text(), engine: engineLog.text(), bot: botLog.text(), services: servicesLog.text(), agent: agentLines.join('\n') };
    // The run did log (so an empty buffer cannot pass this test).
    expect(all.hub).toContain('hub.agent_online');
    expect(all.bot).toContain('not allow-listed');
    expect(agentLines.length).toBeGreaterThan(0);
    const secrets = {
      agentToken: S.agentToken,
      revokedToken: S.revokedToken,
      scriptedToken: node.token,
      loginToken: S.loginToken,
      sessionSecret: S.sessionSecret,
      csrf: S.csrf,
      botToken: S.botToken,
      botTokenSecret: S.botToken.split(':')[1] ?? '',
      dbPassword: S.dbPassword,
      ownerText: S.ownerText,
      strangerText: S.strangerText,
      serviceText: S.serviceText,
      finalText: S.finalText,
      tempRoot: root,
    };
    for (const [name, text] of Object.entries(all)) expect(leaks(text, secrets), `${name} log`).toEqual([]);
  });
});
