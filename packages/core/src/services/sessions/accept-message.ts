import { randomUUID } from 'node:crypto';
import { AppError, type AcceptDecision, acceptRefusalToAppError, canAcceptMessage, isLifetimeDue, telegramOrigin } from '../../domain/index.ts';
import { appendMessageIfUnchanged, findMessageBySourceKey, type MessageDto } from '../../db/repos/messages.ts';
import { enqueueOutbox } from '../../db/repos/outbox.ts';
import type { Db } from '../../db/client.ts';
import { chatsForSession, type DbOrTx, readSessionExecutor, readSessionGate, type SessionGateRow } from '../../db/repos/sessions.ts';
import { depsOf, type ServiceDeps } from './session-dto.ts';
import { TELEGRAM } from '../../engine/step/session-notices.ts';
import { cliTextRefusal, MAX_ATTACHMENT_BYTES } from '../../protocol/index.ts';
import type { StoredAttachment } from '../../engine/step/carry-attachments.ts';

export interface AcceptMessageInput {
  sessionId: string;
  text: string;
  /** `schedule`: an occurrence of a scheduled message (engine/schedules.ts). */
  source: 'telegram' | 'web' | 'api' | 'schedule';
  /** Idempotency key of the source (e.g. `tg:<chat>:<message id>`): a repeat returns the stored message. */
  sourceKey?: string;
  /** Files already stored by the front end (path on this server, SHA-256 of the stored bytes). */
  attachments?: StoredAttachment[];
}
export interface AcceptMessageResult {
  message: Omit<MessageDto, 'finalText'>;
  duplicate: boolean;
}

/**
 * Stores a user message durably at the end of its session's queue, or refuses it. Refused input is
 * never queued: after lifetime expiry (or in a state that takes no input) nothing is stored, and an
 * expiry refusal also leaves one notice in the outbox. The engine is woken by NOTIFY to dispatch.
 */
export async function acceptMessage(deps: ServiceDeps, input: AcceptMessageInput): Promise<AcceptMessageResult> {
  const { db, clock } = depsOf(deps);
  if (input.text.length === 0 && !input.attachments?.length) throw new AppError('INVALID_INPUT', { message: 'empty message', reason: 'empty' });
  if ((input.attachments ?? []).reduce((n, a) => n + a.sizeBytes, 0) > MAX_ATTACHMENT_BYTES)
    throw new AppError('INVALID_INPUT', { message: 'attachments too large', reason: 'too_long' });
  await checkMessageText(db, input.sessionId, input.text);
  const r = await storeOrRefuse(db, clock.now(), input);
  if (r.kind === 'refused') {
    if (r.decision.code === 'LIFETIME_EXPIRED') {
      // Told to the chat the refused text came from; from the dashboard: to the chats the session lives in.
      const origin = telegramOrigin(input.source, input.sourceKey ?? null);
      const own = await db.session.findUnique({ where: { id: r.row.id }, select: { originChatId: true } });
      const chats = origin
        ? [{ chatId: origin.chatId }]
        : await chatsForSession(db, { id: r.row.id, nodeId: r.row.nodeId, originChatId: own?.originChatId ?? null });
      for (const c of chats) {
        await enqueueOutbox(db, {
          channel: TELEGRAM,
          dedupeKey: `expiry_refusal:${input.sourceKey ?? randomUUID()}:${c.chatId}`,
          chatId: c.chatId,
          now: r.now,
          payload: { kind: 'expiry_refusal', sessionId: r.row.id, nodeId: r.row.nodeId, deadline: r.row.lifetimeDeadline?.toISOString() ?? null },
        });
      }
    }
    throw acceptRefusalToAppError(r.decision);
  }
  const { finalText: _f, ...message } = r.message;
  return { message, duplicate: r.duplicate };
}

/**
 * The text bounds every message text meets, sent or edited: length, no control characters, and
 * nothing its CLI would take as its own command or rewrite.
 */
