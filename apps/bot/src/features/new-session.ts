import { randomInt } from 'node:crypto';
import { Composer, InlineKeyboard } from 'grammy';
import { z } from 'zod';
import type { MessageKey } from '@bria/core/i18n';
import { MODEL_SUGGESTIONS, PERMISSION_MODES, parseModel } from '@bria/core/protocol';
import {
  listArchived,
  listNodeViews,
  modeUnavailable,
  nodeDefaultMode,
  readSettingsView,
  recentFolders,
  setActiveSessionId,
  updateChat,
} from '@bria/core/services';
import type { BotContext } from '../context.ts';
import type { Executor } from '../deps.ts';
import { cb } from '../card/callback-data.ts';
import { edit, queueCard, reply } from '../outbox/queue.ts';
import { escapeHtml } from '../render/index.ts';
import { resumeFromChat } from './resume.ts';
import { refuseButton } from './stale.ts';

/**
 * `/new`: node → executor (skipped when only one is enabled) → folder (recent ones as buttons, or
 * typed; validated on the node) → "resume instead?" (only with the setting on) → the session starts.
 * The folder question also carries the session's choices, so the usual path has no extra step: a
 * row of permission modes (the node's default marked until another is tapped) and a row of models
 * (suggestions, and "type one": the next text is the model name, then the folder is asked again).
 * Progress lives in TelegramChat.flow, so a restart of the bot keeps the user where they were.
 */
const zFlow = z.object({
  kind: z.literal('new'),
  nonce: z.number().int(),
  step: z.enum(['node', 'executor', 'folder', 'model', 'resume']),
  nodeId: z.string().optional(),
  executor: z.enum(['claude', 'codex']).optional(),
  folders: z.array(z.string()).default([]),
  folder: z.string().optional(),
  /** Unset = the node's default for the executor, decided when the session is created. */
  mode: z.string().optional(),
  model: z.string().optional(),
});
type Flow = z.infer<typeof zFlow>;

const readFlow = (ctx: BotContext): Flow | undefined => {
  const r = zFlow.safeParse(ctx.bria.chat.flow);
  return r.success ? r.data : undefined;
};

async function saveFlow(ctx: BotContext, flow: Flow | null): Promise<void> {
  await updateChat(ctx.bria.deps.db, ctx.bria.chatId, { flow });
  ctx.bria.chat.flow = flow;
}

const btn = (
  flow: Flow,
  a: 'fnode' | 'exec' | 'folder' | 'resume' | 'fresh' | 'cancel' | 'pmode' | 'pmodel',
  extra: { arg?: string; sessionId?: string } = {},
) => cb.encode({ a, gen: flow.nonce, ...extra });

async function askNode(ctx: BotContext, flow: Flow): Promise<void> {
  const nodes = await listNodeViews(ctx.bria.deps.db);
  if (nodes.length === 0) return void (await reply(ctx, ctx.bria.t('firstSteps.noNodes')));
  if (nodes.length === 1) return chooseNode(ctx, { ...flow, nodeId: nodes[0]?.id });
  await saveFlow(ctx, { ...flow, step: 'node' });
  const kb = new InlineKeyboard();
  for (const n of nodes) kb.text(`${n.online ? '🟢' : '⚪'} ${n.name}`, btn(flow, 'fnode', { arg: n.id })).row();
  kb.text(ctx.bria.t('button.cancel'), btn(flow, 'cancel'));
  await reply(ctx, escapeHtml(ctx.bria.t('new.pickNode')), { html: true, keyboard: kb });
}

async function chooseNode(ctx: BotContext, flow: Flow): Promise<void> {
  const { t, deps } = ctx.bria;
  const node = (await listNodeViews(deps.db)).find((n) => n.id === flow.nodeId);
  if (!node) return askNode(ctx, { ...flow, nodeId: undefined });
  await updateChat(deps.db, ctx.bria.chatId, { selectedNodeId: node.id });
  // A disabled executor is not offered, nor one the node's agent could not run (said why); with one
  // left there is nothing to ask.
  const missing = node.enabledExecutors.filter((e) => node.missingExecutors.includes(e));
  const execs = node.enabledExecutors.filter((e) => !missing.includes(e));
  const why = missing.map((e) => t('new.executorMissing', { executor: t(`executor.${e}`), node: node.name, bin: e })).join('\n');
  if (execs.length === 0) {
    await saveFlow(ctx, null);
    return void (await reply(ctx, why || t('new.noExecutors', { node: node.name })));
  }
  if (why) await reply(ctx, why);
  if (execs.length === 1) return chooseExecutor(ctx, { ...flow, executor: execs[0] });
  await saveFlow(ctx, { ...flow, step: 'executor' });
  const kb = new InlineKeyboard();
  for (const e of execs) kb.text(t(`executor.${e}`), btn(flow, 'exec', { arg: e }));
  kb.row().text(t('button.cancel'), btn(flow, 'cancel'));
  await reply(ctx, escapeHtml(t('new.pickExecutor', { node: node.name })), { html: true, keyboard: kb });
}

