import { minuteOfDayIn, type PushEventKind, type PushRoute, pushTopicOf, pushTtlSeconds, pushUrgency, routePush } from '../../domain/push-routing.ts';
import { chatsForSession, type SessionRow, type Tx } from '../../db/repos/sessions.ts';
import { createPushAnswerToken } from '../../db/repos/push-answer.ts';
import { enqueuePushes, type PushPayload, withdrawPushes } from '../../db/repos/push-outbox.ts';
import { pushTargets, readPushSettings, sessionPageVisible, sessionPushMuted } from '../../db/repos/push.ts';

/**
 * The producer side of Web Push (issue 32): called in the transaction that stores the fact
 * (a prompt opened, a turn ended…), it asks the pure rule (`routePush`) whether devices get a push
 * and writes one `PushOutbox` row per device. Telegram's rows are written by their own code as
 * before (the rule's `telegram` is what they do).
 */

export const promptTag = (promptId: string): string => `prompt-${promptId}`;
export const sessionTag = (sessionId: string): string => `session-${sessionId}`;

/** The first line of a text, cut for a notification (only when Settings allow it). */
export function firstLineOf(text: string | null | undefined): string | undefined {
  const line = (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!line) return undefined;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

export interface PushEventInput {
  event: PushEventKind;
  /** Unique for this fact (e.g. `prompt:<id>:open`); the device id is appended. */
  key: string;
  now: Date;
  promptId?: string;
  /** Text whose first line the push may carry (Settings: off by default). */
  text?: string | null;
  /** The prompt already left `pending` (a hook answered it) before the push was decided. */
  alreadyAnswered?: boolean;
  /**
   * A permission request (not a question or dialog): each device's push carries Allow / Deny with
   * its own single-use answer token, valid until this (capped at `PUSH_ANSWER_TTL_MS`).
   */
  answerableUntil?: Date;
}

/** Writes the pushes for one event of `row`'s session; returns the rule's decision (null: no device at all). */
export async function pushEvent(tx: Tx, row: SessionRow, e: PushEventInput): Promise<PushRoute | null> {
  const targets = await pushTargets(tx);
  if (targets.length === 0) return null;
  // One after another: a transaction's connection runs one query at a time.
  const prefs = await readPushSettings(tx);
  const chats = await chatsForSession(tx, row);
  const pageVisible = await sessionPageVisible(tx, row.id, e.now);
  const muted = await sessionPushMuted(tx, row.id);
  const route = routePush({
    event: e.event,
    pageVisible,
    telegram: chats.length > 0,
    pushDevices: true,
    sessionMuted: muted,
    alreadyAnswered: e.alreadyAnswered === true,
    prefs,
    minuteOfDay: minuteOfDayIn(e.now, prefs.timeZone),
  });
  if (!route.push) return route;
  const tag = e.promptId ? promptTag(e.promptId) : sessionTag(row.id);
  const body = prefs.firstLine ? firstLineOf(e.text) : undefined;
  const payload: PushPayload = {
    v: 1,
    action: 'show',
    kind: e.event,
    tag,
    title: (row.title ?? row.folder).slice(0, 120),
    ...(body ? { body } : {}),
    sessionId: row.id,
    ...(e.promptId ? { promptId: e.promptId } : {}),
    url: `/sessions/${row.id}`,
  };
  const rows = [];
  for (const t of targets) {
    // One token per device: a token is bound to the request, the device and its user.
    const answer =
      e.promptId && e.answerableUntil
        ? await createPushAnswerToken(tx, { promptId: e.promptId, subscriptionId: t.id, userId: t.userId, now: e.now, promptExpiresAt: e.answerableUntil })
        : null;
    rows.push({ target: t, payload: answer ? { ...payload, answer: { token: answer.token, expiresAt: answer.expiresAt.toISOString() } } : payload });
  }
  await enqueuePushes(
    tx,
    rows.map(({ target: t, payload }) => ({
      subscriptionId: t.id,
      dedupeKey: `${e.key}:${t.id}`,
      payload,
      topic: pushTopicOf(e.promptId ?? row.id),
      urgency: pushUrgency(e.event),
      ttlSeconds: pushTtlSeconds(e.event),
      now: e.now,
    })),
  );
  return route;
}

/**
 * A prompt no longer waits (answered from any channel, at the computer, or ended): its push not
 * yet sent is withdrawn and every device that may show it gets a `close` with the same tag and
 * topic (the service worker closes the notification; a push service still holding the show
 * replaces it by topic).
 */
export async function closePromptPush(
  tx: Tx,
  o: { promptId: string; sessionId: string; kind: 'tool' | 'question' | 'dialog' | string; now: Date },
): Promise<number> {
  const tag = promptTag(o.promptId);
  const devices = await withdrawPushes(tx, tag);
  if (devices.length === 0) return 0;
  const event: PushEventKind = o.kind === 'dialog' ? 'dialog_waiting' : 'prompt_waiting';
  const payload: PushPayload = {
    v: 1,
    action: 'close',
    kind: event,
    tag,
    title: '',
    sessionId: o.sessionId,
    promptId: o.promptId,
    url: `/sessions/${o.sessionId}`,
  };
  return enqueuePushes(
    tx,
    devices.map((subscriptionId) => ({
      subscriptionId,
      dedupeKey: `prompt:${o.promptId}:close:${subscriptionId}`,
      payload,
      topic: pushTopicOf(o.promptId),
      urgency: 'high',
      ttlSeconds: pushTtlSeconds(event),
      now: o.now,
    })),
  );
}

/** The line a prompt's push may show: a question's text, a command, a file, else the tool's name. */
export function promptLine(toolName: string, toolInput: unknown): string {
  const i = (toolInput && typeof toolInput === 'object' ? toolInput : {}) as Record<string, unknown>;
  const questions = Array.isArray(i.questions) ? (i.questions as { question?: unknown }[]) : [];
  const q = questions[0]?.question;
  if (typeof q === 'string') return q;
  for (const k of ['command', 'cmd', 'file_path', 'text']) if (typeof i[k] === 'string') return `${toolName}: ${i[k] as string}`;
  return toolName;
}

/** A permission request, question or start dialog opened: its push; a permission request's carries Allow / Deny per device. */
export function pushPromptOpened(
  tx: Tx,
  row: SessionRow,
  p: { requestId: string; kind: string; toolName: string; toolInput: unknown; expiresAt: number },
  now: Date,
): Promise<PushRoute | null> {
  return pushEvent(tx, row, {
    event: p.kind === 'dialog' ? 'dialog_waiting' : 'prompt_waiting',
    key: `prompt:${p.requestId}:open`,
    promptId: p.requestId,
    text: promptLine(p.toolName, p.toolInput),
    ...(p.kind === 'tool' ? { answerableUntil: new Date(p.expiresAt) } : {}),
    now,
  });
}
