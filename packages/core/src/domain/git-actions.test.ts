import { describe, expect, it } from 'vitest';
import {
  branchFromTitle,
  branchNameRefusal,
  COMMIT_DRAFT_PROMPT,
  commitDraftFromAnswer,
  GIT_ACTIONS,
  type GitActionCheck,
  type GitRefusal,
  gitActionRefusal,
} from './git-actions.ts';
import { SESSION_STATES } from './session-types.ts';

describe('branchFromTitle', () => {
  it.each([
    ['Fix the login page', 'bria/fix-the-login-page'],
    ['  Add CSV export!!  ', 'bria/add-csv-export'],
    ['Déjà vu: café crème', 'bria/deja-vu-cafe-creme'],
    ['Исправить вход в систему', 'bria/ispravit-vhod-v-sistemu'],
    ['Щука и ёж', 'bria/schuka-i-ezh'],
    ['feat/новый API v2', 'bria/feat-novyi-api-v2'],
    ['', 'bria/session-ab12cd'],
    ['!!! ???', 'bria/session-ab12cd'],
    ['日本語のタイトル', 'bria/session-ab12cd'],
    ['Refactor the whole session engine so that timers are events from a scheduler', 'bria/refactor-the-whole-session-engine-so'],
    ['a'.repeat(60), `bria/${'a'.repeat(40)}`],
  ])('%j → %s', (title, branch) => {
    expect(branchFromTitle(title, 'ab12cd')).toBe(branch);
    expect(branchNameRefusal(branch)).toBeNull();
  });
});

describe('branchNameRefusal', () => {
  it.each([
    ['bria/fix-login', null],
    ['feature/x.y', null],
    ['', 'empty'],
    ['has space', 'spaces'],
    ['a..b', '..'],
    ['-x', 'start with -'],
    ['x/', 'end with /'],
    ['x.lock', '.lock'],
    ['a/.hidden', 'start with .'],
    ['a@{1}', '@{'],
    ['a:b', '~ ^ :'],
    ['x'.repeat(101), 'longer than'],
  ])('%j', (name, words) => {
    const r = branchNameRefusal(name);
    if (words === null) expect(r).toBeNull();
    else expect(r).toContain(words);
  });
});

describe('gitActionRefusal: every action × state × turn', () => {
  const base = { turnInFlight: false, openPrompts: 0, worktree: 'present' as const };
  const expected = (c: GitActionCheck): GitRefusal | null => {
    if (c.action === 'changes') return null;
    if (['Running', 'Stopping', 'ClosingAfterWork'].includes(c.state) || c.turnInFlight || c.openPrompts > 0) return 'turn_in_flight';
    if (!['Ready', 'Archived', 'ResumeFailed'].includes(c.state)) return 'session_busy';
    return null;
  };
  const cases = GIT_ACTIONS.flatMap((action) =>
    SESSION_STATES.flatMap((state) =>
      [
        { turnInFlight: false, openPrompts: 0 },
        { turnInFlight: true, openPrompts: 0 },
        { turnInFlight: false, openPrompts: 1 },
      ].map((t) => ({ ...base, action, state, ...t })),
    ),
  );
  it.each(cases)('$action in $state, turn in flight $turnInFlight, prompts $openPrompts', (c) => {
    expect(gitActionRefusal(c)).toBe(expected(c));
  });
});

describe('gitActionRefusal: finish and the worktree', () => {
  const ready = { action: 'finish' as const, state: 'Archived', turnInFlight: false, openPrompts: 0 };
  it.each<[Partial<GitActionCheck>, GitRefusal | null]>([
    [{ worktree: 'none' }, 'no_worktree'],
    [{ worktree: 'removed' }, 'worktree_removed'],
    [{ worktree: 'none', state: 'Running' }, 'no_worktree'],
    [{ worktree: 'present', dirty: true, remove: true }, 'uncommitted_work'],
    [{ worktree: 'present', dirty: true, remove: true, force: true }, null],
    [{ worktree: 'present', dirty: true, remove: false }, null],
    [{ worktree: 'present', dirty: false, remove: true }, null],
    [{ worktree: 'present', dirty: true, remove: true, state: 'Running' }, 'turn_in_flight'],
    [{ worktree: 'present', state: 'ResumeFailed', dirty: true, remove: true }, 'uncommitted_work'],
    [{ worktree: 'present', state: 'Ready', remove: true }, 'session_open'],
    [{ worktree: 'present', state: 'Ready', remove: true, dirty: true, force: true }, 'session_open'],
    [{ worktree: 'present', state: 'Ready', remove: false, dirty: true }, null],
  ])('%j → %s', (o, refusal) => {
    expect(gitActionRefusal({ ...ready, worktree: 'present', ...o })).toBe(refusal);
  });
  it('commit and push need no worktree (the folder’s own repository)', () => {
    for (const action of ['commit', 'push', 'changes'] as const)
      expect(gitActionRefusal({ action, state: 'Ready', turnInFlight: false, openPrompts: 0, worktree: 'none' })).toBeNull();
  });
});

describe('commitDraftFromAnswer', () => {
  it.each<[string, string | null]>([
    ['Fix the login page', 'Fix the login page'],
    ['  Fix the login page  \n\n', 'Fix the login page'],
    ['"Fix the login page"', 'Fix the login page'],
    ['`Fix it`', 'Fix it'],
    ['```\nFix the login page\n\nThe button was never enabled.\n```', 'Fix the login page\n\nThe button was never enabled.'],
    ['```text\nAdd a test   \n```', 'Add a test'],
    ['Line one\r\n\r\nBody "quoted"', 'Line one\n\nBody "quoted"'],
    ['"Two\nlines"', '"Two\nlines"'],
    ['', null],
    ['```\n\n```', null],
    ['""', null],
  ])('%j → %j', (answer, want) => {
    expect(commitDraftFromAnswer(answer)).toBe(want);
  });
  it('the prompt asks for the message only and forbids committing', () => {
    expect(COMMIT_DRAFT_PROMPT).toContain('commit message only');
    expect(COMMIT_DRAFT_PROMPT).toContain('do not run git commit');
  });
});
