import { z } from 'zod';
import { MAX_FRAME_BYTES, zEvent } from './messages.ts';
import { SESSION_EVENT_PAYLOADS, isSessionEventName } from './session-events.ts';

/**
 * Bounds of the agent's event frames and the splitting of a large event (docs/architecture.md,
 * "Frame bounds and long text").
 *
 * - An event frame the agent sends is at most `MAX_EVENT_FRAME_BYTES` (512 KiB, half the 1 MiB
 *   `MAX_FRAME_BYTES` either side accepts, so an envelope can never tip it over).
 * - An event whose frame would be larger (a final answer of 600k Cyrillic characters is ~1.2 MB) is
 *   split by the agent into `event_part` events: the JSON text of its payload cut into pieces of at
 *   most `PART_DATA_BYTES` (as serialized, escapes counted), consecutive seqs, same session/command/
 *   generation. The hub stores the parts and, when the last one arrives, replaces them with one event
 *   of the original name and payload at the last part's seq: reassembled exactly once (a replayed
 *   part is a seq already stored). At most `MAX_EVENT_PARTS` parts (16 MiB of payload).
 */
export const MAX_EVENT_FRAME_BYTES = 512 * 1024;
export const PART_DATA_BYTES = 256 * 1024;
export const MAX_EVENT_PARTS = 64;
export const EVENT_PART = 'event_part';
/**
 * What the agent's ledger sends in place of a stored event the protocol refuses (written by an older
 * agent): same seq, `{ event, reason }`. The hub records it as a dead letter and moves on.
 */
export const EVENT_REFUSED = 'event_refused';
export const zEventRefused = z.object({ event: z.string().max(64), reason: z.string().max(500) });

export const zEventPart = z.object({
  partOf: z.uuid(),
  index: z
    .number()
    .int()
    .nonnegative()
    .max(MAX_EVENT_PARTS - 1),
  count: z.number().int().min(2).max(MAX_EVENT_PARTS),
  /** The original event's name. */
  event: z.string().min(1).max(64),
  /** A piece of the original payload's JSON text; its serialized size is at most PART_DATA_BYTES, so its length is too. */
  data: z.string().max(PART_DATA_BYTES),
});
export type EventPart = z.infer<typeof zEventPart>;

/** An event as the agent records it, before its frame is built. */
export interface OutgoingEvent {
  seq: number;
  at: number;
  event: string;
  commandId?: string;
  sessionId?: string;
  generation?: number;
  payload: Record<string, unknown>;
}

const issues = (e: z.ZodError) =>
  e.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.')}: ${i.message}`)
    .join('; ');

/** Bytes of the JSON text of `s` (escapes counted) in UTF-8: exact for `JSON.stringify`. */
function charCost(cp: number): number {
  if (cp === 0x22 || cp === 0x5c) return 2;
  if (cp < 0x20) return cp === 8 || cp === 9 || cp === 10 || cp === 12 || cp === 13 ? 2 : 6;
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp >= 0xd800 && cp <= 0xdfff) return 6; // a lone surrogate is escaped as \udXXX
  return cp < 0x10000 ? 3 : 4;
}

/** The frame as it goes on the wire. */
export function eventFrame(e: OutgoingEvent): z.input<typeof zEvent> {
  return {
    type: 'event',
    seq: e.seq,
    at: e.at,
    event: e.event,
    commandId: e.commandId,
    sessionId: e.sessionId,
    generation: e.generation,
    payload: e.payload,
  };
}

/**
 * Why the protocol would refuse this event, or null when it is acceptable: the frame's envelope
 * (`zEvent`), its size, and the payload of a known session event or of a part. The agent's ledger
 * refuses at append what this refuses; the hub applies it to every event frame.
 */
export function eventRefusal(e: OutgoingEvent): string | null {
  const env = zEvent.safeParse(eventFrame(e));
  if (!env.success) return `envelope: ${issues(env.error)}`;
  const text = JSON.stringify(eventFrame(e));
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_EVENT_FRAME_BYTES) return `frame of ${bytes} bytes exceeds ${MAX_EVENT_FRAME_BYTES}`;
  return nulRefusal(text) ?? payloadRefusal(e.event, e.payload);
}

/** A `\u0000` or lone-surrogate escape not itself escaped (an even run of backslashes before it). */
const UNSTORABLE = /(?<!\\)((?:\\\\)*)\\u(0000|d[89a-f][0-9a-f]{2})/gi;

