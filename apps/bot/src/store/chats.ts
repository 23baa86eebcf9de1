import type { Db } from '@bria/core/db';

/**
 * Telegram chat state (selected node, card message and generation, multi-step flow). Belongs with
 * core's repositories (`db/repos/telegram-chats.ts`); kept here until that file exists.
 */
export interface ChatDto {
  chatId: bigint;
  userId: bigint;
  language: string | null;
  selectedNodeId: string | null;
  cardMessageId: number | null;
  cardSessionId: string | null;
  cardGeneration: number;
  flow: unknown;
}

const select = {
  chatId: true, userId: true, language: true, selectedNodeId: true, cardMessageId: true, cardSessionId: true, cardGeneration: true, flow: true,
} as const;

export async function ensureChat(db: Db, o: { chatId: bigint; userId: bigint; language: string }): Promise<ChatDto> {
  return db.telegramChat.upsert({
    where: { chatId: o.chatId },
    create: { chatId: o.chatId, userId: o.userId, language: o.language },
    update: {},
    select,
  });
}

export async function getChat(db: Db, chatId: bigint): Promise<ChatDto | null> {
  return db.telegramChat.findUnique({ where: { chatId }, select });
}

export async function updateChat(
  db: Db,
  chatId: bigint,
  data: Partial<Pick<ChatDto, 'language' | 'selectedNodeId' | 'cardMessageId' | 'cardSessionId'>> & { flow?: object | null },
): Promise<void> {
  const { flow, ...rest } = data;
  await db.telegramChat.update({ where: { chatId }, data: { ...rest, ...(flow ? { flow } : {}) }, select: { chatId: true } });
  // A SQL NULL (not JSON null) ends a flow; Prisma's DbNull sentinel is not exported by core.
  if (flow === null) await db.$executeRaw`update "TelegramChat" set flow = null where "chatId" = ${chatId}`;
}

/**
 * A new card message replaces the old one: the generation goes up so buttons of every older card
 * are refused. Returns the new generation.
 */
export async function bumpCardGeneration(db: Db, chatId: bigint, sessionId: string | null): Promise<number> {
  const r = await db.telegramChat.update({
    where: { chatId },
    data: { cardGeneration: { increment: 1 }, cardSessionId: sessionId, cardMessageId: null },
    select: { cardGeneration: true },
  });
  return r.cardGeneration;
}

/** Records the card message only if no newer card was started meanwhile. */
export async function setCardMessage(db: Db, chatId: bigint, generation: number, messageId: number): Promise<boolean> {
  const r = await db.telegramChat.updateMany({ where: { chatId, cardGeneration: generation }, data: { cardMessageId: messageId } });
  return r.count === 1;
}

export async function getActiveSession(db: Db, chatId: bigint, nodeId: string): Promise<string | null> {
  const row = await db.chatNodeState.findUnique({ where: { chatId_nodeId: { chatId, nodeId } }, select: { activeSessionId: true } });
  return row?.activeSessionId ?? null;
}

export async function setActiveSession(db: Db, chatId: bigint, nodeId: string, sessionId: string | null): Promise<void> {
  await db.chatNodeState.upsert({
    where: { chatId_nodeId: { chatId, nodeId } },
    create: { chatId, nodeId, activeSessionId: sessionId },
    update: { activeSessionId: sessionId },
    select: { chatId: true },
  });
}

/**
 * Where a chat goes back to when an exact resume fails: the session that was active on that node
 * before Resume was pressed. Kept in `TelegramChat.flow` (durable, so it survives a bot restart
 * between the press and the engine's `resume_failed` notice). Starting a /new flow replaces it:
 * the user has then chosen where to go next themselves.
 */
export interface ResumeReturn { kind: 'resumeReturn'; sessionId: string; nodeId: string; previousSessionId: string }

export function readResumeReturn(flow: unknown, sessionId: string): ResumeReturn | undefined {
  const f = flow as Partial<ResumeReturn> | null;
  return f?.kind === 'resumeReturn' && f.sessionId === sessionId && typeof f.previousSessionId === 'string' ? (f as ResumeReturn) : undefined;
}
