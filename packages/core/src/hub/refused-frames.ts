import type { Db } from '../db/client.ts';
import { recordDeadLetter } from '../db/repos/dead-letters.ts';
import { MAX_FRAME_BYTES } from '../protocol/index.ts';
import type { AgentConnection } from './agent-connection.ts';

/** The frame's text and size in bytes (a frame arrives as a Buffer, or fragments of one). */
export function frameText(raw: unknown): { text: string; bytes: number } {
  if (typeof raw === 'string') return { text: raw, bytes: Buffer.byteLength(raw) };
  const buf = Array.isArray(raw) ? Buffer.concat(raw as Buffer[]) : Buffer.from(raw as ArrayBuffer);
  return { text: buf.toString('utf8'), bytes: buf.length };
}

/**
 * The event seq a refused frame names, when it looks like an event at all (`type` "event", a positive
 * safe integer `seq`): the hub acknowledges that seq so the agent drops the frame instead of replaying
 * it on every reconnect. Undefined for anything else (nothing to acknowledge).
 */
export function refusedEventSeq(text: string): number | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const { type, seq } = data as { type?: unknown; seq?: unknown };
  return type === 'event' && typeof seq === 'number' && Number.isSafeInteger(seq) && seq > 0 ? seq : undefined;
}

/** Why a frame of this size is refused before it is parsed, or null. */
export function sizeRefusal(bytes: number): string | null {
  return bytes > MAX_FRAME_BYTES ? `frame of ${bytes} bytes exceeds ${MAX_FRAME_BYTES}` : null;
}

/**
 * A frame the hub cannot accept from a connected agent: recorded as a dead letter (node, reason,
 * bounded excerpt, time), the event it names acknowledged, the connection kept open.
 */
export async function refuseFrame(db: Db, conn: AgentConnection, o: { reason: string; text: string; bytes: number; seq?: number }): Promise<void> {
  const seq = o.seq ?? refusedEventSeq(o.text);
  const r = await recordDeadLetter(db, { nodeId: conn.nodeId, reason: o.reason, raw: o.text, bytes: o.bytes, seq });
  conn.log.warn({ reason: o.reason.slice(0, 200), seq: seq ?? null, bytes: o.bytes, recorded: r.recorded }, 'hub.frame_refused');
  if (seq !== undefined) conn.send({ type: 'event_ack', upTo: Number(r.ackUpTo) });
}
