import { Composer, InlineKeyboard, InputFile } from 'grammy';
import { z } from 'zod';
import { isAppError } from '@bria/core/domain';
import type { MessageKey } from '@bria/core/i18n';
import { type ChangesDto, getSessionView, type GitRefusalDto, type SessionView, updateChat } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import { cb } from '../card/callback-data.ts';
import { queueCard, reply } from '../outbox/queue.ts';
import { escapeHtml } from '../render/index.ts';
import { diffFileName, fileOfArg, MAX_DOCUMENT_BYTES, renderChanges } from './changes-view.ts';
import { activeSession, askForNode, selectedNode } from './home.ts';
import { refuseButton, staleButton } from './stale.ts';

/**
 * Git from Telegram (docs/worktrees.md): `/changes` for the active session — a summary, the diff as
 * a document (whole or per file), draft a commit message, commit all, push — and a worktree
 * session's Close → Remove worktree. Git's own words come back as they are.
 *
 * Decision: the diff document is sent straight to Telegram (`sendDocument`), not through the
 * outbox: outbox rows are stored and the diff is the user's code, which Bria never stores. A failed
 * send is a failed press (the error boundary apologises); pressing again sends it again. Git runs
 * that can take long (commit, push, a drafting turn, a removal waiting for the close) run after the
 * press is answered, so the bot goes on handling updates; their outcome is a reply through the outbox.
 */
const zCommitFlow = z.object({ kind: z.literal('commit'), sessionId: z.string(), draft: z.string().optional() });
type CommitFlow = z.infer<typeof zCommitFlow>;
const readCommitFlow = (ctx: BotContext): CommitFlow | undefined => {
  const r = zCommitFlow.safeParse(ctx.bria.chat.flow);
  return r.success ? r.data : undefined;
};
async function saveFlow(ctx: BotContext, flow: CommitFlow | null): Promise<void> {
  await updateChat(ctx.bria.deps.db, ctx.bria.chatId, { flow });
  ctx.bria.chat.flow = flow;
}

const pre = (text: string, max = 3000) => `<pre>${escapeHtml(text.length > max ? `${text.slice(0, max)}…` : text)}</pre>`;

/** The hub's reasons in the catalog; git's own refusals (`git_failed`…) are shown in git's words. */
const REFUSAL_KEYS: Partial<Record<GitRefusalDto['code'], MessageKey>> = {
  turn_in_flight: 'gitRefusal.turn_in_flight',
  session_busy: 'gitRefusal.session_busy',
  session_open: 'gitRefusal.session_open',
  worktree_removed: 'gitRefusal.worktree_removed',
  node_offline: 'gitRefusal.node_offline',
  agent_too_old: 'gitRefusal.agent_too_old',
  no_answer: 'gitRefusal.no_answer',
  no_draft: 'gitRefusal.no_draft',
};

/** A refusal in the user's words: the hub's reason from the catalog when it has one, else git's own words. */
function refusalHtml(ctx: BotContext, r: GitRefusalDto): string {
  const { t } = ctx.bria;
  const key = REFUSAL_KEYS[r.code];
  const reason = key ? t(key) : r.message;
  return escapeHtml(t('git.refused', { reason: '' })) + (reason.includes('\n') ? pre(reason) : escapeHtml(reason));
}

/** Runs a slow git step after the press was answered; a throw is logged and told as a generic failure. */
function later(ctx: BotContext, what: string, fn: () => Promise<void>): void {
  void fn().catch(async (err: unknown) => {
    ctx.bria.deps.log.error({ what, err: err instanceof Error ? err.message.slice(0, 200) : 'unknown' }, 'git step failed');
    await reply(ctx, ctx.bria.t('error.generic')).catch(() => undefined);
  });
}

async function sendSummary(ctx: BotContext, s: SessionView): Promise<void> {
  const { t, deps } = ctx.bria;
  const c = await deps.actions.gitChanges({ sessionId: s.id });
  if (!c.ok) return reply(ctx, refusalHtml(ctx, c), { html: true });
  const row = await deps.db.session.findUnique({ where: { id: s.id }, select: { gitBaseBranch: true } });
  const v = renderChanges({ t, folder: s.folder, baseBranch: row?.gitBaseBranch ?? null, c, gen: ctx.bria.chat.cardGeneration, sessionId: s.id });
  await reply(ctx, v.html, { html: true, keyboard: v.keyboard });
}

