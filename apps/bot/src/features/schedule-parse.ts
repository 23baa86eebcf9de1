/**
 * `/schedule` in Telegram (issue 33), parsed. Pure:
 *   /schedule in 30m <text>          (m, h, d; "1h30m" too)
 *   /schedule at 18:30 <text>        (today, or tomorrow once that time has passed, in the user's zone)
 *   /schedule at 2026-12-24 09:00 <text>
 *   /schedule every <five cron fields> <text>   or   every @daily <text>
 * Add `!` after the time (`in 2h! …`, `every @daily! …`) to resume the session first if it is
 * closed then. Anything else is a usage error, never a guess.
 */
export type ParsedSchedule =
  | { ok: true; kind: 'once'; runAt: Date; text: string; resumeIfClosed: boolean }
  | { ok: true; kind: 'recurring'; cron: string; text: string; resumeIfClosed: boolean }
  | { ok: false; error: 'usage' | 'no_text' | 'bad_time' };

const UNIT: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The UTC instant of a wall-clock time in `tz` (two passes absorb a DST change between them). */
export function zonedTime(y: number, mo: number, d: number, h: number, mi: number, tz: string): Date {
  const want = Date.UTC(y, mo - 1, d, h, mi);
  let t = want;
  for (let i = 0; i < 2; i++) {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
      })
        .formatToParts(new Date(t))
        .map((p) => [p.type, Number(p.value)]),
    );
    const seen = Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0);
    t += want - seen;
  }
  return new Date(t);
}

function todayIn(now: Date, tz: string): { y: number; mo: number; d: number } {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: tz, year: 'numeric', month: 'numeric', day: 'numeric' })
      .formatToParts(now)
      .map((x) => [x.type, Number(x.value)]),
  );
  return { y: p.year ?? 1970, mo: p.month ?? 1, d: p.day ?? 1 };
}

export function parseSchedule(input: string, now: Date, tz: string): ParsedSchedule {
  const s = input.trim();
  const rest = (after: string) => after.replace(/^\s+/, '');
  let m = /^in\s+((?:\d+[mhd])+)(!?)(?:\s+([\s\S]*))?$/i.exec(s);
  if (m) {
    let ms = 0;
    for (const [, n, u] of (m[1] ?? '').matchAll(/(\d+)([mhd])/gi)) ms += Number(n) * (UNIT[(u ?? 'm').toLowerCase()] ?? 0);
    const text = rest(m[3] ?? '');
    if (ms <= 0) return { ok: false, error: 'bad_time' };
    if (!text) return { ok: false, error: 'no_text' };
    return { ok: true, kind: 'once', runAt: new Date(now.getTime() + ms), text, resumeIfClosed: m[2] === '!' };
  }
  m = /^at\s+(?:(\d{4})-(\d{2})-(\d{2})\s+)?(\d{1,2}):(\d{2})(!?)(?:\s+([\s\S]*))?$/i.exec(s);
  if (m) {
    const [h, mi] = [Number(m[4]), Number(m[5])];
    if (h > 23 || mi > 59) return { ok: false, error: 'bad_time' };
    const text = rest(m[7] ?? '');
    if (!text) return { ok: false, error: 'no_text' };
    const day = m[1] ? { y: Number(m[1]), mo: Number(m[2]), d: Number(m[3]) } : todayIn(now, tz);
    let runAt = zonedTime(day.y, day.mo, day.d, h, mi, tz);
    // A bare time already past today means tomorrow; a dated one stays (and is refused as past).
    if (!m[1] && runAt.getTime() <= now.getTime()) runAt = zonedTime(day.y, day.mo, day.d + 1, h, mi, tz);
    if (Number.isNaN(runAt.getTime())) return { ok: false, error: 'bad_time' };
    return { ok: true, kind: 'once', runAt, text, resumeIfClosed: m[6] === '!' };
  }
  // Six or seven cron-looking fields (seconds, years) are taken whole, so the schedule is refused
  // for what it is rather than sent with its last field as text.
  m = /^every\s+((?:[\d*/,?LW#-]+\s+){5,6}[\d*/,?LW#-]+?)(!?)(?:\s+([\s\S]*))?$/i.exec(s) ?? /^every\s+(@\w+|(?:\S+\s+){4}\S+?)(!?)(?:\s+([\s\S]*))?$/i.exec(s);
  if (m) {
    const text = rest(m[3] ?? '');
    if (!text) return { ok: false, error: 'no_text' };
    return { ok: true, kind: 'recurring', cron: (m[1] ?? '').trim(), text, resumeIfClosed: m[2] === '!' };
  }
  return { ok: false, error: 'usage' };
}
