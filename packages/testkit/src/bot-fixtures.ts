import { randomUUID } from 'node:crypto';
import type { Db } from '../../core/src/db/client.ts';
import type { Prisma } from '../../core/src/db/generated/client.ts';
import { enqueueOutbox, type OutboxPayload } from '../../core/src/db/repos/outbox.ts';
import type { PromptPhase } from '../../core/src/domain/prompt-machine.ts';

/**
 * The rows the Telegram bot's tests set up and inspect. The bot itself never touches Prisma (it goes
 * through `@bria/core/services`); its tests still need fixtures of what the engine, the hub or a
 * node would have written, and a look at the rows afterwards. They are here, next to the other
 * database helpers, so `apps/bot` holds no Prisma call at all.
 */

/** Every table a bot test writes to, emptied before each test. */
const BOT_TEST_TABLES = [
  'Outbox',
  'PermissionPrompt',
  'ChatNodeState',
  'TelegramChat',
  'Message',
  'AgentCommand',
  'SessionEvidence',
  'SessionTimer',
  'Session',
  'Node',
  'Settings',
  'LoginToken',
  'DashboardUser',
];

export async function emptyBotTables(db: Db): Promise<void> {
  await db.$executeRawUnsafe(`truncate ${BOT_TEST_TABLES.map((t) => `"${t}"`).join(', ')} cascade`);
}

// Chats.

/** A chat row (user = chat, as in a private chat) and, with `active`, its active session on that node. */
export async function seedChat(
  db: Db,
  o: {
    chatId: number | bigint;
    language?: string;
    selectedNodeId?: string;
    flow?: Prisma.InputJsonValue;
    active?: { nodeId: string; sessionId: string | null };
  },
): Promise<void> {
  const chatId = BigInt(o.chatId);
  await db.telegramChat.create({
    data: {
      chatId,
      userId: chatId,
      language: o.language ?? 'en',
      ...(o.selectedNodeId ? { selectedNodeId: o.selectedNodeId } : {}),
      ...(o.flow ? { flow: o.flow } : {}),
    },
  });
  if (o.active) await db.chatNodeState.create({ data: { chatId, nodeId: o.active.nodeId, activeSessionId: o.active.sessionId } });
}

/** Only the active session of a chat on a node (for a chat row the bot created itself). */
export async function seedActiveSession(db: Db, o: { chatId: number | bigint; nodeId: string; sessionId: string | null }): Promise<void> {
  await db.chatNodeState.create({ data: { chatId: BigInt(o.chatId), nodeId: o.nodeId, activeSessionId: o.sessionId } });
}

export async function changeActiveSession(db: Db, o: { chatId: number | bigint; nodeId: string; sessionId: string | null }): Promise<void> {
  await db.chatNodeState.update({ where: { chatId_nodeId: { chatId: BigInt(o.chatId), nodeId: o.nodeId } }, data: { activeSessionId: o.sessionId } });
}

export const chatRow = (db: Db, chatId: number | bigint) => db.telegramChat.findUniqueOrThrow({ where: { chatId: BigInt(chatId) } });
export const findChatRow = (db: Db, chatId: number | bigint) => db.telegramChat.findUnique({ where: { chatId: BigInt(chatId) } });
export const countChats = (db: Db): Promise<number> => db.telegramChat.count();

export async function changeChat(db: Db, chatId: number | bigint, data: Prisma.TelegramChatUpdateInput): Promise<void> {
  await db.telegramChat.update({ where: { chatId: BigInt(chatId) }, data });
}

export async function activeSessionIdOf(db: Db, chatId: number | bigint, nodeId: string): Promise<string | null> {
  return (await db.chatNodeState.findUniqueOrThrow({ where: { chatId_nodeId: { chatId: BigInt(chatId), nodeId } } })).activeSessionId;
}

// Nodes, sessions, their messages, evidence and commands.

export async function changeNode(db: Db, id: string, data: Prisma.NodeUpdateInput): Promise<void> {
  await db.node.update({ where: { id }, data });
}
export const nodeRow = (db: Db, id: string) => db.node.findUniqueOrThrow({ where: { id } });

export async function changeSession(db: Db, id: string, data: Prisma.SessionUpdateInput): Promise<void> {
  await db.session.update({ where: { id }, data });
}
export const sessionRow = (db: Db, id: string) => db.session.findUniqueOrThrow({ where: { id } });
/** What a refused press must leave unchanged. */
export const sessionStateAndVersion = (db: Db, id: string) => db.session.findUniqueOrThrow({ where: { id }, select: { state: true, version: true } });
export const findSessionRow = (db: Db, where: Prisma.SessionWhereInput) => db.session.findFirstOrThrow({ where });
export const countSessions = (db: Db, where: Prisma.SessionWhereInput = {}): Promise<number> => db.session.count({ where });