/**
 * A NUL character or a lone UTF-16 surrogate anywhere in an event (they appear in its JSON as
 * `\u0000`, `\ud800`…; a proper pair is written as the character itself) cannot be stored by
 * Postgres (jsonb refuses both): refused by name instead of failing the hub's write on every replay.
 * The agent replaces them first (`storableJson`), so a CLI's text loses one character, never the answer.
 */
export function nulRefusal(frameText: string): string | null {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(frameText) ? 'a NUL character or a lone surrogate, which the database cannot store' : null;
}

/** `value` with every NUL and lone surrogate replaced by U+FFFD (a copy only when needed). */
export function storableJson<T>(value: T): T {
  const text = JSON.stringify(value);
  UNSTORABLE.lastIndex = 0;
  if (text === undefined || !UNSTORABLE.test(text)) return value;
  return JSON.parse(text.replace(UNSTORABLE, '$1\\ufffd')) as T;
}

/** Why the payload of `event` is refused (known session events and parts only; others pass). */
export function payloadRefusal(event: string, payload: unknown): string | null {
  if (event === EVENT_REFUSED) {
    const r = zEventRefused.safeParse(payload);
    return r.success ? null : `event_refused: ${issues(r.error)}`;
  }
  if (event === EVENT_PART) {
    const r = zEventPart.safeParse(payload);
    return r.success ? null : `event_part: ${issues(r.error)}`;
  }
  if (isSessionEventName(event)) {
    const r = SESSION_EVENT_PAYLOADS[event].safeParse(payload);
    return r.success ? null : `${event}: ${issues(r.error)}`;
  }
  return null;
}

/** Cuts `text` into pieces whose serialized size is at most `maxBytes`, never inside a surrogate pair. */
export function cutByJsonBytes(text: string, maxBytes: number): string[] {
  const out: string[] = [];
  let start = 0;
  let size = 0;
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i) ?? 0;
    const units = cp > 0xffff ? 2 : 1;
    const cost = charCost(cp);
    if (size + cost > maxBytes && i > start) {
      out.push(text.slice(start, i));
      start = i;
      size = 0;
    }
    size += cost;
    i += units;
  }
  if (i > start || out.length === 0) out.push(text.slice(start));
  return out;
}

/**
 * The events to record for `e`: itself when its frame fits, else its parts (see above). Seqs are
 * assigned by the caller (the ledger); `partOf` comes in as an argument (no randomness here).
 */
export function splitEvent(e: Omit<OutgoingEvent, 'seq'>, partOf: string): Omit<OutgoingEvent, 'seq'>[] {
  const whole = Buffer.byteLength(JSON.stringify(eventFrame({ ...e, seq: 1 })));
  if (whole <= MAX_EVENT_FRAME_BYTES) return [e];
  const pieces = cutByJsonBytes(JSON.stringify(e.payload), PART_DATA_BYTES);
  return pieces.map((data, index) => ({
    at: e.at,
    event: EVENT_PART,
    commandId: e.commandId,
    sessionId: e.sessionId,
    generation: e.generation,
    payload: { partOf, index, count: pieces.length, event: e.event, data } satisfies EventPart,
  }));
}

/**
 * Joins the parts of one event (any order). Refused when one is missing or repeated, they disagree,
 * or the joined text is not a JSON object.
 */
export function assembleParts(parts: EventPart[]): { ok: true; event: string; payload: Record<string, unknown> } | { ok: false; error: string } {
  const first = parts[0];
  if (!first) return { ok: false, error: 'no parts' };
  const sorted = [...parts].sort((a, b) => a.index - b.index);
  if (sorted.length !== first.count) return { ok: false, error: `${sorted.length} of ${first.count} parts` };
  for (const [i, p] of sorted.entries()) {
    if (p.index !== i || p.count !== first.count || p.event !== first.event || p.partOf !== first.partOf)
      return { ok: false, error: `part ${i} does not match (index ${p.index}, count ${p.count})` };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(sorted.map((p) => p.data).join(''));
  } catch {
    return { ok: false, error: 'joined parts are not JSON' };
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { ok: false, error: 'joined parts are not a JSON object' };
  return { ok: true, event: first.event, payload: payload as Record<string, unknown> };
}

/** The hub's bound on a frame it reads at all (a larger one closes the socket, 1009); between this and MAX_FRAME_BYTES a frame is refused, recorded and acknowledged. */
export const HUB_READ_LIMIT_BYTES = 4 * MAX_FRAME_BYTES;
