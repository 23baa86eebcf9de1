import { InlineKeyboard } from 'grammy';
import { promptAlwaysAllow } from '@bria/core/domain';
import type { Translator } from '@bria/core/i18n';
import type { PromptView } from '@bria/core/services';
import { escapeHtml } from '../render/index.ts';
import { sessionName } from '../render/session-name.ts';
import { MAX_OPTIONS, MAX_QUESTIONS, promptCb } from './prompt-callback.ts';

/** One question of a request (Claude's AskUserQuestion `questions[]`; Codex's request_user_input alike). */
export interface Question {
  text: string;
  header: string | null;
  multi: boolean;
  options: { label: string; description: string | null }[];
}

/**
 * Where the user is in answering a question request: the question shown, the options picked so far
 * (a bitmask per question) and answers typed for some questions. `typing`: the next text message is
 * the deny reason or the answer to question `q`.
 */
export interface PromptDraft {
  q: number;
  picks: number[];
  texts: Record<string, string>;
  typing: 'reason' | 'answer' | null;
}

export interface PromptSession {
  title: string | null;
  firstPrompt?: string | null;
  folder: string;
  executor: string;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

export function questionsOf(view: Pick<PromptView, 'toolInput'>): Question[] {
  const raw = view.toolInput.questions;
  if (!Array.isArray(raw)) return [];
  return raw.slice(0, MAX_QUESTIONS).map((q: Record<string, unknown> | null, k) => {
    const options = Array.isArray(q?.options) ? (q.options as unknown[]) : [];
    return {
      text: str(q?.question) ?? str(q?.header) ?? `#${k + 1}`,
      header: str(q?.header),
      multi: q?.multiSelect === true,
      options: options.slice(0, MAX_OPTIONS).map((o) => ({
        label: str((o as Record<string, unknown> | null)?.label) ?? String(o),
        description: str((o as Record<string, unknown> | null)?.description),
      })),
    };
  });
}

export const emptyDraft = (view: Pick<PromptView, 'toolInput'>): PromptDraft => ({ q: 0, picks: questionsOf(view).map(() => 0), texts: {}, typing: null });

/** The labels picked for question `k` (by bitmask), or the text typed for it. */
export function answerOf(question: Question, picks: number, text: string | undefined): string | null {
  if (text !== undefined) return text;
  const labels = question.options.filter((_, i) => picks & (1 << i)).map((o) => o.label);
  // Claude's own dialog answers a multi-select with the labels joined by ", ": the hook answers the same way.
  return labels.length ? labels.join(', ') : null;
}

const lines = (s: string, maxLines: number, maxChars: number): { text: string; more: number } => {
  const all = s.split('\n');
  const kept = all.slice(0, maxLines).map((l) => clip(l, 200));
  let text = kept.join('\n');
  if (text.length > maxChars) text = `${text.slice(0, maxChars - 1)}…`;
  return { text, more: all.length - kept.length };
};

const pre = (s: string) => `<pre>${escapeHtml(s)}</pre>`;

/** What a tool will do: the command, the file and its first lines, the edit as a short diff, or the input. */
/** A start's folder-trust dialog: the folder and what the CLI shows. */
function dialogBody(view: PromptView, t: Translator): string[] {
  const folder = str(view.toolInput.folder) ?? '?';
  const text = str(view.toolInput.text) ?? '';
  return [escapeHtml(t('prompt.dialogTrust', { folder: clip(folder, 300) })), ...(text ? [pre(lines(text, 20, 1500).text)] : [])];
}

function toolBody(view: PromptView, t: Translator): string[] {
  const input = view.toolInput;
  const out = [escapeHtml(t('prompt.tool', { tool: clip(view.toolName, 80) }))];
  const command = str(input.command) ?? str(input.cmd) ?? (Array.isArray(input.cmd) ? input.cmd.map(String).join(' ') : null);
  const file = str(input.file_path) ?? str(input.path);
  if (command !== null) {
    out.push(pre(lines(command, 30, 1500).text));
    const d = str(input.description);
    if (d) out.push(`<i>${escapeHtml(clip(d, 300))}</i>`);
  } else if (file !== null && str(input.content) !== null) {
    const body = lines(str(input.content) as string, 12, 1200);
    out.push(escapeHtml(t('prompt.file', { path: clip(file, 300) })), pre(body.text));
    if (body.more > 0) out.push(escapeHtml(t('prompt.moreLines', { count: body.more })));
  } else if (file !== null && (str(input.old_string) !== null || Array.isArray(input.edits))) {
    const edits = Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [input];
    // Old and new lines are clipped apart, so a long removal never hides what replaces it.
    const side = (s: unknown, mark: string) => {
      const all = (str(s) ?? '').split('\n');
      const kept = all.slice(0, 10).map((l) => `${mark} ${clip(l, 200)}`);
      return all.length > kept.length ? [...kept, `${mark} ${t('prompt.moreLines', { count: all.length - kept.length })}`] : kept;
    };
    const diff = edits
      .slice(0, 3)
      .flatMap((e) => [...side(e?.old_string, '-'), ...side(e?.new_string, '+')])
      .join('\n');
    out.push(escapeHtml(t('prompt.file', { path: clip(file, 300) })), pre(clip(diff, 1800)));
  } else {
    out.push(pre(clip(JSON.stringify(input, null, 1).replace(/\n\s*/g, ' '), 1000)));
  }
  if (view.justification) out.push(escapeHtml(t('prompt.justification', { text: clip(view.justification, 500) })));
  return out;
}

function questionBody(qs: Question[], draft: PromptDraft, withDescriptions: boolean): string[] {
  return qs.flatMap((q, k) => {
    const head = `${qs.length > 1 ? `${k + 1}. ` : ''}${q.header ? `<b>${escapeHtml(clip(q.header, 60))}</b> · ` : ''}${escapeHtml(clip(q.text, 300))}`;
    const opts = withDescriptions
      ? q.options.filter((o) => o.description).map((o) => `  • ${escapeHtml(clip(o.label, 60))}: ${escapeHtml(clip(o.description as string, 120))}`)
      : [];
    const a = answerOf(q, draft.picks[k] ?? 0, draft.texts[k]);
    const chosen = a !== null && (k < draft.q || draft.texts[k] !== undefined) ? [`  → ${escapeHtml(clip(a, 300))}`] : [];
    return [head, ...opts, ...chosen];
  });
}

/** Who answered and what, for the status line and the "already answered" reply. */
export function answerSummary(view: PromptView, t: Translator): { status: string; short: string } {
  const from = t(
    view.answeredFrom === 'dashboard'
      ? 'prompt.fromDashboard'
      : view.answeredFrom === 'notification'
        ? 'prompt.fromNotification'
        : view.answeredFrom === 'computer'
          ? 'prompt.fromComputer'
          : 'prompt.fromTelegram',
  );
  const a = view.answer;
  if (!a) return { status: t('prompt.answeredAtComputer'), short: t('prompt.answeredAtComputer') };
  if (view.kind === 'dialog') {
    const answer = t(a.decision === 'deny' ? 'prompt.dialogCancelled' : 'prompt.dialogTrusted');
    return { status: t('prompt.answered', { answer, from }), short: t('prompt.answerFrom', { answer, from }) };
  }
  if (a.decision === 'at_computer') return { status: t('prompt.leftToComputer', { from }), short: t('prompt.leftToComputer', { from }) };
  if (a.decision === 'deny') {
    const reason = a.message ? clip(a.message, 500) : null;
    return {
      status: reason ? t('prompt.deniedReason', { from, reason }) : t('prompt.denied', { from }),
      short: `${t('prompt.answerFrom', { answer: t('prompt.deny'), from })}${reason ? `: ${clip(reason, 100)}` : ''}`,
    };
  }
  if (view.kind === 'question' && a.answers) {
    const entries = Object.entries(a.answers).map(([q, v]) => ({ q, v: Array.isArray(v) ? v.join(', ') : v }));
    const answer = entries.length === 1 ? clip(entries[0]?.v ?? '', 300) : entries.map((e) => `${clip(e.q, 80)} → ${clip(e.v, 120)}`).join('; ');
    return { status: t('prompt.answeredQuestion', { from, answer }), short: t('prompt.answerFrom', { answer: clip(answer, 120), from }) };
  }
  const always = a.decision === 'always_allow' ? promptAlwaysAllow(view) : null;
  const answer = always ? t('prompt.alwaysCommand', { command: always.label.command }) : t(a.decision === 'always_allow' ? 'prompt.always' : 'prompt.allow');
  return { status: t('prompt.answered', { answer, from }), short: t('prompt.answerFrom', { answer, from }) };
}

/** The status line of a request that is no longer waiting for the user. */
function closedStatus(view: PromptView, t: Translator): string {
  switch (view.state) {
    case 'answered':
    case 'delivered':
      return answerSummary(view, t).status;
    case 'answered_at_computer':
      return t('prompt.answeredAtComputer');
    case 'waiting_at_computer':
      return t('prompt.waitingAtComputer');
    case 'ended':
      return view.answer ? answerSummary(view, t).status : t('prompt.ended');
    case 'pending':
      return t('prompt.waiting');
    default:
      return view.state satisfies never;
  }
}

function keyboard(view: PromptView, qs: Question[], draft: PromptDraft, t: Translator, executor: string | undefined): InlineKeyboard {
  const kb = new InlineKeyboard();
  const promptId = view.id;
  if (draft.typing !== null) return kb.text(t('button.cancel'), promptCb.encode({ op: 'cancel', promptId }));
  if (view.kind === 'dialog') {
    return kb
      .text(t('prompt.dialogTrust.button'), promptCb.encode({ op: 'allow', promptId }))
      .row()
      .text(t('prompt.dialogCancel.button'), promptCb.encode({ op: 'deny', promptId }));
  }
  if (view.kind === 'tool' || qs.length === 0) {
    if (view.kind === 'tool') {
      kb.text(t('prompt.allow'), promptCb.encode({ op: 'allow', promptId }))
        .text(t('prompt.deny'), promptCb.encode({ op: 'deny', promptId }))
        .row();
      kb.text(t('prompt.denyReason'), promptCb.encode({ op: 'reason', promptId }));
      // The button names the rule it adds (core's `promptAlwaysAllow`); none where no rule is safe.
      const always = promptAlwaysAllow(view);
      if (always) kb.row().text(t('prompt.alwaysCommand', { command: always.label.command }), promptCb.encode({ op: 'always', promptId }));
      // Codex shows its own dialog only once the hook has let go: the user at the computer asks for it.
      if (executor === 'codex') kb.row().text(t('prompt.atComputer'), promptCb.encode({ op: 'computer', promptId }));
      return kb;
    }
    // A question without readable questions can still be declined.
    return kb.text(t('prompt.deny'), promptCb.encode({ op: 'deny', promptId })).text(t('prompt.denyReason'), promptCb.encode({ op: 'reason', promptId }));
  }
  const q = qs[draft.q] as Question;
  const mask = draft.picks[draft.q] ?? 0;
  q.options.forEach((o, i) => {
    const tick = q.multi ? (mask & (1 << i) ? '☑ ' : '☐ ') : '';
    kb.text(`${tick}${clip(o.label, 40)}`, promptCb.encode({ op: 'option', promptId, q: draft.q, i, picks: draft.picks })).row();
  });
  if (q.multi) kb.text(t(draft.q < qs.length - 1 ? 'prompt.next' : 'prompt.send'), promptCb.encode({ op: 'send', promptId, q: draft.q, picks: draft.picks }));
  return kb.text(t('prompt.answerText'), promptCb.encode({ op: 'text', promptId, q: draft.q, picks: draft.picks }));
}

/**
 * The message of a permission request or question: which session, what the tool will do (or the
 * questions), and either the choices (while it waits for the user) or how it ended, without buttons.
 */
export function drawPrompt(o: { view: PromptView; session: PromptSession | null; t: Translator; draft?: PromptDraft }): {
  html: string;
  keyboard: InlineKeyboard | undefined;
} {
  const { view, t } = o;
  const qs = view.kind === 'question' ? questionsOf(view) : [];
  const draft = o.draft ?? emptyDraft(view);
  const name = o.session ? sessionName(o.session, t('archive.untitled')) : '?';
  const head = [
    `<b>${escapeHtml(t(view.kind === 'question' ? 'prompt.questionTitle' : view.kind === 'dialog' ? 'prompt.dialogTitle' : 'prompt.toolTitle', { name }))}</b>`,
    ...(o.session
      ? [
          escapeHtml(
            t('prompt.where', { folder: clip(o.session.folder, 200), executor: o.session.executor === 'codex' ? t('executor.codex') : t('executor.claude') }),
          ),
        ]
      : []),
  ];
  const pending = view.state === 'pending';
  let status = pending ? t('prompt.waiting') : closedStatus(view, t);
  if (pending && draft.typing === 'reason') status = t('prompt.typeReason');
  if (pending && draft.typing === 'answer') status = t('prompt.typeAnswer', { question: clip(qs[draft.q]?.text ?? '', 200) });
  if (pending && qs.length > 1 && draft.typing === null) status = `${status} ${t('prompt.progress', { n: draft.q + 1, total: qs.length })}`;
  const multi = pending && qs[draft.q]?.multi && draft.typing === null ? [escapeHtml(t('prompt.multi'))] : [];
  const build = (withDescriptions: boolean) =>
    [
      ...head,
      '',
      ...(view.kind === 'question' ? questionBody(qs, draft, withDescriptions) : view.kind === 'dialog' ? dialogBody(view, t) : toolBody(view, t)),
      ...multi,
      '',
      `<b>${escapeHtml(status)}</b>`,
    ].join('\n');
  let html = build(true);
  // Far below Telegram's 4096 characters even for many long questions: descriptions go first.
  if (html.length > 3800) html = build(false);
  return { html, keyboard: pending ? keyboard(view, qs, draft, t, o.session?.executor) : undefined };
}
