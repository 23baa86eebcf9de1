import type { AnyKey, Translate } from '../i18n/catalog.ts';
import type { PromptItem } from './types.ts';

/** What a session waits for because of its prompts: core's rule, the same as `listOpen`'s. */
export { promptWait } from '@bria/core/domain';

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/** The shell command a tool will run: Claude's Bash `command`, Codex's `exec_command` `cmd` (a string or argv). */
export function commandOf(input: Record<string, unknown>): string | null {
  const c = input.command ?? input.cmd;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) return c.join(' ');
  return str(c);
}

export type DiffLine = { sign: '−' | '+'; text: string };
export type ToolDetail =
  | { kind: 'command'; command: string; description: string | null }
  | { kind: 'write'; file: string; head: string[]; more: number }
  | { kind: 'edit'; file: string; diff: DiffLine[]; more: number }
  | { kind: 'other'; file: string | null; json: string };

const HEAD_LINES = 8;
const DIFF_LINES = 12;

/** The lines of an edit as a small −/+ diff, cut to `DIFF_LINES` (how many were left out is `more`). */
function editDiff(edits: { old: string; new: string }[]): { diff: DiffLine[]; more: number } {
  const all: DiffLine[] = edits.flatMap((e) => [
    ...(e.old === '' ? [] : e.old.split('\n').map((text) => ({ sign: '−' as const, text }))),
    ...(e.new === '' ? [] : e.new.split('\n').map((text) => ({ sign: '+' as const, text }))),
  ]);
  return { diff: all.slice(0, DIFF_LINES), more: Math.max(0, all.length - DIFF_LINES) };
}

/** What the tool will do, from the CLI's own input (docs/cli-facts.md has the shapes). */
export function toolDetail(toolName: string, input: Record<string, unknown>): ToolDetail {
  const command = commandOf(input);
  if (command !== null) return { kind: 'command', command, description: str(input.description) };
  const file = str(input.file_path) ?? str(input.path);
  if (file && typeof input.content === 'string') {
    const lines = input.content.split('\n');
    return { kind: 'write', file, head: lines.slice(0, HEAD_LINES), more: Math.max(0, lines.length - HEAD_LINES) };
  }
  if (file && typeof input.old_string === 'string' && typeof input.new_string === 'string') {
    return { kind: 'edit', file, ...editDiff([{ old: input.old_string, new: input.new_string }]) };
  }
  if (file && toolName === 'MultiEdit' && Array.isArray(input.edits)) {
    const edits = input.edits.filter(
      (e): e is { old_string: string; new_string: string } => typeof e?.old_string === 'string' && typeof e?.new_string === 'string',
    );
    return { kind: 'edit', file, ...editDiff(edits.map((e) => ({ old: e.old_string, new: e.new_string }))) };
  }
  const json = JSON.stringify(input, null, 2);
  return { kind: 'other', file, json: json.length > 2000 ? `${json.slice(0, 2000)}…` : json };
}

export interface QuestionOption {
  label: string;
  description: string | null;
}
export interface Question {
  question: string;
  header: string | null;
  multiSelect: boolean;
  options: QuestionOption[];
}

/** Claude's AskUserQuestion input `{ questions: [{ question, header, multiSelect, options: [{ label, description }] }] }`. */
export function questionsOf(input: Record<string, unknown>): Question[] {
  const list = Array.isArray(input.questions) ? input.questions : [];
  return list.flatMap((q: unknown) => {
    const o = (q ?? {}) as Record<string, unknown>;
    const question = str(o.question);
    if (!question) return [];
    const options = (Array.isArray(o.options) ? o.options : []).flatMap((x: unknown) => {
      const opt = (x ?? {}) as Record<string, unknown>;
      const label = str(opt.label);
      return label ? [{ label, description: str(opt.description) }] : [];
    });
    return [{ question, header: str(o.header), multiSelect: o.multiSelect === true, options }];
  });
}

/** The answers of a question form: the user's own text wins over the options ticked for that question. */
export function questionAnswers(
  questions: readonly Question[],
  picked: Record<string, string[]>,
  typed: Record<string, string>,
): Record<string, string | string[]> | null {
  const out: Record<string, string | string[]> = {};
  for (const q of questions) {
    const own = typed[q.question]?.trim();
    const chosen = picked[q.question] ?? [];
    if (own) out[q.question] = own;
    else if (chosen.length > 0) out[q.question] = q.multiSelect ? chosen : (chosen[0] as string);
    else return null;
  }
  return questions.length > 0 ? out : null;
}