async function chooseExecutor(ctx: BotContext, flow: Flow): Promise<void> {
  const folders = await recentFolders(ctx.bria.deps.db, flow.nodeId as string, flow.executor as Executor);
  await askFolder(ctx, { ...flow, step: 'folder', folders });
}

/** The folder question with the session's choices (edited in place when a choice is tapped). */
async function askFolder(ctx: BotContext, flow: Flow, editId?: number): Promise<void> {
  const { t, deps } = ctx.bria;
  const next: Flow = { ...flow, step: 'folder' };
  await saveFlow(ctx, next);
  const executor = next.executor as Executor;
  const node = (await listNodeViews(deps.db)).find((n) => n.id === next.nodeId);
  const mode = next.mode ?? (node ? nodeDefaultMode(executor, node) : undefined);
  const kb = new InlineKeyboard();
  for (const [i, f] of next.folders.entries()) kb.text(f.length > 40 ? `…${f.slice(-39)}` : f, btn(next, 'folder', { arg: String(i) })).row();
  const blocked: string[] = [];
  for (const [i, m] of PERMISSION_MODES[executor].entries()) {
    if (node && modeUnavailable(node, executor, m)) blocked.push(t(`mode.unavailable.${executor}:${m}` as MessageKey));
    else kb.text(`${m === mode ? '✓ ' : ''}${m}`, btn(next, 'pmode', { arg: String(i) }));
  }
  kb.row();
  for (const [i, m] of MODEL_SUGGESTIONS[executor].entries()) kb.text(`${next.model === m ? '✓ ' : ''}${m}`, btn(next, 'pmodel', { arg: String(i) }));
  kb.text(next.model ? t('choice.cliDefault') : t('choice.typeModel'), btn(next, 'pmodel', { arg: next.model ? 'none' : 'type' }));
  kb.row().text(t('button.cancel'), btn(next, 'cancel'));
  const text = [t('new.pickFolder'), '', t('choice.line', { mode: mode ?? '?', model: next.model ?? t('choice.cliDefault') }), ...blocked].join('\n');
  if (editId !== undefined) return void (await edit(ctx, editId, escapeHtml(text), { html: true, keyboard: kb }));
  await reply(ctx, escapeHtml(text), { html: true, keyboard: kb });
}

async function chooseFolder(ctx: BotContext, flow: Flow, folder: string): Promise<void> {
  const { t, deps } = ctx.bria;
  if (!folder.startsWith('/')) return void (await reply(ctx, t('new.folderNotAbsolute')));
  const check = await deps.actions.validateFolder({ nodeId: flow.nodeId as string, folder });
  if (!check.ok) return void (await reply(ctx, escapeHtml(t('new.folderInvalid', { reason: check.reason })), { html: true }));
  const next: Flow = { ...flow, folder: check.folder ?? folder };
  if ((await readSettingsView(deps.db)).resumeRecommendations) {
    const { rows } = await listArchived(deps.db, { nodeId: next.nodeId as string, executor: next.executor, folder: next.folder, page: 0, pageSize: 5 });
    if (rows.length > 0) {
      await saveFlow(ctx, { ...next, step: 'resume' });
      const kb = new InlineKeyboard();
      for (const s of rows)
        kb.text(`${t('button.resume')}: ${(s.title ?? s.firstPrompt ?? t('archive.untitled')).slice(0, 40)}`, btn(next, 'resume', { sessionId: s.id })).row();
      kb.text(t('button.startFresh'), btn(next, 'fresh'));
      return void (await reply(ctx, escapeHtml(t('new.resumeOffer', { executor: t(`executor.${next.executor as Executor}`) })), { html: true, keyboard: kb }));
    }
  }
  return start(ctx, next);
}

