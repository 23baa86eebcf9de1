import { shortSubject } from '@bria/core/domain';
import { counted } from '@bria/core/i18n';
import type { AnyKey, Translate } from '../i18n/catalog.ts';
import type { ConversationItem, SessionDetail, SessionItem } from './types.ts';
import { commandOf } from './prompt-text.ts';

/**
 * Pure rules behind the turn stream (issue 15): which turn an activity row belongs to, how a diff
 * line is coloured, and the one-line "what is it doing now" of a working session.
 */

export type ActivityRow = SessionDetail['activity'][number];
export type CurrentActivityView = NonNullable<SessionItem['activity']>;
export type SessionContext = NonNullable<SessionItem['context']>;

/** A turn on screen that activity rows can belong to. */
export interface TurnAnchor {
  key: string;
  /** Bria's main request of the turn (rows carry the main request's id, also for follow-ups). */
  messageIds: readonly string[];
  /** The journal's own turn id (Claude prompt uuid, Codex turn id), when the turn came from the journal. */
  nativeTurnId: string | null;
  /** When the turn began (its message's arrival), when known. */
  at: string | null;
}

/** Rows no turn on screen claims: typed at the computer, or a request older than the page shows. */
export interface LooseGroup {
  key: string;
  nativeTurnId: string | null;
  /** The Bria request the rows name, when it is not on screen as a turn (so not "at the computer"). */
  messageId: string | null;
  rows: ActivityRow[];
}

export interface PlacedActivity {
  byTurn: Map<string, ActivityRow[]>;
  /** Loose groups by the anchor they follow in time; `''` = before the first anchor. */
  after: Map<string, LooseGroup[]>;
}

const byTime = (a: ActivityRow, b: ActivityRow) => a.startedAt.localeCompare(b.startedAt) || Number(a.id) - Number(b.id);

/**
 * Puts each row under its turn: the journal's turn id first (it names the exact turn), then the
 * message id. The rest form groups per turn id, placed after the last turn that began before them,
 * so "activity at the computer" stands where it happened.
 */
export function placeActivity(anchors: readonly TurnAnchor[], rows: readonly ActivityRow[]): PlacedActivity {
  const byNative = new Map<string, string>();
  const byMessage = new Map<string, string>();
  for (const a of anchors) {
    if (a.nativeTurnId && !byNative.has(a.nativeTurnId)) byNative.set(a.nativeTurnId, a.key);
    for (const id of a.messageIds) if (!byMessage.has(id)) byMessage.set(id, a.key);
  }
  const byTurn = new Map<string, ActivityRow[]>();
  const loose = new Map<string, LooseGroup>();
  for (const r of [...rows].sort(byTime)) {
    const key = (r.nativeTurnId ? byNative.get(r.nativeTurnId) : undefined) ?? (r.messageId ? byMessage.get(r.messageId) : undefined);
    if (key !== undefined) {
      const list = byTurn.get(key) ?? [];
      list.push(r);
      byTurn.set(key, list);
      continue;
    }
    const groupKey = r.nativeTurnId ? `turn:${r.nativeTurnId}` : r.messageId ? `msg:${r.messageId}` : 'none';
    const group = loose.get(groupKey) ?? { key: groupKey, nativeTurnId: r.nativeTurnId, messageId: null, rows: [] };
    group.messageId ??= r.messageId;
    group.rows.push(r);
    loose.set(groupKey, group);
  }
  const after = new Map<string, LooseGroup[]>();
  for (const g of [...loose.values()].sort((a, b) => byTime(a.rows[0]!, b.rows[0]!))) {
    // An anchor without a time stands where its predecessor did (journal turns typed at the computer).
    let place = '';
    let known = '';
    for (const a of anchors) {
      known = a.at ?? known;
      if (known <= g.rows[0]!.startedAt) place = a.key;
      else break;
    }
    after.set(place, [...(after.get(place) ?? []), g]);
  }
  return { byTurn, after };
}

/** Anchors for Bria's stored turns: a follow-up shares its main request's rows, shown once (first on screen). */
export function storedAnchors(items: readonly Pick<ConversationItem, 'id' | 'mainMessageId' | 'createdAt'>[]): TurnAnchor[] {
  const seen = new Set<string>();
  return items.map((m) => {
    const main = m.mainMessageId ?? m.id;
    const first = !seen.has(main);
    seen.add(main);
    return { key: m.id, messageIds: first ? [main] : [], nativeTurnId: null, at: m.createdAt };
  });
}

export type DiffLineKind = 'add' | 'del' | 'hunk' | 'meta' | 'context';

/**
 * A unified diff's lines with their colour. `---`/`+++` are file headers only before the first
 * hunk: inside one, `--- x` is a removed line starting with `-- x`.
 */
export function diffLines(text: string): { kind: DiffLineKind; text: string }[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let inHunk = false;
  return lines.map((line) => {
    if (line.startsWith('@@')) {
      inHunk = true;
      return { kind: 'hunk', text: line };
    }
    if (!inHunk && /^(---|\+\+\+|diff |index )/.test(line)) return { kind: 'meta', text: line };
    if (line.startsWith('\\')) return { kind: 'meta', text: line };
    if (line.startsWith('+')) return { kind: 'add', text: line };
    if (line.startsWith('-')) return { kind: 'del', text: line };
    return { kind: 'context', text: line };
  });
}