export const seedMessage = (db: Db, data: Prisma.MessageUncheckedCreateInput) => db.message.create({ data });
export const messageTexts = async (db: Db, sessionId: string): Promise<string[]> =>
  (await db.message.findMany({ where: { sessionId }, orderBy: { seq: 'asc' }, select: { text: true } })).map((m) => m.text);
export const messageRows = (db: Db, where: Prisma.MessageWhereInput) => db.message.findMany({ where, orderBy: { seq: 'asc' } });
export async function changeMessage(db: Db, id: string, data: Prisma.MessageUncheckedUpdateInput): Promise<void> {
  await db.message.update({ where: { id }, data });
}
export const countMessages = (db: Db, where: Prisma.MessageWhereInput = {}): Promise<number> => db.message.count({ where });

export async function seedEvidence(db: Db, data: Prisma.SessionEvidenceUncheckedCreateInput): Promise<void> {
  await db.sessionEvidence.create({ data });
}

export const agentCommandTypes = async (db: Db, where: Prisma.AgentCommandWhereInput): Promise<string[]> =>
  (await db.agentCommand.findMany({ where, select: { type: true } })).map((c) => c.type);
export const agentCommandRows = (db: Db, where: Prisma.AgentCommandWhereInput) =>
  db.agentCommand.findMany({ where, orderBy: { createdAt: 'asc' }, select: { type: true, sessionId: true, payload: true } });
export const countAgentCommands = (db: Db, where: Prisma.AgentCommandWhereInput): Promise<number> => db.agentCommand.count({ where });

/** Voice notes as the bot kept them (docs/voice.md). */
export const voiceNoteRows = (db: Db, where: Prisma.VoiceNoteWhereInput = {}) => db.voiceNote.findMany({ where, orderBy: { createdAt: 'asc' } });

// Settings and dashboard users.

export async function seedSettings(db: Db, data: Omit<Prisma.SettingsUncheckedCreateInput, 'id'>): Promise<void> {
  await db.settings.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
}
export const settingsRow = (db: Db) => db.settings.findUniqueOrThrow({ where: { id: 1 } });
export const countSettings = (db: Db): Promise<number> => db.settings.count();
export const dashboardUserWithTokens = (db: Db, telegramUserId: number | bigint) =>
  db.dashboardUser.findUniqueOrThrow({ where: { telegramUserId: BigInt(telegramUserId) }, include: { loginTokens: true } });

// The outbox.

/** A row as the engine (or an earlier bot process) left it, written directly (no NOTIFY). */
export const seedOutboxRow = (db: Db, data: Omit<Prisma.OutboxUncheckedCreateInput, 'channel'> & { channel?: string }) =>
  db.outbox.create({ data: { channel: 'telegram', ...data }, select: { id: true } });

/** A row as the engine enqueues it: checked against core's schema, with the NOTIFY that wakes senders. */
export async function enqueueEngineRow(db: Db, o: { dedupeKey: string; chatId: number | bigint; payload: OutboxPayload }): Promise<void> {
  await enqueueOutbox(db, { channel: 'telegram', dedupeKey: o.dedupeKey, chatId: BigInt(o.chatId), payload: o.payload, now: new Date() });
}

export const outboxRows = (db: Db, where: Prisma.OutboxWhereInput = {}) => db.outbox.findMany({ where, orderBy: { id: 'asc' } });
export const outboxRow = (db: Db, id: bigint) => db.outbox.findUniqueOrThrow({ where: { id } });
export const outboxRowWhere = (db: Db, where: Prisma.OutboxWhereInput) => db.outbox.findFirstOrThrow({ where, orderBy: { id: 'asc' } });
export const firstOutboxRow = (db: Db, where: Prisma.OutboxWhereInput) => db.outbox.findFirst({ where, orderBy: { id: 'asc' } });
export const loginLinkRows = (db: Db) => db.outbox.findMany({ where: { kind: 'login_link' }, select: { status: true, payload: true, lastError: true } });
export const countOutbox = (db: Db, where: Prisma.OutboxWhereInput = {}): Promise<number> => db.outbox.count({ where });

export async function emptyOutboxAndChats(db: Db): Promise<void> {
  await db.outbox.deleteMany({});
  await db.telegramChat.deleteMany({});
}

/**
 * A handle whose next `n` outbox updates fail as they would while Postgres restarts; `left()` says
 * how many failures are still to come.
 */
