import { counted, type MessageKey, type Translator } from '@bria/core/i18n';
import { type CurrentActivity, shortSubject, type TurnSummary } from '@bria/core/domain';
import { escapeHtml } from '../render/index.ts';

const SUBJECT = '\u0000S\u0000';

/** Elapsed time in the card's words: "45 s", "3 min", "1 h 5 min". */
export function elapsed(t: Translator, ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return t('time.s', { s });
  const m = Math.floor(s / 60);
  return m < 60 ? t('time.m', { m }) : t('time.hm', { h: Math.floor(m / 60), m: m % 60 });
}

/**
 * The card's activity line (HTML): "Running <code>npm test</code> · 3 min · 5 steps". The subject
 * is code; everything else is the catalog's plain text, escaped.
 */
export function activityLine(t: Translator, a: CurrentActivity, now: Date): string {
  const done = a.status !== 'running';
  let key: MessageKey;
  const params: Record<string, string | number> = {
    subject: SUBJECT,
    added: a.added ?? 0,
    removed: a.removed ?? 0,
    tool: a.toolName ?? '?',
    n: a.reads,
    exit: '',
  };
  switch (a.kind) {
    case 'command':
      key = a.status === 'error' ? 'activity.command.failed' : done ? 'activity.command.done' : 'activity.command';
      break;
    case 'edit':
      key = done ? 'activity.edit.done' : 'activity.edit';
      break;
    case 'write':
      key = done ? 'activity.write.done' : 'activity.write';
      break;
    case 'read':
      key = a.reads > 1 ? 'activity.reads' : 'activity.read';
      break;
    case 'search':
      key = 'activity.search';
      break;
    case 'question':
      key = 'activity.question';
      break;
    case 'text':
      key = 'activity.text';
      break;
    default:
      key = 'activity.tool';
  }
  const subject = a.subject ? `<code>${escapeHtml(shortSubject(a.kind, a.subject))}</code>` : escapeHtml(a.toolName ?? '');
  const head = escapeHtml(t(key, params)).replace(SUBJECT, subject);
  const tail = escapeHtml(
    t('activity.progress', { elapsed: elapsed(t, now.getTime() - Date.parse(a.turnStartedAt)), steps: counted(t, 'activity.steps', a.steps) }),
  );
  return `${head} · ${tail}`;
}

/** The line a final ends with: "4 commands, 2 files changed, 3 min" (plain text). */
export function summaryLine(t: Translator, s: TurnSummary): string {
  const parts = [s.commands > 0 ? counted(t, 'summary.commands', s.commands) : counted(t, 'summary.steps', s.steps)];
  if (s.filesChanged > 0) parts.push(counted(t, 'summary.files', s.filesChanged));
  if (s.ms !== null) parts.push(elapsed(t, s.ms));
  return parts.join(', ');
}
