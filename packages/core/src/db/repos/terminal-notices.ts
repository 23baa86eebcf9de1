import type { Db } from '../client.ts';

/**
 * The live terminal's legs between processes (protocol/live-frames.ts), as NOTIFYs, never rows:
 * `bria_terminal` (dashboard → hub: open / renew, typed keys) and `bria_pane` (hub → dashboards:
 * the pane's snapshot and output). A NOTIFY payload holds at most 8000 bytes, so pane data travels
 * as base64 pieces of at most `PANE_PIECE_BYTES` bytes of UTF-8 (the browser's terminal decodes
 * UTF-8 across pieces).
 */
export const TERMINAL_CHANNEL = 'bria_terminal';
export const PANE_CHANNEL = 'bria_pane';
export const PANE_PIECE_BYTES = 5_000;

export interface TerminalNotice {
  sessionId: string;
  op: 'open' | 'input';
  data?: string;
}

export interface PaneNotice {
  sessionId: string;
  seq: number;
  kind: 'snapshot' | 'output';
  /** base64 of UTF-8 bytes. */
  data: string;
  cols?: number;
  rows?: number;
}

const UUID = /^[0-9a-f-]{36}$/;

export function parseTerminalNotice(payload: string | undefined): TerminalNotice | null {
  try {
    const o = JSON.parse(payload ?? '') as Record<string, unknown>;
    if (typeof o.s !== 'string' || !UUID.test(o.s) || (o.op !== 'open' && o.op !== 'input')) return null;
    if (o.d !== undefined && typeof o.d !== 'string') return null;
    return { sessionId: o.s, op: o.op, ...(typeof o.d === 'string' ? { data: o.d } : {}) };
  } catch {
    return null;
  }
}

export async function notifyTerminal(db: Db, n: TerminalNotice): Promise<void> {
  const payload = JSON.stringify({ s: n.sessionId, op: n.op, ...(n.data !== undefined ? { d: n.data } : {}) });
  await db.$executeRaw`select pg_notify(${TERMINAL_CHANNEL}, ${payload})`;
}

/** The payloads of one pane frame: its data cut into pieces (each under the NOTIFY limit). */
export function paneNotices(p: { sessionId: string; seq: number; kind: 'snapshot' | 'output'; data: string; cols?: number; rows?: number }): string[] {
  const bytes = Buffer.from(p.data, 'utf8');
  const out: string[] = [];
  for (let at = 0; at === 0 || at < bytes.length; at += PANE_PIECE_BYTES) {
    const first = at === 0;
    out.push(
      JSON.stringify({
        s: p.sessionId,
        q: p.seq,
        k: first ? p.kind : 'output',
        d: bytes.subarray(at, at + PANE_PIECE_BYTES).toString('base64'),
        ...(first && p.cols ? { c: p.cols, r: p.rows } : {}),
      }),
    );
  }
  return out;
}

export function parsePaneNotice(payload: string | undefined): PaneNotice | null {
  try {
    const o = JSON.parse(payload ?? '') as Record<string, unknown>;
    if (typeof o.s !== 'string' || !UUID.test(o.s) || typeof o.q !== 'number' || typeof o.d !== 'string') return null;
    if (o.k !== 'snapshot' && o.k !== 'output') return null;
    return {
      sessionId: o.s,
      seq: o.q,
      kind: o.k,
      data: o.d,
      ...(typeof o.c === 'number' && typeof o.r === 'number' ? { cols: o.c, rows: o.r } : {}),
    };
  } catch {
    return null;
  }
}

export async function notifyPane(db: Db, payloads: readonly string[]): Promise<void> {
  for (const p of payloads) await db.$executeRaw`select pg_notify(${PANE_CHANNEL}, ${p})`;
}