/** How long a step took, or has been running; null when its end is unknown. */
export function stepMs(row: Pick<ActivityRow, 'startedAt' | 'endedAt' | 'status'>, now: number): number | null {
  const start = Date.parse(row.startedAt);
  if (row.endedAt) return Math.max(0, Date.parse(row.endedAt) - start);
  return row.status === 'running' ? Math.max(0, now - start) : null;
}

/** A duration in the dashboard's words: "350 ms", "45 s", "3 min", "1 h 5 min". */
export function duration(t: Translate, ms: number): string {
  if (ms < 1000) return t('activity.ms', { ms: Math.round(ms) });
  const s = Math.floor(ms / 1000);
  if (s < 60) return t('time.s', { s });
  const m = Math.floor(s / 60);
  return m < 60 ? t('time.m', { m }) : t('time.hm', { h: Math.floor(m / 60), m: m % 60 });
}

// A path by its last two parts, a command by its first line: the list has one line for it (the card's rule).
export { shortSubject };

/** One piece of the activity line; `code` pieces are the command or path, shown as code. */
export interface LinePiece {
  text: string;
  code: boolean;
}

const SUBJECT = '\u0000S\u0000';

/**
 * A working session's current activity in one line, in the shared catalog's words (the Telegram
 * card says the same): "Running `npm test` · 3 min · 5 steps".
 */
export function activityLine(t: Translate, a: CurrentActivityView, now: number): LinePiece[] {
  const done = a.status !== 'running';
  const key: AnyKey = (() => {
    switch (a.kind) {
      case 'command':
        return a.status === 'error' ? 'activity.command.failed' : done ? 'activity.command.done' : 'activity.command';
      case 'edit':
        return done ? 'activity.edit.done' : 'activity.edit';
      case 'write':
        return done ? 'activity.write.done' : 'activity.write';
      case 'read':
        return a.reads > 1 ? 'activity.reads' : 'activity.read';
      case 'search':
        return 'activity.search';
      case 'question':
        return 'activity.question';
      case 'text':
        return 'activity.text';
      default:
        return 'activity.tool';
    }
  })();
  // The current activity carries no exit code (only the row does), so "failed" stands alone.
  const head = t(key, { subject: SUBJECT, added: a.added ?? 0, removed: a.removed ?? 0, tool: a.toolName ?? '?', n: a.reads, exit: '' });
  const subject = a.subject ? shortSubject(a.kind, a.subject) : (a.toolName ?? '');
  const [before = '', afterSubject = ''] = head.split(SUBJECT);
  const pieces: LinePiece[] = [{ text: before, code: false }];
  if (head.includes(SUBJECT)) pieces.push({ text: subject, code: a.subject !== null }, { text: afterSubject, code: false });
  const elapsed = duration(t, Math.max(1000, now - Date.parse(a.turnStartedAt)));
  pieces.push({ text: ` · ${t('activity.progress', { elapsed, steps: counted(t, 'activity.steps', a.steps) })}`, code: false });
  return pieces.filter((p) => p.text !== '');
}

/** The line as plain text, code in backticks (titles, tests). */
export const lineText = (pieces: readonly LinePiece[]) => pieces.map((p) => (p.code ? `\`${p.text}\`` : p.text)).join('');

/** Whether the session's state means a turn is being worked on (the list shows its activity then). */
export const isWorking = (state: SessionItem['state']) => state === 'Running' || state === 'Stopping' || state === 'ClosingAfterWork';

/**
 * Context use for the header: "42% of 258,400 tokens", or only the tokens when the window is
 * unknown; a window known only from the model name says so.
 */
export function contextText(t: Translate, c: SessionContext, locale: string): string {
  const n = new Intl.NumberFormat(locale);
  if (c.windowTokens === null || c.percent === null) return t('context.tokensOnly', { used: n.format(c.usedTokens) });
  const pct = new Intl.NumberFormat(locale, { maximumFractionDigits: c.percent < 10 ? 1 : 0 }).format(c.percent);
  const text = t('context.percentOf', { percent: pct, window: n.format(c.windowTokens) });
  return c.windowSource === 'model' ? `${text} ${t('context.fromModel')}` : text;
}

/** The prompt states in which the CLI holds a tool call until someone answers (here, or at the computer). */
const AWAITING: ReadonlySet<string> = new Set(['pending', 'waiting_at_computer']);
const stem = (s: string) => s.replace(/…$/, '');

/**
 * The running tool steps that wait for an answer, not run: a command step of the command a waiting
 * request asks for (its subject is the command's first line, maybe cut), or a step of the tool the
 * request names (Write, Edit). Such a step shows "waits for your answer" without a clock: the
 * journal records the call before the CLI asks, and the time it waits is not the command's.
 */
export function awaitingSteps(
  rows: readonly Pick<ActivityRow, 'id' | 'status' | 'kind' | 'toolName' | 'subject'>[],
  prompts: readonly { kind: string; state: string; toolName: string; toolInput: Record<string, unknown> }[] | undefined,
): ReadonlySet<string> {
  const out = new Set<string>();
  for (const p of prompts ?? []) {
    if (p.kind !== 'tool' || !AWAITING.has(p.state)) continue;
    const command = commandOf(p.toolInput);
    const firstLine = command?.split('\n')[0] ?? null;
    for (const r of rows) {
      if (r.status !== 'running') continue;
      const byCommand = firstLine !== null && r.kind === 'command' && r.subject !== null && stem(r.subject) !== '' && firstLine.startsWith(stem(r.subject));
      const byTool = command === null && r.toolName === p.toolName;
      if (byCommand || byTool) out.add(r.id);
    }
  }
  return out;
}
