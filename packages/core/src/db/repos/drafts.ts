import type { Db } from '../client.ts';

/**
 * The hub → dashboard leg of a draft (protocol/live-frames.ts): one NOTIFY per draft on
 * `bria_draft`, never a row. NOTIFY payloads are limited to 8000 bytes, so the notice carries the
 * draft's last `NOTIFY_DRAFT_CHARS` characters (fewer when they are wide) and how many it left out.
 */
export const DRAFT_CHANNEL = 'bria_draft';
export const NOTIFY_DRAFT_CHARS = 2_000;
const NOTIFY_MAX_BYTES = 7_900;

export interface DraftNotice {
  sessionId: string;
  messageId: string;
  v: number;
  /** Characters of the draft before `text` that the notice leaves out. */
  cut: number;
  text: string;
}

export function encodeDraftNotice(d: { sessionId: string; messageId: string; v: number; text: string }): string {
  let keep = Math.min(d.text.length, NOTIFY_DRAFT_CHARS);
  for (;;) {
    let start = d.text.length - keep;
    // Never start inside a surrogate pair.
    if (start > 0 && /[\uDC00-\uDFFF]/.test(d.text[start]!)) start += 1;
    const payload = JSON.stringify({ s: d.sessionId, m: d.messageId, v: d.v, c: start, t: d.text.slice(start) });
    if (Buffer.byteLength(payload) <= NOTIFY_MAX_BYTES || keep === 0) return payload;
    keep = Math.floor(keep / 2);
  }
}

export function parseDraftNotice(payload: string | undefined): DraftNotice | null {
  try {
    const o = JSON.parse(payload ?? '') as Record<string, unknown>;
    const uuid = /^[0-9a-f-]{36}$/;
    if (typeof o.s !== 'string' || !uuid.test(o.s) || typeof o.m !== 'string' || !uuid.test(o.m)) return null;
    if (typeof o.v !== 'number' || typeof o.c !== 'number' || typeof o.t !== 'string') return null;
    return { sessionId: o.s, messageId: o.m, v: o.v, cut: o.c, text: o.t };
  } catch {
    return null;
  }
}

export async function notifyDraft(db: Db, payload: string): Promise<void> {
  await db.$executeRaw`select pg_notify(${DRAFT_CHANNEL}, ${payload})`;
}

/** The node a session runs on (null: no such session): a node's agent may only draw its own sessions' drafts. */
export async function sessionNodeId(db: Db, sessionId: string): Promise<string | null> {
  const s = await db.session.findUnique({ where: { id: sessionId }, select: { nodeId: true } });
  return s?.nodeId ?? null;
}
