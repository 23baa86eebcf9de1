import { createHash } from 'node:crypto';
import { InlineKeyboard } from 'grammy';
import type { Translator } from '@bria/core/i18n';
import type { ChangesDto } from '@bria/core/services';
import { cb } from '../card/callback-data.ts';
import { escapeHtml } from '../render/index.ts';

type Changes = Extract<ChangesDto, { ok: true }>;

/** Telegram's limits: a message's text, a bot's upload (sendDocument). */
export const MAX_MESSAGE_CHARS = 4096;
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;
/** Per-file buttons on the summary (a phone screen of them); the whole diff covers the rest. */
export const MAX_FILE_BUTTONS = 12;
/** The summary's text stays under this, leaving room for the last lines. */
const SUMMARY_BUDGET = 3500;

/** A file's button argument: its place in the summary and a short hash of its path (the list may have changed since). */
export function fileArg(index: number, path: string): string {
  return `${index}.${createHash('sha256').update(path).digest('hex').slice(0, 4)}`;
}

/** The file a button's argument names in today's list, or null when the list changed. */
export function fileOfArg(arg: string, files: readonly { path: string }[]): string | null {
  const m = /^(\d{1,4})\.([0-9a-f]{4})$/.exec(arg);
  if (!m) return null;
  const f = files[Number(m[1])];
  return f && fileArg(Number(m[1]), f.path) === arg ? f.path : null;
}

const shortName = (p: string) => (p.length <= 30 ? p : `…${p.slice(-29)}`);

/**
 * The summary message: the base, each file with +/− (binary files say so), the untracked files,
 * within Telegram's 4096 characters; buttons for the whole diff, each file's diff, draft, commit
 * and push.
 */
export function renderChanges(o: { t: Translator; folder: string; baseBranch: string | null; c: Changes; gen: number; sessionId: string }): {
  html: string;
  keyboard: InlineKeyboard;
} {
  const { t, c } = o;
  const commit = c.base.slice(0, 7);
  const base =
    c.baseKind === 'branch_point'
      ? t('git.againstBranchPoint', { base: o.baseBranch ?? '?', commit })
      : c.baseKind === 'session_start'
        ? t('git.againstStart', { commit })
        : t('git.againstHead', { commit });
  const lines = [`<b>${escapeHtml(t('git.title', { folder: o.folder }))}</b>`];
  if (c.branch) lines.push(escapeHtml(t('git.branch', { branch: c.branch })));
  lines.push(escapeHtml(base), '');
  if (c.files.length === 0 && c.untracked.length === 0) lines.push(escapeHtml(t('git.none')));
  let size = lines.join('\n').length;
  let shown = 0;
  for (const f of c.files) {
    const stat = f.added === null ? t('git.binary') : `+${f.added} −${f.removed}`;
    const line = `<code>${escapeHtml(stat)}</code> ${escapeHtml(f.path)}`;
    if (size + line.length > SUMMARY_BUDGET) break;
    lines.push(line);
    size += line.length + 1;
    shown++;
  }
  if (shown < c.files.length) lines.push(escapeHtml(t('git.more', { n: c.files.length - shown })));
  if (c.untracked.length > 0) {
    const room = Math.max(0, SUMMARY_BUDGET - size - 100);
    let list = c.untracked.join(', ');
    if (list.length > room) list = `${list.slice(0, room)}…`;
    lines.push('', escapeHtml(t('git.untracked', { files: list })));
  }
  if (c.truncated) lines.push(escapeHtml(t('git.truncated')));

  const ref = { gen: o.gen, sessionId: o.sessionId };
  const kb = new InlineKeyboard();
  if (c.files.length > 0) kb.text(t('git.wholeDiff'), cb.encode({ a: 'gdiff', ...ref, arg: 'all' })).row();
  const perFile = c.files.slice(0, MAX_FILE_BUTTONS);
  // Two file buttons a row (a phone's width); an empty row is never left.
  for (let i = 0; i < perFile.length; i += 2) {
    for (const [j, f] of perFile.slice(i, i + 2).entries()) kb.text(`📄 ${shortName(f.path)}`, cb.encode({ a: 'gdiff', ...ref, arg: fileArg(i + j, f.path) }));
    kb.row();
  }
  kb.text(t('git.draft'), cb.encode({ a: 'gdraft', ...ref }))
    .text(t('git.commitAll'), cb.encode({ a: 'gcommit', ...ref }))
    .row()
    .text(t('git.push'), cb.encode({ a: 'gpush', ...ref }));
  return { html: lines.join('\n').slice(0, MAX_MESSAGE_CHARS), keyboard: kb };
}

/** The diff document's name: the branch or folder, and the file when it is one. */
export function diffFileName(o: { branch: string | null; folder: string; path?: string }): string {
  const stem = (o.path ?? o.branch ?? o.folder.split('/').filter(Boolean).at(-1) ?? 'changes').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '');
  return `${stem || 'changes'}.diff`;
}