export function withFailingOutboxUpdates(db: Db, n: number): { db: Db; left: () => number } {
  let failures = n;
  const outbox = new Proxy(db.outbox, {
    get(target, prop, receiver) {
      if (prop === 'updateMany' && failures > 0) {
        return async () => {
          failures--;
          throw new Error('Connection terminated unexpectedly');
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  const flaky = new Proxy(db, { get: (target, prop, receiver) => (prop === 'outbox' ? outbox : Reflect.get(target, prop, receiver)) }) as Db;
  return { db: flaky, left: () => failures };
}

// Nodes and sessions as the hub and the engine would have left them.

let n = 0;
export async function seedNode(db: Db, o: { name?: string; online?: boolean; executors?: ('claude' | 'codex')[] } = {}): Promise<string> {
  const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  await db.node.create({ data: { id, name: o.name ?? `node-${n}`, online: o.online ?? true, enabledExecutors: o.executors ?? ['claude', 'codex'] } });
  return id;
}

/** A session row as the engine would have left it (state fixtures; no engine runs in these tests). */
export async function seedSession(
  db: Db,
  o: { nodeId: string; state: 'Ready' | 'Running' | 'Closing' | 'Archived'; deadline?: Date | null; title?: string },
): Promise<string> {
  const id = `10000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  await db.session.create({
    data: {
      id,
      nodeId: o.nodeId,
      executor: 'claude',
      folder: '/home/ada/project',
      nativeSessionId: `native-${n}`,
      state: o.state,
      lifetimeDeadline: o.deadline === undefined ? new Date(Date.now() + 3 * 3600_000) : o.deadline,
      title: o.title ?? null,
      ...(o.state === 'Archived' ? { archivedAt: new Date() } : {}),
    },
  });
  return id;
}

/**
 * The node's answer to folder checks, stored the way the hub stores an agent's `command_result`
 * (no agent runs in these tests, as no engine does: a fixture of what the node would have said).
 * Returns a function that stops answering.
 */
export function answerFolderChecks(
  db: Db,
  nodeId: string,
  check: (folder: string) => { ok: true; folder: string } | { ok: false; reason: string } = (folder) => ({ ok: true, folder }),
): () => void {
  let seq = 1_000_000 + n * 1000;
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const cmds = await db.agentCommand.findMany({ where: { nodeId, type: 'validate_folder', status: 'pending' }, select: { id: true, payload: true } });
      for (const c of cmds) {
        const folder = String((c.payload as { folder?: unknown }).folder);
        await db.agentEvent.create({
          data: { nodeId, seq: seq++, type: 'command_result', commandId: c.id, payload: { commandId: c.id, data: check(folder) }, processedAt: new Date() },
        });
        await db.agentCommand.update({ where: { id: c.id }, data: { status: 'acked', ackedAt: new Date() } });
      }
    } finally {
      busy = false;
    }
  }, 30);
  return () => clearInterval(timer);
}

// Permission requests and questions (issue 14) as the engine records them.

/**
 * A pending request as the engine stores it from the agent's `permission_request` (db/repos/prompts.ts
 * `insertPrompt`), with the `open` row it enqueues for the chat (`prompt:<id>:open:<chat>`).
 */
export async function seedPrompt(
  db: Db,
  o: {
    sessionId: string;
    chatId: number | bigint;
    kind?: 'tool' | 'question';
    toolName: string;
    toolInput: Prisma.InputJsonValue;
    justification?: string;
    canAlwaysAllow?: boolean;
    generation?: number;
  },
): Promise<string> {
  const id = randomUUID();
  const s = await db.session.findUniqueOrThrow({ where: { id: o.sessionId }, select: { nodeId: true, observerGeneration: true } });
  await db.permissionPrompt.create({
    data: {
      id,
      sessionId: o.sessionId,
      generation: o.generation ?? s.observerGeneration,
      kind: o.kind ?? 'tool',
      toolName: o.toolName,
      toolInput: o.toolInput,
      justification: o.justification ?? null,
      canAlwaysAllow: o.canAlwaysAllow ?? false,
      receivedAt: new Date(),
      expiresAt: new Date(Date.now() + 30 * 60_000),
    },
  });
  await db.session.update({ where: { id: o.sessionId }, data: { openPrompts: { increment: 1 } } });
  await promptPhase(db, { promptId: id, chatId: o.chatId, phase: 'open' });
  return id;
}

/** The engine's row for a prompt's phase in a chat (engine `notifyPrompt`). */
export async function promptPhase(db: Db, o: { promptId: string; chatId: number | bigint; phase: PromptPhase }): Promise<void> {
  const p = await db.permissionPrompt.findUniqueOrThrow({ where: { id: o.promptId }, select: { sessionId: true, session: { select: { nodeId: true } } } });
  await enqueueEngineRow(db, {
    dedupeKey: `prompt:${o.promptId}:${o.phase}:${o.chatId}`,
    chatId: o.chatId,
    payload: { kind: 'prompt', sessionId: p.sessionId, nodeId: p.session.nodeId, promptId: o.promptId, phase: o.phase },
  });
}

/** A request's row moved as the engine moves it on the agent's report (`resolvePrompt`, `endOpenPrompts`). */
export async function changePrompt(db: Db, id: string, data: Prisma.PermissionPromptUpdateInput): Promise<void> {
  await db.permissionPrompt.update({ where: { id }, data });
}
export const promptRow = (db: Db, id: string) => db.permissionPrompt.findUniqueOrThrow({ where: { id } });