export async function checkMessageText(db: DbOrTx, sessionId: string, text: string): Promise<void> {
  if (text.length > 200_000) throw new AppError('INVALID_INPUT', { message: 'message too long', reason: 'too_long' });
  // A CLI's input box drops escape sequences and rewrites CR, so such a text could never be found in
  // its journal as sent: it would end `unknown` though the CLI took it. Tab and newline are text.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text))
    throw new AppError('INVALID_INPUT', { message: 'message contains control characters', reason: 'control_characters' });
  // A text its CLI would run as its own command or rewrite can never reach the model as sent: it is
  // refused with the reason, never stored, typed altered or dropped. Only such texts cost the read.
  if (cliTextRefusal('claude', text) || cliTextRefusal('codex', text)) {
    const executor = await readSessionExecutor(db, sessionId);
    const refusal = executor ? cliTextRefusal(executor, text) : null;
    if (refusal) throw new AppError('INVALID_INPUT', { message: `text the ${executor} CLI cannot take as sent`, userMessage: refusal, reason: 'cli_text' });
  }
}

/** Gate fields of recently appended-to sessions (bounded; see `storeOrRefuse`). */
const gateCache = new Map<string, SessionGateRow>();
const GATE_CACHE_MAX = 1000;
function rememberGate(row: SessionGateRow): void {
  gateCache.delete(row.id);
  gateCache.set(row.id, row);
  if (gateCache.size > GATE_CACHE_MAX) {
    const oldest = gateCache.keys().next().value;
    if (oldest !== undefined) gateCache.delete(oldest);
  }
}

type StoreResult =
  | { kind: 'stored'; message: MessageDto; duplicate: boolean }
  | { kind: 'refused'; decision: Extract<AcceptDecision, { ok: false }>; row: SessionGateRow; now: Date };

/**
 * The accept hot path: one or two round trips and no interactive transaction. The gate is decided by the
 * pure domain on an unlocked read; the append then commits only if the session row, locked, still
 * has those exact gate fields (`appendMessageIfUnchanged`), otherwise it reads and decides again.
 * That is the same linearization as deciding under the lock: a refusal writes nothing, so it is
 * ordered at its read; a stored message is ordered at its commit, before any later transition of
 * the session (which locks the row and then reads the queue).
 */
async function storeOrRefuse(db: Db, now: Date, input: AcceptMessageInput): Promise<StoreResult> {
  const existing = async (sessionId: string) => {
    const m = input.sourceKey ? await findMessageBySourceKey(db, input.sourceKey) : null;
    if (m && m.sessionId !== sessionId) throw new AppError('CONFLICT', { message: 'source key belongs to another session' });
    return m;
  };
  let fresh = false;
  for (let attempt = 1; attempt <= 20; attempt++) {
    // The gate fields seen at this process's last successful append to this session may be reused:
    // the append re-checks every one of them under the row lock, so a stale copy only costs a retry.
    // A refusal or a "not found" is never decided on a cached copy.
    const cached = fresh ? undefined : gateCache.get(input.sessionId);
    const row = cached ?? (await readSessionGate(db, input.sessionId));
    fresh = true;
    if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
    // The timer may lag behind the deadline by a poll: the deadline itself decides.
    const decision = canAcceptMessage({
      state: row.state,
      version: row.version,
      resumeState: null,
      observerGeneration: row.observerGeneration,
      hasNativeId: row.nativeSessionId !== null,
      lifetimeDeadline: row.lifetimeDeadline,
      lifetimeExpired: row.lifetimeExpired || isLifetimeDue(row.lifetimeDeadline, now),
      exitVerified: row.exitVerified,
      queue: { inFlight: false, waiting: false },
    });
    if (!decision.ok) {
      if (cached) continue;
      // A repeat of input stored before the refusal started gets its original answer.
      const m = await existing(row.id);
      if (m) return { kind: 'stored', message: m, duplicate: true };
      return { kind: 'refused', decision, row, now };
    }
    const a = await appendMessageIfUnchanged(db, row, {
      source: input.source,
      text: input.text,
      ...(input.sourceKey ? { sourceKey: input.sourceKey } : {}),
      ...(input.attachments ? { attachments: input.attachments } : {}),
    });
    if (a.kind === 'stored') {
      rememberGate(row);
      return { kind: 'stored', message: a.message, duplicate: false };
    }
    if (a.locked) {
      const m = await existing(row.id);
      if (m) return { kind: 'stored', message: m, duplicate: true };
    } else {
      gateCache.delete(row.id);
    }
    // The session changed between the read and the lock, or a concurrent append took this seq: decide again.
  }
  throw new AppError('CONFLICT', { message: 'session kept changing; message not stored' });
}
