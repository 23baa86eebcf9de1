import { Composer } from 'grammy';
import { promptAlwaysAllow } from '@bria/core/domain';
import type { MessageKey } from '@bria/core/i18n';
import { type AnswerPromptInput, type AnswerPromptResult, getPromptView, getSessionView, type PromptView } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import { edit, reply } from '../outbox/queue.ts';
import { type PromptPress, promptCb } from '../prompts/prompt-callback.ts';
import { endPromptFlow, readPromptFlow, savePromptFlow } from '../prompts/prompt-flow.ts';
import { answerOf, answerSummary, drawPrompt, emptyDraft, type PromptDraft, type Question, questionsOf } from '../prompts/prompt-view.ts';
import { refuseButton } from './stale.ts';

/** How the outcome of an answer is said: the callback answer of a press, or a reply to a typed text. */
type Say = (text: string) => Promise<void>;

const SENT: Record<AnswerPromptInput['decision'] | 'answers', MessageKey> = {
  allow: 'prompt.sentAllow',
  deny: 'prompt.sentDeny',
  always_allow: 'prompt.sentAlways',
  at_computer: 'prompt.sentAtComputer',
  answers: 'prompt.sentAnswer',
};

function outcomeText(ctx: BotContext, r: AnswerPromptResult, sent: MessageKey): string {
  const { t } = ctx.bria;
  if (r.kind === 'answered') return t(sent);
  if (r.kind === 'already_answered') return t('prompt.alreadyAnswered', { answer: answerSummary(r.prompt, t).short });
  return t('prompt.outOfDate');
}

/** Hands the answer to core (the first answer wins) and says how it went; the chat's prompt state ends. */
async function submit(ctx: BotContext, view: PromptView, input: Omit<AnswerPromptInput, 'promptId' | 'from'>, say: Say): Promise<void> {
  const { deps, chat } = ctx.bria;
  const r = await deps.actions.answerPrompt({ promptId: view.id, from: 'telegram', ...input });
  await endPromptFlow(deps.db, chat, view.id);
  // core wrote the `answered` row that redraws the request's message: send it now.
  deps.wakeOutbox?.();
  await say(outcomeText(ctx, r, input.answers ? SENT.answers : SENT[input.decision]));
}

async function redraw(ctx: BotContext, view: PromptView, messageId: number, draft: PromptDraft): Promise<void> {
  const session = await getSessionView(ctx.bria.deps.db, view.sessionId);
  const d = drawPrompt({ view, session, t: ctx.bria.t, draft });
  await edit(ctx, messageId, d.html, { html: true, noPreview: true, ...(d.keyboard ? { keyboard: d.keyboard } : {}) });
}

/**
 * Question `q` has its answer (picked or typed): the next question is shown, or, after the last, the
 * answers go to core. A question before it that has no answer any more (its typed answer was not
 * kept: another flow replaced the chat's) is asked again instead.
 */
async function advance(
  ctx: BotContext,
  view: PromptView,
  qs: Question[],
  o: { q: number; picks: number[]; texts: Record<string, string>; messageId: number; say: Say },
): Promise<void> {
  const { deps, chat, t } = ctx.bria;
  const missing = qs.findIndex((question, k) => k <= o.q && answerOf(question, o.picks[k] ?? 0, o.texts[k]) === null);
  const at = missing >= 0 ? missing : o.q + 1;
  if (at < qs.length) {
    const draft: PromptDraft = { q: at, picks: o.picks, texts: o.texts, typing: null };
    if (Object.keys(o.texts).length > 0) await savePromptFlow(deps.db, chat, { promptId: view.id, messageId: o.messageId, draft });
    else await endPromptFlow(deps.db, chat, view.id);
    await redraw(ctx, view, o.messageId, draft);
    return o.say(missing >= 0 ? t('prompt.again') : '');
  }
  const answers = Object.fromEntries(qs.map((question, k) => [question.text, answerOf(question, o.picks[k] ?? 0, o.texts[k]) as string]));
  await submit(ctx, view, { decision: 'allow', answers }, o.say);
}

/**
 * The chat starts awaiting a text for this request: another request whose message still asks for a
 * text (the chat has one such state) goes back to its choices, so no message asks for a text the
 * chat no longer takes.
 */
async function takeTextFor(ctx: BotContext, view: PromptView, messageId: number, draft: PromptDraft): Promise<void> {
  const { deps, chat } = ctx.bria;
  const other = readPromptFlow(chat.flow);
  await savePromptFlow(deps.db, chat, { promptId: view.id, messageId, draft });
  if (other && other.promptId !== view.id && other.draft.typing !== null) {
    const before = await getPromptView(deps, other.promptId);
    if (before?.state === 'pending') await redraw(ctx, before, other.messageId, { ...other.draft, typing: null });
  }
  await redraw(ctx, view, messageId, draft);
}