async function start(ctx: BotContext, flow: Flow): Promise<void> {
  const { deps, chatId } = ctx.bria;
  await saveFlow(ctx, null);
  const { sessionId } = await deps.actions.createSession({
    chatId,
    nodeId: flow.nodeId as string,
    executor: flow.executor as Executor,
    folder: flow.folder as string,
    ...(flow.mode ? { permissionMode: flow.mode } : {}),
    ...(flow.model ? { model: flow.model } : {}),
  });
  await setActiveSessionId(deps.db, chatId, flow.nodeId as string, sessionId);
  await queueCard(ctx, { sessionId, fresh: true });
}

const BRIA_COMMANDS = new Set(['start', 'new', 'sessions', 'nodes', 'archive', 'status', 'compact', 'settings', 'changes', 'login']);
const isBriaCommand = (text: string) => BRIA_COMMANDS.has(/^\/([a-z]+)(@\w+)?(\s|$)/.exec(text)?.[1] ?? '');

export function newSession(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  const begin = async (ctx: BotContext) => askNode(ctx, { kind: 'new', nonce: randomInt(1, 1_000_000_000), step: 'node', folders: [] });
  c.command('new', begin);
  c.callbackQuery(/^new:/, async (ctx) => {
    await ctx.answerCallbackQuery();
    await begin(ctx);
  });
  c.callbackQuery(/^(fnode|exec|folder|resume|fresh|cancel|pmode|pmodel):/, async (ctx, next) => {
    const data = cb.decode(ctx.callbackQuery.data);
    // /archive's Resume buttons (arg `a`) share the action name; they are the archive feature's, as are
    // "Continue here" (arg `d<pid>`) and "Adopt in place" (arg `p<pid>`) confirmations too.
    if (data?.a === 'resume' && (data.arg === 'a' || /^[dp]\d+$/.test(data.arg ?? ''))) return next();
    const flow = readFlow(ctx);
    if (!data || !flow || data.gen !== flow.nonce) return void (await refuseButton(ctx));
    await ctx.answerCallbackQuery();
    if (data.a === 'cancel') {
      await saveFlow(ctx, null);
      return void (await reply(ctx, ctx.bria.t('new.cancelled')));
    }
    if (data.a === 'fnode' && flow.step === 'node') return chooseNode(ctx, { ...flow, nodeId: data.arg });
    if (data.a === 'exec' && flow.step === 'executor' && (data.arg === 'claude' || data.arg === 'codex'))
      return chooseExecutor(ctx, { ...flow, executor: data.arg });
    if (data.a === 'folder' && flow.step === 'folder') {
      const folder = flow.folders[Number(data.arg)];
      if (folder) return chooseFolder(ctx, flow, folder);
    }
    if (data.a === 'fresh' && flow.step === 'resume') return start(ctx, flow);
    if ((data.a === 'pmode' || data.a === 'pmodel') && flow.step === 'folder' && flow.executor) {
      const shown = ctx.callbackQuery.message?.message_id;
      const { model: _m, ...rest } = flow;
      const mode = PERMISSION_MODES[flow.executor][Number(data.arg)];
      if (data.a === 'pmode' && mode) return askFolder(ctx, { ...flow, mode }, shown);
      const model = MODEL_SUGGESTIONS[flow.executor][Number(data.arg)];
      if (data.a === 'pmodel' && model) return askFolder(ctx, { ...flow, model }, shown);
      if (data.a === 'pmodel' && data.arg === 'none') return askFolder(ctx, rest, shown);
      if (data.a === 'pmodel' && data.arg === 'type') {
        await saveFlow(ctx, { ...flow, step: 'model' });
        return void (await reply(ctx, ctx.bria.t('choice.modelTypeHint')));
      }
    }
    if (data.a === 'resume' && flow.step === 'resume' && data.sessionId) {
      await saveFlow(ctx, null);
      return resumeFromChat(ctx, data.sessionId);
    }
  });
  // A typed folder while the flow waits for one; any other text goes on to the session.
  c.on('message:text', async (ctx, next) => {
    const flow = readFlow(ctx);
    // A typed model name after "type one"; then the folder question again.
    if (flow?.step === 'model' && !isBriaCommand(ctx.message.text)) {
      const model = parseModel(ctx.message.text);
      if (!model.ok) return void (await reply(ctx, ctx.bria.t('sessions.model_invalid')));
      const { model: _m, ...rest } = flow;
      return askFolder(ctx, model.model ? { ...rest, model: model.model } : rest);
    }
    // Absolute paths start with '/' too: only one of Bria's own commands leaves the folder step.
    if (flow?.step !== 'folder' || isBriaCommand(ctx.message.text)) return next();
    await chooseFolder(ctx, flow, ctx.message.text.trim());
  });
  return c;
}