const FROM: Record<string, AnyKey> = {
  telegram: 'prompt.from.telegram',
  dashboard: 'prompt.from.dashboard',
  notification: 'prompt.from.notification',
  computer: 'prompt.from.computer',
};

/** "Allow", "Deny: reason", "Always allow for this session", or a question's answers. */
export function decisionText(answer: NonNullable<PromptItem['answer']>, t: Translate): string {
  if (answer.answers)
    return Object.values(answer.answers)
      .map((a) => (Array.isArray(a) ? a.join(', ') : a))
      .join('; ');
  const word = t(`prompt.decision.${answer.decision}` as AnyKey);
  return answer.decision === 'deny' && answer.message ? `${word}: ${answer.message}` : word;
}

/**
 * Codex's shell tool by the name Codex gives it. Its hook reports `tool_name: "Bash"` for
 * `exec_command` (docs/cli-facts.md); its journal names the call `exec_command`, `shell` or
 * `local_shell`. Null for every other tool and for Claude (whose Bash is named as it is).
 */
export function codexShellName(executor: 'claude' | 'codex' | undefined, toolName: string): string | null {
  if (executor !== 'codex') return null;
  return toolName === 'Bash' ? 'exec_command' : toolName === 'exec_command' || toolName === 'shell' || toolName === 'local_shell' ? toolName : null;
}

/** Where the prompt stands, in words: who answered what, or why nobody will. */
export function promptStatusText(
  p: Pick<PromptItem, 'state' | 'answer' | 'answeredFrom'> & Partial<Pick<PromptItem, 'kind' | 'endCause'>>,
  t: Translate,
): string {
  const from = p.answeredFrom ? t(FROM[p.answeredFrom] ?? 'prompt.from.dashboard') : '';
  // A start dialog ends when the CLI is ready: with a trust given here, that is the trust having worked.
  if (p.kind === 'dialog' && p.state === 'ended' && p.endCause === 'cli_ready')
    return p.answer?.decision === 'allow' ? t('prompt.trusted', { from }) : t('prompt.startedWithout');
  switch (p.state) {
    case 'pending':
      return t('prompt.waiting');
    case 'answered':
      return p.answer ? `${t('prompt.answered', { answer: decisionText(p.answer, t), from })} ${t('prompt.onItsWay')}` : t('prompt.waiting');
    case 'delivered':
      return p.answer ? t('prompt.answered', { answer: decisionText(p.answer, t), from }) : t('prompt.ended');
    case 'waiting_at_computer':
      return t('prompt.waitsAtComputer');
    case 'answered_at_computer':
      return t('prompt.answeredAtComputer');
    case 'ended':
      return p.answer ? `${t('prompt.answered', { answer: decisionText(p.answer, t), from })} ${t('prompt.endedAfter')}` : t('prompt.ended');
    default:
      return p.state satisfies never;
  }
}

/** A one-line reading of the timeline's prompt events (their evidence as the engine and service record it). */
export function promptEvidenceText(event: string, evidence: unknown, t: Translate): string | null {
  const e = (evidence ?? {}) as Record<string, unknown>;
  switch (event) {
    case 'permission_request':
      return t(e.kind === 'question' ? 'prompt.ev.question' : 'prompt.ev.request', { tool: String(e.toolName ?? '?') });
    case 'permission_answered': {
      const decision = e.decision === 'allow' || e.decision === 'deny' || e.decision === 'always_allow' ? e.decision : 'allow';
      const answer = e.answers ? t('prompt.ev.answers') : decisionText({ decision, ...(typeof e.message === 'string' ? { message: e.message } : {}) }, t);
      return t('prompt.answered', { answer, from: t(FROM[String(e.from)] ?? 'prompt.from.dashboard') });
    }
    case 'permission_resolved': {
      const to = e.state;
      if (to === 'delivered') return t('prompt.ev.delivered');
      if (to === 'waiting_at_computer') return t('prompt.waitsAtComputer');
      if (to === 'answered_at_computer') return t('prompt.answeredAtComputer');
      return t('prompt.ev.resolved', { outcome: String(e.outcome ?? '?') });
    }
    case 'permission_ended':
      return t('prompt.ended');
    default:
      return null;
  }
}

/** A deadline as a time of day, with the date when it is not today's (a time alone would read as today's). */
export function deadlineText(iso: string, locale: string, now: number): string {
  const at = new Date(iso);
  const sameDay = at.toDateString() === new Date(now).toDateString();
  return sameDay ? at.toLocaleTimeString(locale) : at.toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'medium' });
}