/** A press on a request that is still pending. */
async function onPress(ctx: BotContext, view: PromptView, p: PromptPress, messageId: number): Promise<void> {
  const { deps, chat, t } = ctx.bria;
  const say: Say = async (text) => void (await ctx.answerCallbackQuery(text ? { text: text.slice(0, 200) } : undefined));
  const qs = questionsOf(view);
  const flow = readPromptFlow(chat.flow, view.id);
  const texts = { ...(flow?.draft.texts ?? {}) };
  switch (p.op) {
    case 'allow':
    case 'deny':
    case 'always':
    case 'computer':
      if (p.op === 'computer') return submit(ctx, view, { decision: 'at_computer' }, say);
      if (view.kind === 'question' && p.op !== 'deny') return refuseButton(ctx);
      if (p.op === 'always' && !promptAlwaysAllow(view)) return refuseButton(ctx);
      return submit(ctx, view, { decision: p.op === 'always' ? 'always_allow' : p.op }, say);
    case 'reason': {
      await takeTextFor(ctx, view, messageId, { ...(flow?.draft ?? emptyDraft(view)), typing: 'reason' });
      return say(t('prompt.typeNow'));
    }
    case 'cancel': {
      const draft: PromptDraft = { ...(flow?.draft ?? emptyDraft(view)), typing: null };
      if (Object.keys(texts).length > 0) await savePromptFlow(deps.db, chat, { promptId: view.id, messageId, draft });
      else await endPromptFlow(deps.db, chat, view.id);
      await redraw(ctx, view, messageId, draft);
      return say(t('prompt.cancelled'));
    }
    default:
      break;
  }
  // Question buttons: only ones this request can have drawn.
  const question = qs[p.q];
  if (view.kind !== 'question' || !question || p.picks.length !== qs.length || (p.op === 'option' && p.i >= question.options.length)) return refuseButton(ctx);
  const picks = [...p.picks];
  if (p.op === 'text') {
    await takeTextFor(ctx, view, messageId, { q: p.q, picks, texts, typing: 'answer' });
    return say(t('prompt.typeNow'));
  }
  if (p.op === 'option') {
    picks[p.q] = question.multi ? (picks[p.q] ?? 0) ^ (1 << p.i) : 1 << p.i;
    // A button choice replaces an answer typed for the same question.
    delete texts[p.q];
    if (question.multi) {
      await redraw(ctx, view, messageId, { q: p.q, picks, texts, typing: null });
      return say('');
    }
  } else if ((picks[p.q] ?? 0) === 0 && texts[p.q] === undefined) {
    return say(t('prompt.chooseOne'));
  }
  return advance(ctx, view, qs, { q: p.q, picks, texts, messageId, say });
}

/**
 * Permission requests and questions from the CLIs (README "Prompts"): the buttons of a request's
 * message, and the next text message when the user chose "Deny with a reason…" or "Answer in text".
 */
export function prompts(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  c.callbackQuery(/^pr:/, async (ctx) => {
    const p = promptCb.decode(ctx.callbackQuery.data);
    const messageId = ctx.callbackQuery.message?.message_id;
    if (!p || messageId === undefined) return refuseButton(ctx);
    const { deps, chat, t } = ctx.bria;
    const view = await getPromptView(deps, p.promptId);
    if (!view) return void (await ctx.answerCallbackQuery({ text: t('prompt.outOfDate') }));
    if (view.state !== 'pending') {
      await endPromptFlow(deps.db, chat, view.id);
      const answered = view.state === 'answered' || view.state === 'delivered';
      return void (await ctx.answerCallbackQuery({
        text: (answered ? t('prompt.alreadyAnswered', { answer: answerSummary(view, t).short }) : t('prompt.outOfDate')).slice(0, 200),
      }));
    }
    await onPress(ctx, view, p, messageId);
  });
  // The next text after "Deny with a reason…" / "Answer in text" is that reason or answer, never a
  // message to the session. Bria's commands are answered by their features before this one.
  c.on('message:text', async (ctx, next) => {
    const { deps, chat, t } = ctx.bria;
    const flow = readPromptFlow(chat.flow);
    if (!flow || flow.draft.typing === null) return next();
    const text = ctx.message.text;
    const say: Say = (s) => (s ? reply(ctx, s) : Promise.resolve());
    const view = await getPromptView(deps, flow.promptId);
    if (view?.state !== 'pending') {
      await endPromptFlow(deps.db, chat, flow.promptId);
      const status = !view
        ? ''
        : view.state === 'answered' || view.state === 'delivered'
          ? t('prompt.alreadyAnswered', { answer: answerSummary(view, t).short })
          : t('prompt.outOfDate');
      return say(t('prompt.textNotUsed', { status }));
    }
    if (text.length > 4000) return say(t('prompt.tooLong'));
    if (flow.draft.typing === 'reason') return submit(ctx, view, { decision: 'deny', message: text }, say);
    const qs = questionsOf(view);
    const q = flow.draft.q;
    if (view.kind !== 'question' || q >= qs.length) {
      await endPromptFlow(deps.db, chat, view.id);
      return next();
    }
    const picks = qs.map((_, k) => (k === q ? 0 : (flow.draft.picks[k] ?? 0)));
    await advance(ctx, view, qs, { q, picks, texts: { ...flow.draft.texts, [q]: text }, messageId: flow.messageId, say });
  });
  return c;
}