/** Every diff of the answer; the ones left out for the answer's size are asked for again (a few rounds at most). */
async function allDiffs(ctx: BotContext, sessionId: string, c: Extract<ChangesDto, { ok: true }>): Promise<{ text: string; leftOut: string[] }> {
  const diffs = new Map(c.files.filter((f) => f.diff !== null).map((f) => [f.path, f.diff as string]));
  for (let round = 0; round < 8; round++) {
    const missing = c.files.filter((f) => !diffs.has(f.path)).map((f) => f.path);
    if (missing.length === 0) break;
    const more = await ctx.bria.deps.actions.gitChanges({ sessionId, paths: missing });
    if (!more.ok) break;
    const before = diffs.size;
    for (const f of more.files) if (f.diff !== null) diffs.set(f.path, f.diff);
    if (diffs.size === before) break;
  }
  return { text: c.files.map((f) => diffs.get(f.path) ?? '').join(''), leftOut: c.files.filter((f) => !diffs.has(f.path)).map((f) => f.path) };
}

async function sendDiff(ctx: BotContext, s: SessionView, arg: string): Promise<void> {
  const { t, deps, chatId } = ctx.bria;
  const c = await deps.actions.gitChanges({ sessionId: s.id });
  if (!c.ok) return reply(ctx, refusalHtml(ctx, c), { html: true });
  const path = arg === 'all' ? undefined : fileOfArg(arg, c.files);
  if (path === null) return reply(ctx, t('git.fileGone'));
  const { text, leftOut } =
    path === undefined ? await allDiffs(ctx, s.id, c) : await allDiffs(ctx, s.id, { ...c, files: c.files.filter((f) => f.path === path) });
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return reply(ctx, t('git.noDiff'));
  if (bytes.length > MAX_DOCUMENT_BYTES) return reply(ctx, t('git.diffTooBig', { size: `${Math.round(bytes.length / 1024 / 1024)} MB` }));
  const caption = [t('git.diffCaption', { what: path ?? t('git.diffAll') }), leftOut.length ? t('git.diffLeftOut', { files: leftOut.join(', ') }) : '']
    .filter(Boolean)
    .join('\n')
    .slice(0, 1000);
  await ctx.api.sendDocument(Number(chatId), new InputFile(bytes, diffFileName({ branch: c.branch, folder: s.folder, ...(path ? { path } : {}) })), {
    caption,
  });
}

function commitLater(ctx: BotContext, sessionId: string, message: string): void {
  later(ctx, 'commit', async () => {
    const r = await ctx.bria.deps.actions.gitCommit({ sessionId, message });
    await reply(ctx, r.ok ? escapeHtml(ctx.bria.t('git.committed', { summary: r.summary })) : refusalHtml(ctx, r), { html: true });
  });
}

async function onGitButton(ctx: BotContext, a: string, sessionId: string): Promise<void> {
  const { t, deps } = ctx.bria;
  const s = await getSessionView(deps.db, sessionId);
  if (!s) return refuseButton(ctx);
  const arg = cb.decode(ctx.callbackQuery?.data ?? '')?.arg ?? '';
  switch (a) {
    case 'gdiff':
      await ctx.answerCallbackQuery();
      return sendDiff(ctx, s, arg);
    case 'gcommit': {
      await ctx.answerCallbackQuery();
      const flow = readCommitFlow(ctx);
      await saveFlow(ctx, { kind: 'commit', sessionId, ...(flow?.sessionId === sessionId && flow.draft ? { draft: flow.draft } : {}) });
      return reply(ctx, t('git.typeMessage'));
    }
    case 'guse': {
      const flow = readCommitFlow(ctx);
      if (flow?.sessionId !== sessionId || !flow.draft) return refuseButton(ctx);
      await ctx.answerCallbackQuery();
      await saveFlow(ctx, null);
      return commitLater(ctx, sessionId, flow.draft);
    }
    case 'gpush':
      await ctx.answerCallbackQuery({ text: t('git.pushing') });
      return later(ctx, 'push', async () => {
        const r = await deps.actions.gitPush({ sessionId });
        if (!r.ok) return reply(ctx, refusalHtml(ctx, r), { html: true });
        const lines = [escapeHtml(t('git.pushed', { branch: r.branch, remote: r.remote }))];
        if (r.compareUrl) lines.push(escapeHtml(t('git.compare', { url: r.compareUrl })));
        if (r.output.trim()) lines.push(pre(r.output.trim()));
        await reply(ctx, lines.join('\n'), { html: true });
      });
    case 'gdraft': {
      await ctx.answerCallbackQuery();
      await reply(ctx, t('git.drafting'));
      const sourceKey = `tg-draft:${ctx.bria.chatId}:${ctx.callbackQuery?.id ?? ''}`;
      return later(ctx, 'draft', async () => {
        const r = await deps.actions.draftCommitMessage({ sessionId, sourceKey });
        if (!r.ok) return reply(ctx, refusalHtml(ctx, r), { html: true });
        await saveFlow(ctx, { kind: 'commit', sessionId, draft: r.message });
        const kb = new InlineKeyboard().text(t('git.useDraft'), cb.encode({ a: 'guse', gen: ctx.bria.chat.cardGeneration, sessionId }));
        await reply(ctx, `${escapeHtml(t('git.drafted'))}\n${pre(r.message)}`, { html: true, keyboard: kb });
      });
    }
    default:
      return refuseButton(ctx);
  }
}

