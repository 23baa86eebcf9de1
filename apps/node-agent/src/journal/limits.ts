import { asNumber, asObject, asString } from './types.ts';

/** A CLI's usage-limit state as one journal record shows it (the protocol's `limit_state` without the executor). */
export interface LimitReport {
  reached: boolean;
  /** ms since the epoch, when the CLI said. */
  resetsAt?: number;
  windows: { name: string; usedPercent: number; windowMinutes?: number; resetsAt?: number }[];
  text?: string;
  /** When the CLI wrote the record (ms). */
  at: number;
}

/** Reports waiting to be sent; one equal to the previous one is dropped (Codex repeats its windows every request). */
class LimitQueue {
  private last = '';
  private out: LimitReport[] = [];
  push(r: LimitReport): void {
    const key = JSON.stringify({ ...r, at: 0 });
    if (key === this.last) return;
    this.last = key;
    this.out.push(r);
  }
  drain(): LimitReport[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}

/**
 * Codex: the `rate_limits` of a `token_count` event (codex-rs `RateLimitSnapshot`): `primary` and
 * `secondary` windows `{ used_percent, window_minutes, resets_at }` (resets_at in seconds since the
 * epoch) and `rate_limit_reached_type` once a limit is hit. Reached: that field set, or a window at
 * 100 %; the reset is the latest reset among the full windows. Null when nothing is reported (a
 * provider without limits writes both windows null).
 */
export function codexLimit(raw: unknown, at: number): LimitReport | null {
  const rl = asObject(raw);
  if (!rl) return null;
  const windows: LimitReport['windows'] = [];
  for (const name of ['primary', 'secondary'] as const) {
    const w = asObject(rl[name]);
    if (!w || typeof w.used_percent !== 'number') continue;
    const resetsAt =
      typeof w.resets_at === 'number' ? w.resets_at * 1000 : typeof w.resets_in_seconds === 'number' ? at + w.resets_in_seconds * 1000 : undefined;
    windows.push({
      name,
      usedPercent: Math.min(1000, Math.max(0, w.used_percent)),
      ...(typeof w.window_minutes === 'number' ? { windowMinutes: Math.max(0, Math.round(w.window_minutes)) } : {}),
      ...(resetsAt !== undefined ? { resetsAt: Math.round(resetsAt) } : {}),
    });
  }
  const reachedType = rl.rate_limit_reached_type;
  const full = windows.filter((w) => w.usedPercent >= 100);
  const reached = full.length > 0 || (reachedType !== null && reachedType !== undefined);
  if (windows.length === 0 && !reached) return null;
  const resets = (full.length > 0 ? full : reached ? windows : []).map((w) => w.resetsAt).filter((t): t is number => t !== undefined);
  const resetsAt = resets.length > 0 ? Math.max(...resets) : undefined;
  return { reached, ...(resetsAt !== undefined ? { resetsAt } : {}), windows, at };
}

export class CodexLimits {
  private readonly q = new LimitQueue();
  add(raw: unknown, at: number): void {
    const r = codexLimit(raw, at);
    if (r) this.q.push(r);
  }
  drain(): LimitReport[] {
    return this.q.drain();
  }
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** "resets 3pm", "reset at 12:50pm (Europe/Paris)", "resets Dec 9, 5pm (UTC)", "resets 9:30 AM". */
const RESET =
  /\bresets?\s+(?:at\s+)?(?:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2}),?\s+(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([^)\s]+)\))?/i;
/** Claude Code 1.x ended the text with the reset as seconds since the epoch: "…limit reached|1750708800". */
const EPOCH_SUFFIX = /\|(\d{10})\s*$/;
/** A usage limit, not another API error: "usage limit reached", "You've hit your session limit", "5-hour limit reached". */
const USAGE_LIMIT = /\b(?:usage|session|weekly|daily|hour|opus|sonnet)?\s*limit\b[^.\n]*?\b(?:reached|hit)\b|\bhit your\b[^.\n]*\blimit\b/i;
/** The API's rate-limit answer (HTTP 429 `rate_limit_error`): limited, for a time the text does not say. */
const RATE_LIMIT = /\brate_limit_error\b|\b429\b.*\brate limit\b/i;

function zoneParts(ms: number, zone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return { y: get('year'), mo: get('month') - 1, d: get('day'), h: get('hour'), mi: get('minute'), s: get('second') };
}

