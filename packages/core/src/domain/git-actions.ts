/**
 * Git actions on a session's folder (docs/worktrees.md): the branch name a title suggests, and the
 * one rule deciding whether an action may run now (the hub applies it; the node agent checks
 * uncommitted work again itself right before removing a worktree, since it may have changed).
 */

export const GIT_ACTIONS = ['changes', 'commit', 'push', 'finish'] as const;
export type GitAction = (typeof GIT_ACTIONS)[number];

/**
 * Why an action is refused. `turn_in_flight`: the CLI is working on a turn (or waits on a dialog), so
 * its files are moving and a commit would catch half an edit; `session_busy`: the CLI is being
 * started, resumed, recovered or closed; `no_worktree` / `worktree_removed`: finish needs the
 * session's own worktree; `session_open`: the worktree is to be removed while the session's CLI
 * still runs in it (close the session first); `uncommitted_work`: removing the worktree would lose
 * work, asked again with `force`.
 */
export const GIT_REFUSALS = ['turn_in_flight', 'session_busy', 'no_worktree', 'worktree_removed', 'session_open', 'uncommitted_work'] as const;
export type GitRefusal = (typeof GIT_REFUSALS)[number];

export interface GitActionCheck {
  action: GitAction;
  /** The session's state (domain/session-types.ts). */
  state: string;
  /** A message of the session is with the CLI and has no outcome yet. */
  turnInFlight: boolean;
  /** Permission requests or questions whose dialog may be open. */
  openPrompts: number;
  /** The session's own worktree: none made, there, or removed by an earlier finish. */
  worktree: 'none' | 'present' | 'removed';
  /** Finish only: the worktree has uncommitted changes or untracked files (known on the computer). */
  dirty?: boolean;
  /** Finish only: the worktree is to be removed. */
  remove?: boolean;
  /** Finish only: the user confirmed a second time that uncommitted work may go. */
  force?: boolean;
}

/** States in which no CLI turn can be running: idle at its prompt, or no CLI at all. */
const QUIET_STATES: readonly string[] = ['Ready', 'Archived', 'ResumeFailed'];
/** States without a CLI: the session's folder may go. */
const CLOSED_STATES: readonly string[] = ['Archived', 'ResumeFailed'];
/** States of a turn (or its end) being worked on. */
const TURN_STATES: readonly string[] = ['Running', 'Stopping', 'ClosingAfterWork'];

/**
 * Null when the action may run now, else why not. Reading changes is always allowed (it changes
 * nothing; what it shows while a turn runs is a snapshot). Decision: write actions are refused, not
 * queued, while a turn is in flight: the user sees why and presses again once the session is Ready.
 */
export function gitActionRefusal(c: GitActionCheck): GitRefusal | null {
  if (c.action === 'changes') return null;
  if (c.action === 'finish' && c.worktree === 'none') return 'no_worktree';
  if (c.action === 'finish' && c.worktree === 'removed') return 'worktree_removed';
  if (TURN_STATES.includes(c.state) || c.turnInFlight || c.openPrompts > 0) return 'turn_in_flight';
  if (!QUIET_STATES.includes(c.state)) return 'session_busy';
  if (c.action === 'finish' && c.remove === true && !CLOSED_STATES.includes(c.state)) return 'session_open';
  if (c.action === 'finish' && c.remove === true && c.dirty === true && c.force !== true) return 'uncommitted_work';
  return null;
}

const CYRILLIC: Record<string, string> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  й: 'i',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'h',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'sch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
  і: 'i',
  ї: 'i',
  є: 'e',
  ґ: 'g',
};

export const BRANCH_PREFIX = 'bria/';
export const MAX_BRANCH_LENGTH = 100;
const MAX_SLUG = 40;

/**
 * The branch a session's title suggests: `bria/<slug>`, lower case ASCII letters, digits and single
 * dashes, at most 40 characters cut at a dash. Russian and Ukrainian letters are transliterated,
 * other accents dropped; a title with nothing left gives `bria/session-<fallback>` (the caller
 * passes something unique, e.g. the first characters of an id).
 */
export function branchFromTitle(title: string, fallback: string): string {
  const latin = [...title.normalize('NFKD').toLowerCase()].map((ch) => CYRILLIC[ch] ?? ch).join('');
  let slug = latin
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug.length > MAX_SLUG) {
    const cut = slug.slice(0, MAX_SLUG + 1);
    const dash = cut.lastIndexOf('-');
    slug = (dash > 10 ? cut.slice(0, dash) : cut.slice(0, MAX_SLUG)).replace(/-+$/, '');
  }
  return `${BRANCH_PREFIX}${slug || `session-${fallback}`}`;
}

/**
 * Why a branch name cannot be used, or null: the parts of `git check-ref-format --branch` a user can
 * break by typing (the agent still asks git, whose words then win).
 */
export function branchNameRefusal(name: string): string | null {
  if (name.length === 0) return 'the branch name is empty';
  if (name.length > MAX_BRANCH_LENGTH) return `the branch name is longer than ${MAX_BRANCH_LENGTH} characters`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return 'the branch name may not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.'))
    return 'the branch name may not start with - or /, nor end with / or .';
  if (name.includes('..') || name.includes('//') || name.includes('@{') || name === '@') return 'the branch name may not contain .., //, @{ or be @';
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) return 'no part of the branch name may start with . or end with .lock';
  return null;
}

/**
 * What "Draft message" asks the session's CLI, in a turn of its own (docs/worktrees.md). It is a
 * real turn: the conversation shows it like any other.
 */
export const COMMIT_DRAFT_PROMPT =
  'Write a git commit message for the uncommitted changes in this folder: one summary line (at most 72 characters), then optionally a blank line and a short body. Do not change any file and do not run git commit. Reply with the commit message only, without quotes or code fences.';

/**
 * The commit message in a CLI's final answer to COMMIT_DRAFT_PROMPT: a code fence around the whole
 * answer, or quotes around a one-line answer, are taken off; trailing spaces and blank lines at the
 * ends go. Null when nothing is left. The user edits it before committing, so nothing else is guessed.
 */
export function commitDraftFromAnswer(answer: string): string | null {
  let text = answer.replace(/\r\n/g, '\n').trim();
  const fence = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(text);
  if (fence) text = (fence[1] ?? '').trim();
  if (!text.includes('\n') && text.length >= 2 && /^(["'`“«]).*(["'`”»])$/.test(text)) text = text.slice(1, -1).trim();
  text = text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
  return text === '' ? null : text;
}
