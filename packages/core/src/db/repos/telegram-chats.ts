import type { Db } from '../client.ts';
import { Prisma } from '../generated/client.ts';

/**
 * Telegram chat state: selected node, card message and generation, multi-step flow. The active
 * session per node is `getActiveSessionId`/`setActiveSessionId` in `sessions.ts`, shared with the
 * session services.
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
  chatId: true,
  userId: true,
  language: true,
  selectedNodeId: true,
  cardMessageId: true,
  cardSessionId: true,
  cardGeneration: true,
  flow: true,
} as const satisfies Prisma.TelegramChatSelect;

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

/** `flow: null` ends a flow (a SQL NULL, not JSON null). */
export async function updateChat(
  db: Db,
  chatId: bigint,
  data: Partial<Pick<ChatDto, 'language' | 'selectedNodeId' | 'cardMessageId' | 'cardSessionId'>> & { flow?: object | null },
): Promise<void> {
  const { flow, ...rest } = data;
  const flowData = flow === null ? { flow: Prisma.DbNull } : flow ? { flow } : {};
  await db.telegramChat.update({ where: { chatId }, data: { ...rest, ...flowData }, select: { chatId: true } });
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

/**
 * Where a chat goes back to when an exact resume fails: the session that was active on that node
 * before Resume was pressed. Kept in `TelegramChat.flow` (durable, so it survives a bot restart
 * between the press and the engine's `resume_failed` notice). Starting a /new flow replaces it:
 * the user has then chosen where to go next themselves.
 */
export interface ResumeReturn {
  kind: 'resumeReturn';
  sessionId: string;
  nodeId: string;
  previousSessionId: string;
}

export function readResumeReturn(flow: unknown, sessionId: string): ResumeReturn | undefined {
  const f = flow as Partial<ResumeReturn> | null;
  return f?.kind === 'resumeReturn' && f.sessionId === sessionId && typeof f.previousSessionId === 'string' ? (f as ResumeReturn) : undefined;
}

/** The card was just edited or posted, showing the session's activity of `activityAt` (progress throttle). */
export async function noteCardShown(db: Db, chatId: bigint, at: Date, activityAt: Date | null): Promise<void> {
  await db.telegramChat.updateMany({ where: { chatId }, data: { cardEditedAt: at, cardActivityAt: activityAt } });
}

export interface CardBehind {
  chatId: bigint;
  sessionId: string;
  cardEditedAt: Date | null;
  activityAt: Date;
}

/**
 * Cards of open sessions whose activity or context use changed since the card last showed it: the
 * progress edits still to make (the bot's ProgressTicker).
 */
export async function listCardsBehind(db: Db): Promise<CardBehind[]> {
  return db.$queryRaw<CardBehind[]>`
    select c."chatId", s.id as "sessionId", c."cardEditedAt", s."activityAt"
    from "TelegramChat" c join "Session" s on s.id = c."cardSessionId"
    where c."cardMessageId" is not null and s."activityAt" is not null
      and s.state <> 'Archived'
      and (c."cardActivityAt" is null or s."activityAt" > c."cardActivityAt")`;
}
