import { describe, expect, it } from 'vitest';
import { argvSessionId, cliOf, journalSessionId, parsePsArgs } from './native-holders.ts';

const ID = '01a23651-d848-7b63-9a2f-558796e706b5';

describe('which CLI a command line runs', () => {
  it.each([
    [['/usr/bin/claude'], 'claude'],
    [['/home/u/.local/share/claude/versions/claude.exe', '--resume', ID], 'claude'],
    [['node', '/usr/lib/node_modules/.bin/codex', 'resume', ID], 'codex'],
    [['/x/vendor/x86_64-unknown-linux-musl/bin/codex', '--no-daemon'], 'codex'],
    [['bash', '-c', 'claude'], null],
    [['vim', 'claude.md'], null],
    [['node', 'server.js'], null],
  ] as [string[], string | null][])('%j → %s', (argv, expected) => {
    expect(cliOf(argv)).toBe(expected);
  });
});

describe('the session id a command line names', () => {
  it.each([
    [['claude', '--resume', ID], ID],
    [['claude', `--resume=${ID}`, '--permission-mode', 'default'], ID],
    [['claude', '-r', ID.toUpperCase()], ID],
    [['claude', '--session-id', ID], ID],
    [['codex', 'resume', '--no-daemon', '-C', '/w', '--', ID], ID],
    [['codex', 'resume', ID, '--no-daemon'], ID],
    // A UUID that is not the session's: a settings file named by another id, a prompt argument.
    [['claude', '--settings', `/x/${ID}.json`], null],
    [['claude', '-p', ID], null],
    [['codex', 'exec', ID], null],
    [['claude'], null],
  ] as [string[], string | null][])('%j → %s', (argv, expected) => {
    expect(argvSessionId(argv)).toBe(expected);
  });
});

describe('the session id of an open journal', () => {
  it.each([
    [`/h/.codex/sessions/2026/12/06/rollout-2026-12-06T05-30-43-${ID}.jsonl`, { executor: 'codex', nativeId: ID }],
    [`/h/.claude/projects/-tmp-work/${ID}.jsonl`, { executor: 'claude', nativeId: ID }],
    [`/h/.claude/projects/-tmp-work/${ID}/subagents/agent-1.jsonl`, null],
    ['/h/.claude/history.jsonl', null],
  ] as const)('%s', (path, expected) => {
    expect(journalSessionId(path)).toEqual(expected);
  });
});

describe('ps output with arguments', () => {
  it('keeps only the CLIs, with their start and parent', () => {
    const text = [
      '    1     0 Sun Dec  6 05:00:00 2026 /sbin/init',
      ` 4242  4000 Sun Dec  6 05:30:43 2026 node /n/.bin/codex resume ${ID} --no-daemon`,
      ' 4256  4242 Sun Dec  6 05:30:44 2026 /n/vendor/bin/codex --no-daemon',
      ' 4300  4001 Mon Dec 14 10:02:03 2026 /usr/bin/claude --resume x',
      'garbage line',
    ].join('\n');
    expect(parsePsArgs(text)).toEqual([
      { pid: 4242, ppid: 4000, startTime: 'Sun Dec 6 05:30:43 2026', argv: ['node', '/n/.bin/codex', 'resume', ID, '--no-daemon'] },
      { pid: 4256, ppid: 4242, startTime: 'Sun Dec 6 05:30:44 2026', argv: ['/n/vendor/bin/codex', '--no-daemon'] },
      { pid: 4300, ppid: 4001, startTime: 'Mon Dec 14 10:02:03 2026', argv: ['/usr/bin/claude', '--resume', 'x'] },
    ]);
  });
});
