import { describe, expect, it } from 'vitest';
import { childrenIn, normaliseStart, parsePsLine, parsePsTable, treeIn } from './ps-output.ts';

// `LC_ALL=C TZ=UTC ps -A -ww -o pid=,ppid=,stat=,lstart=,comm=`, captured on this project's Linux
// machine (Debian 12, procps-ng 4.0.2; `sh -c 'sleep 0 & exec sleep 20'` left the zombie, the
// binary copied to "my sleep (x)" gives the name with spaces and parentheses).
const LINUX = `    1     0 S<Ll Fri Dec  4 14:02:52 2026 process_api
    2     0 S    Fri Dec  4 14:02:52 2026 kthreadd
    4     2 I<   Fri Dec  4 14:02:52 2026 kworker/R-rcu_gp
 7995  7994 Ss   Fri Dec  4 14:37:34 2026 bash
15462  7995 S    Fri Dec  4 14:41:46 2026 bash
15470 15462 S    Fri Dec  4 14:41:46 2026 my sleep (x)
15671 15462 S    Fri Dec  4 14:41:49 2026 sleep
15673 15671 Z    Fri Dec  4 14:41:49 2026 sleep
18180     2 I    Fri Dec  4 14:20:34 2026 kworker/1:0-mm_percpu_wq
`;

// macOS: NOT captured (no Mac in this project). Written from ps(1) of macOS, which documents the
// same keywords: `stat` letters (I idle > 20 s, R, S, T, U uninterruptible, Z zombie; flags + s < N
// …), `lstart` as ctime-like text (the C locale's "%a %b %e %H:%M:%S %Y"), and `comm` as the full
// path of the executable, which may contain spaces.
const MACOS = `    1     0 Ss   Mon Nov 30 08:12:03 2026 /sbin/launchd
  611     1 S    Mon Nov 30 08:12:40 2026 /usr/sbin/cfprefsd
 4242     1 S    Thu Dec  3 21:07:11 2026 /Applications/iTerm 2.app/Contents/MacOS/iTerm2
 5001  4242 Ss   Fri Dec  4 09:00:01 2026 -zsh
 5010  5001 S+   Fri Dec  4 09:00:05 2026 /opt/homebrew/bin/tmux
 5020     1 Ss   Fri Dec  4 09:00:05 2026 tmux
 5021  5020 Is+  Fri Dec  4 09:00:06 2026 /bin/sh
 5022  5021 S+   Fri Dec  4 09:00:06 2026 /Users/me/.local/bin/claude
 5030  5022 Z    Fri Dec  4 09:01:00 2026 <defunct>
 5031  5022 U+   Fri Dec 14 10:11:12 2026 /usr/bin/git
`;

describe('ps output (portable process layer)', () => {
  it('reads a Linux procps line: state letter without flags, lstart with its spaces collapsed', () => {
    expect(parsePsLine('    1     0 S<Ll Fri Dec  4 14:02:52 2026 process_api')).toEqual({
      pid: 1,
      ppid: 0,
      state: 'S',
      startTime: 'Fri Dec 4 14:02:52 2026',
      comm: 'process_api',
    });
    expect(parsePsLine('15673 15671 Z    Fri Dec  4 14:41:49 2026 sleep')?.state).toBe('Z');
  });

  it('keeps a command name with spaces and parentheses whole (it is the last column)', () => {
    expect(parsePsLine('15470 15462 S    Fri Dec  4 14:41:46 2026 my sleep (x)')?.comm).toBe('my sleep (x)');
    expect(parsePsLine(' 4242     1 S    Thu Dec  3 21:07:11 2026 /Applications/iTerm 2.app/Contents/MacOS/iTerm2')?.comm).toBe(
      '/Applications/iTerm 2.app/Contents/MacOS/iTerm2',
    );
  });

  it('reads the macOS form (full paths, + and s flags, uninterruptible U, idle I)', () => {
    const rows = parsePsTable(MACOS);
    expect(rows).toHaveLength(10);
    expect(rows.find((r) => r.pid === 5022)).toEqual({
      pid: 5022,
      ppid: 5021,
      state: 'S',
      startTime: 'Fri Dec 4 09:00:06 2026',
      comm: '/Users/me/.local/bin/claude',
    });
    expect(rows.find((r) => r.pid === 5021)?.state).toBe('I');
    expect(rows.find((r) => r.pid === 5031)).toMatchObject({ state: 'U', startTime: 'Fri Dec 14 10:11:12 2026' });
  });

  it('skips what is not a process line (headers, blanks, error text, a missing start time)', () => {
    const text = `  PID  PPID STAT STARTED                  COMMAND\n\nps: illegal option -- x\n  12    1 S    sleep\n${LINUX}`;
    expect(parsePsTable(text).map((r) => r.pid)).toEqual([1, 2, 4, 7995, 15462, 15470, 15671, 15673, 18180]);
    expect(parsePsLine('')).toBeNull();
    expect(parsePsLine('  12    1 S    Fri Dec  4 14:02 2026 x')).toBeNull();
  });

  it("makes the start token independent of padding, so it equals Claude Code's own `procStart`", () => {
    // Claude Code (no /proc) records `ps -o lstart= -p <pid>` trimmed: "Fri Dec  4 14:02:52 2026".
    expect(normaliseStart('Fri Dec  4 14:02:52 2026\n')).toBe(parsePsLine(LINUX.split('\n')[0]!)!.startTime);
    expect(normaliseStart('Fri Dec 14 14:02:52 2026')).toBe('Fri Dec 14 14:02:52 2026');
  });

  it('finds children and trees in one snapshot; a zombie and what is below it are not in the tree', () => {
    const linux = parsePsTable(LINUX);
    expect(childrenIn(linux, 15462).sort()).toEqual([15470, 15671]);
    expect(childrenIn(linux, 15671)).toEqual([15673]); // zombies are children, as in /proc
    expect(treeIn(linux, 7995)).toEqual([7995, 15462, 15470, 15671]);
    expect(treeIn(linux, 15673)).toEqual([]); // a zombie is not alive
    expect(treeIn(linux, 99999)).toEqual([]);
    const mac = parsePsTable(MACOS);
    expect(treeIn(mac, 5020)).toEqual([5020, 5021, 5022, 5031]);
    // pid 0 lists itself as its own parent on some systems: no loop.
    expect(treeIn(parsePsTable('    0     0 Ss   Mon Nov 30 08:12:03 2026 kernel_task\n'), 0)).toEqual([0]);
  });
});
