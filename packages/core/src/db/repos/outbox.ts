import { z } from 'zod';
import { OUTCOME_REASONS } from '../../domain/outcome-notice.ts';
import { PROMPT_PHASES } from '../../domain/prompt-machine.ts';
import type { DbOrTx } from './sessions.ts';

/**
 * Durable notifications for the front ends. The engine writes a row in the same transaction as the
 * state change it announces; bots claim rows (several processes never send one row twice) and mark
 * them sent or failed. `dedupeKey` is unique per logical delivery: a final is written once per
 * message and chat, whatever retries happen on either side.
 */
const zState = z.string();

export const zOutboxPayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('card_update'), sessionId: z.uuid(), nodeId: z.uuid(), state: zState, version: z.number().int(), active: z.boolean() }),
  /** A final answer; it starts a new Telegram message. */
  z.object({
    kind: z.literal('final'),
    sessionId: z.uuid(),
    nodeId: z.uuid(),
    messageId: z.uuid(),
    text: z.string(),
    active: z.boolean(),
    /** The turn's tool calls in one line (issue 15); absent for a turn without any. */
    summary: z.object({ commands: z.number().int(), filesChanged: z.number().int(), steps: z.number().int(), ms: z.number().int().nullable() }).optional(),
  }),
  /** Work of a background session finished: a short notice; `jump` makes it active and opens its card. */
  z.object({
    kind: z.literal('background_done'),
    sessionId: z.uuid(),
    nodeId: z.uuid(),
    title: z.string().nullable(),
    jump: z.object({ sessionId: z.uuid(), nodeId: z.uuid() }),
  }),
  z.object({
    kind: z.literal('progress'),
    sessionId: z.uuid(),
    nodeId: z.uuid(),
    topic: z.enum(['recovery', 'stop', 'close']),
    phase: z.enum(['started', 'waiting', 'unconfirmed', 'done']),
  }),
  z.object({ kind: z.literal('resume_failed'), sessionId: z.uuid(), nodeId: z.uuid(), cause: z.string() }),
  z.object({
    kind: z.literal('final_save'),
    sessionId: z.uuid(),
    nodeId: z.uuid(),
    phase: z.enum(['failing', 'recovered']),
    cause: z.string().max(60).optional(),
  }),
  z.object({ kind: z.literal('expiry_refusal'), sessionId: z.uuid(), nodeId: z.uuid(), deadline: z.string().nullable() }),
  z.object({ kind: z.literal('blocked_on_prompt'), sessionId: z.uuid(), nodeId: z.uuid(), text: z.string() }),
  // A permission request / question (PermissionPrompt row `promptId`): `open` sends it with its choices;
  // the later phases redraw that message (the row is read when sending; the payload holds only ids).
  // The CLI's `/compact` ran (`ok`, with the CLI's own words) or could not (`detail`: why).
  z.object({ kind: z.literal('compacted'), sessionId: z.uuid(), nodeId: z.uuid(), ok: z.boolean(), detail: z.string().max(400) }),
  z.object({ kind: z.literal('prompt'), sessionId: z.uuid(), nodeId: z.uuid(), promptId: z.uuid(), phase: z.enum(PROMPT_PHASES) }),
  /** A message failed because its attachment could not be read here or stored on the node (never the agent's failure). */
  z.object({ kind: z.literal('attachment_failed'), sessionId: z.uuid(), nodeId: z.uuid(), messageId: z.uuid(), detail: z.string() }),
  /** A budget (issue 33) passed 80 % (`warn`) or 100 % (`reached`: messages wait until it is raised); once per level and budget. */
  z.object({
    kind: z.literal('budget'),
    sessionId: z.uuid(),
    nodeId: z.uuid(),
    scope: z.enum(['session', 'day']),
    level: z.enum(['warn', 'reached']),
    budgetUsd: z.number(),
    spentUsd: z.number(),
  }),
  /**
   * An occurrence of a scheduled message (issue 33) was not sent: the session was closed, or the
   * queue refused it in words (`detail`). Once per schedule and occurrence; `text` is the scheduled text, cut.
   */
  z.object({
    kind: z.literal('schedule_failed'),
    sessionId: z.uuid(),
    nodeId: z.uuid(),
    scheduleId: z.uuid(),
    reason: z.enum(['closed', 'refused']),
    detail: z.string().max(300),
    text: z.string().max(200),
  }),
  /** A queued message that came from Telegram was cancelled or edited on the dashboard: said as a reply to it. */
  z.object({
    kind: z.literal('message_changed'),
    sessionId: z.uuid(),
    nodeId: z.uuid(),
    messageId: z.uuid(),
    seq: z.number().int(),
    change: z.enum(['cancelled', 'edited']),
    replyTo: z.number().int(),
  }),
  /** A message's turn ended without a final: one notice per message and outcome, to the chat it came from, as a reply to it. */
  z.object({
    kind: z.literal('message_outcome'),
    sessionId: z.uuid(),
    nodeId: z.uuid(),
    messageId: z.uuid(),
    status: z.string(),
    reason: z.enum(OUTCOME_REASONS),
    replyTo: z.number().int().nullable(),
  }),
]);
export type OutboxPayload = z.infer<typeof zOutboxPayload>;
export type OutboxKind = OutboxPayload['kind'];
/**
 * The kinds the engine and the session services write. The Telegram bot also keeps its own kinds in
 * this table (handler replies, resume status; `zBotOutboxPayload` in outbox-payload.ts); `listOutbox`
 * leaves those alone. Claiming and finishing rows is outbox-claim.ts.
 */
export const CORE_OUTBOX_KINDS: readonly OutboxKind[] = zOutboxPayload.options.map((o) => o.shape.kind.value);

export interface OutboxRow {
  id: bigint;
  channel: string;
  dedupeKey: string;
  kind: OutboxKind;
  chatId: bigint | null;
  sessionId: string | null;
  payload: OutboxPayload;
  attempts: number;
}

/** Stores a notification once per dedupe key (a repeat is a no-op) and wakes the bots. Returns whether it was new. */
export async function enqueueOutbox(
  db: DbOrTx,
  row: { channel: string; dedupeKey: string; chatId: bigint | null; payload: OutboxPayload; now: Date },
): Promise<boolean> {
  const payload = zOutboxPayload.parse(row.payload);
  const r = await db.outbox.createMany({
    data: [
      {
        channel: row.channel,
        dedupeKey: row.dedupeKey,
        kind: payload.kind,
        chatId: row.chatId,
        sessionId: payload.sessionId,
        payload,
        nextAttemptAt: row.now,
        createdAt: row.now,
      },
    ],
    skipDuplicates: true,
  });
  if (r.count === 1) await db.$executeRaw`select pg_notify('bria_outbox', ${row.channel})`;
  return r.count === 1;
}

export async function listOutbox(db: DbOrTx, where: { sessionId?: string; kind?: OutboxKind } = {}): Promise<OutboxRow[]> {
  const rows = await db.outbox.findMany({
    where: { kind: where.kind ?? { in: [...CORE_OUTBOX_KINDS] }, ...(where.sessionId ? { sessionId: where.sessionId } : {}) },
    orderBy: { id: 'asc' },
    select: { id: true, channel: true, dedupeKey: true, kind: true, chatId: true, sessionId: true, payload: true, attempts: true },
  });
  return rows.map((r) => ({ ...r, kind: r.kind as OutboxKind, payload: zOutboxPayload.parse(r.payload) }));
}