/** The instant a wall-clock time in `zone` stands for (two passes: right across a DST change but in its gap). */
function zonedToUtc(y: number, mo: number, d: number, h: number, mi: number, zone: string): number {
  const wall = Date.UTC(y, mo, d, h, mi);
  const offset = (ms: number) => {
    const p = zoneParts(ms, zone);
    return Date.UTC(p.y, p.mo, p.d, p.h, p.mi, p.s) - Math.floor(ms / 1000) * 1000;
  };
  const first = wall - offset(wall);
  return wall - offset(first);
}

/**
 * The reset a Claude limit text names, as the next such moment after `at` (the record's time):
 * Claude writes a time of day, in the user's zone, sometimes with a date and the zone's name. A
 * text without a zone is read in `localZone` (Claude writes the computer's own zone, and the agent
 * runs on that computer). Undefined when the text names no time Bria can read.
 */
export function claudeResetAt(text: string, at: number, localZone: string): number | undefined {
  const epoch = EPOCH_SUFFIX.exec(text);
  if (epoch) return Number(epoch[1]) * 1000;
  const m = RESET.exec(text);
  if (!m) return undefined;
  const [, mon, day, hh, mm, ampm, zoneName] = m;
  if (!ampm && mm === undefined) return undefined;
  let h = Number(hh);
  const mi = mm === undefined ? 0 : Number(mm);
  if (h > 23 || mi > 59 || (ampm && (h < 1 || h > 12))) return undefined;
  if (ampm) h = (h % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0);
  const zone = zoneName ?? localZone;
  try {
    const now = zoneParts(at, zone);
    if (mon && day) {
      const mo = MONTHS.indexOf(mon.toLowerCase());
      let t = zonedToUtc(now.y, mo, Number(day), h, mi, zone);
      // A date earlier than the record by more than a day is next year's (Dec → Jan).
      if (t < at - 86_400_000) t = zonedToUtc(now.y + 1, mo, Number(day), h, mi, zone);
      return t;
    }
    let t = zonedToUtc(now.y, now.mo, now.d, h, mi, zone);
    if (t <= at) t = zonedToUtc(now.y, now.mo, now.d + 1, h, mi, zone);
    return t;
  } catch {
    return undefined; // an unknown zone name
  }
}

/**
 * Claude: the text of an API-error record (`isApiErrorMessage`), when it is a usage limit ("limit
 * reached … resets …") or the API's rate-limit refusal; null for any other error.
 */
export function claudeLimit(text: string, at: number, localZone: string): LimitReport | null {
  const usage = USAGE_LIMIT.test(text) || EPOCH_SUFFIX.test(text);
  if (!usage && !RATE_LIMIT.test(text)) return null;
  const resetsAt = claudeResetAt(text, at, localZone);
  return { reached: true, ...(resetsAt !== undefined ? { resetsAt } : {}), windows: [], text: text.slice(0, 300), at };
}

/**
 * Limit states from a Claude journal: a limit record says reached; a real model answer after it
 * says the CLI works again (Claude journals no other sign that a limit ended).
 */
export class ClaudeLimits {
  private readonly q = new LimitQueue();
  private limited = false;
  constructor(private readonly localZone = Intl.DateTimeFormat().resolvedOptions().timeZone) {}
  /** An assistant record: its error text when it is an API error, its time, and whether a model answered. */
  add(rec: Record<string, unknown>): void {
    if (rec.type !== 'assistant') return;
    const at = Date.parse(asString(rec.timestamp) ?? '') || Date.now();
    const message = asObject(rec.message);
    if (rec.isApiErrorMessage === true) {
      const text = (Array.isArray(message?.content) ? message.content : []).map((b) => asString(asObject(b)?.text) ?? '').join('');
      // Claude 2.1.197 marks the API's 429 on the record (`error: "rate_limit"`, `apiErrorStatus: 429`).
      const marked = rec.error === 'rate_limit' || rec.apiErrorStatus === 429;
      const r = claudeLimit(text, at, this.localZone) ?? (marked ? { reached: true, windows: [], text: text.slice(0, 300), at } : null);
      if (r) {
        this.limited = true;
        this.q.push(r);
      }
      return;
    }
    if (this.limited && message && message.model !== '<synthetic>' && asNumber(asObject(message.usage)?.output_tokens) > 0) {
      this.limited = false;
      this.q.push({ reached: false, windows: [], at });
    }
  }
  drain(): LimitReport[] {
    return this.q.drain();
  }
}