/** Close → Remove worktree (on the card), and the second confirmation for uncommitted work. */
async function onCloseButton(ctx: BotContext, a: 'closeRm' | 'wtForce', sessionId: string, version: number | undefined): Promise<void> {
  const { t, deps } = ctx.bria;
  const s = await getSessionView(deps.db, sessionId);
  if (!s?.worktreeBranch || s.worktreeRemovedAt) return refuseButton(ctx);
  const branch = s.worktreeBranch;
  if (a === 'closeRm') {
    try {
      await deps.actions.closeSession({ sessionId, ...(version === undefined ? {} : { cardVersion: version }) });
    } catch (error) {
      // The session moved on since the card was drawn: as for Close itself, the refreshed card shows what applies.
      if (isAppError(error) && (error.code === 'ILLEGAL_TRANSITION' || error.code === 'STALE_BUTTON')) return refuseButton(ctx);
      throw error;
    }
    await queueCard(ctx, { sessionId });
  }
  await ctx.answerCallbackQuery({ text: t('close.removing') });
  later(ctx, 'remove worktree', async () => {
    const r = await deps.actions.removeWorktree({ sessionId, ...(a === 'wtForce' ? { force: true } : {}) });
    if (r.ok) return reply(ctx, t('close.removed', { branch }));
    if (r.code !== 'uncommitted_work') return reply(ctx, refusalHtml(ctx, r), { html: true });
    const kb = new InlineKeyboard().text(t('close.forceRemove'), cb.encode({ a: 'wtForce', gen: ctx.bria.chat.cardGeneration, sessionId }));
    await reply(ctx, t('close.uncommitted', { files: r.files.slice(0, 60).join('\n') }).slice(0, 4000), { keyboard: kb });
  });
}

export function changes(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  c.command('changes', async (ctx) => {
    const node = await selectedNode(ctx);
    if (!node) return askForNode(ctx);
    const s = await activeSession(ctx, node.id);
    if (!s) return void (await reply(ctx, ctx.bria.t('firstSteps.noSession', { node: node.name })));
    await sendSummary(ctx, s);
  });
  c.callbackQuery(/^(gdiff|gcommit|guse|gpush|gdraft|closeRm|wtForce):/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    if (!data?.sessionId) return refuseButton(ctx);
    if (data.a === 'closeRm') {
      // On the card: only its current buttons act, as for Close itself.
      if (await staleButton(ctx, data)) return;
      if (data.sessionId !== ctx.bria.chat.cardSessionId) return refuseButton(ctx);
      return onCloseButton(ctx, 'closeRm', data.sessionId, data.version);
    }
    if (data.a === 'wtForce') return onCloseButton(ctx, 'wtForce', data.sessionId, undefined);
    return onGitButton(ctx, data.a, data.sessionId);
  });
  // The commit message typed after "Commit all"; a command leaves the flow to its own feature.
  c.on('message:text', async (ctx, next) => {
    const flow = readCommitFlow(ctx);
    if (!flow || ctx.message.text.startsWith('/')) return next();
    await saveFlow(ctx, null);
    commitLater(ctx, flow.sessionId, ctx.message.text.trim());
  });
  return c;
}
