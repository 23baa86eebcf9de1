// Pure parsers for `ps -o pid=,ppid=,stat=,lstart=,comm=` output (procps-ng on Linux, BSD ps on
// macOS: both take these keywords). No I/O here: process-table-portable.ts runs `ps`.
import type { ProcStat } from './proc-tree.ts';

/** The keywords every call asks for, in this order: `comm` last, since it may contain spaces. */
export const PS_COLUMNS = 'pid=,ppid=,stat=,lstart=,comm=';

/**
 * `ps` runs with this locale and zone so `lstart` is the same text on every call and every system:
 * "Fri Dec  4 14:02:52 2026" (C locale `%a %b %e %H:%M:%S %Y`, in UTC). Claude Code reads its own
 * start time the same way on systems without /proc (`ps -o lstart= -p <pid>` with LC_ALL=C, TZ=UTC).
 */
export const PS_ENV = { PATH: '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C', TZ: 'UTC' } as const;

// weekday, month, day (space-padded), time, year: five words, whatever the padding.
const LINE = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+([A-Z][a-z]{2}\s+[A-Z][a-z]{2}\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}\s+\d{4})(?:\s+(.*))?$/;

/**
 * One line of that output, or null when it is not one. `state` is the first letter of `stat` (the
 * rest are flags: `s` session leader, `+` foreground, `l` threaded, `<`/`N` priority); Z is a
 * zombie on both systems. `startTime` is `lstart` with its spaces collapsed: with the pid it names
 * one process, to the second, and it is the same text on every call. Why `lstart` and not a start
 * derived from `etime`/`etimes` (now − elapsed): that one moves by a second between two calls as
 * the two clocks' roundings meet, so it could not be compared as a token (and `etimes` is a procps
 * keyword, not one macOS's ps(1) is known to take). macOS keeps each process's start as an absolute
 * time, so its `lstart` does not move; procps computes it as boot time + start ticks, where the
 * boot time (/proc/stat `btime`) moves if the wall clock is stepped (settimeofday, a VM resumed) —
 * one reason Linux keeps /proc by default.
 */
export function parsePsLine(line: string): ProcStat | null {
  const m = LINE.exec(line.replace(/\s+$/, ''));
  if (!m) return null;
  return {
    pid: Number(m[1]),
    ppid: Number(m[2]),
    state: m[3]!.charAt(0),
    startTime: normaliseStart(m[4]!),
    comm: m[5] ?? '',
  };
}

/** Every process line of the output; headers, blank and foreign lines are skipped. */
export function parsePsTable(text: string): ProcStat[] {
  const out: ProcStat[] = [];
  for (const line of text.split('\n')) {
    const row = parsePsLine(line);
    if (row) out.push(row);
  }
  return out;
}

/** `lstart` text with runs of spaces made one ("Fri Dec  4 …" → "Fri Dec 4 …"). */
export function normaliseStart(lstart: string): string {
  return lstart.trim().replace(/\s+/g, ' ');
}

const finished = (st: ProcStat) => st.state === 'Z' || st.state === 'X';

/** The direct children of `pid` in one snapshot (zombies included, as in /proc's children lists). */
export function childrenIn(rows: readonly ProcStat[], pid: number): number[] {
  return rows.filter((r) => r.ppid === pid && r.pid !== pid).map((r) => r.pid);
}

/**
 * `pid` and all of its descendants in one snapshot, parents first; a finished process (zombie) and
 * what hangs below it are left out, as the /proc walk does.
 */
export function treeIn(rows: readonly ProcStat[], pid: number): number[] {
  const byPid = new Map(rows.map((r) => [r.pid, r]));
  const kids = new Map<number, number[]>();
  for (const r of rows) {
    if (r.pid === r.ppid) continue;
    const list = kids.get(r.ppid);
    if (list) list.push(r.pid);
    else kids.set(r.ppid, [r.pid]);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    const st = byPid.get(p);
    if (out.includes(p) || !st || finished(st)) continue;
    out.push(p);
    queue.push(...(kids.get(p) ?? []));
  }
  return out;
}
