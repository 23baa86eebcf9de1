import { randomUUID } from 'node:crypto';
import { AppError, answerFits, PROMPT_END_CAUSES, type PromptEndCause, type PromptState, promptAlwaysAllow, promptTransition } from '../../domain/index.ts';
import { pumpQueue } from '../../engine/step/queue-pump.ts';
import { applyEvent } from '../../engine/step/session-step.ts';
import { recordEvidence } from '../../db/repos/evidence.ts';
import { answerPromptRow, getPrompt, listPrompts, type PromptAnswer, type PromptRow } from '../../db/repos/prompts.ts';
import { insertSessionCommand, lockSession } from '../../db/repos/sessions.ts';
import { withSessionTx } from '../../engine/step/step-context.ts';
import { notifyChats } from '../../engine/step/session-notices.ts';
import { closePromptPush } from '../../engine/step/push-notices.ts';
import { endPromptsForStop, stopInProgress } from '../../engine/step/end-prompts.ts';
import { depsOf, type ServiceDeps } from './session-dto.ts';
import { zAnswers } from '../../protocol/index.ts';

/** Where the answer was given; `notification`: the Allow / Deny of a permission request's push (issue 32). */
export type PromptSource = 'telegram' | 'dashboard' | 'notification';

export interface AnswerPromptInput {
  promptId: string;
  decision: PromptAnswer['decision'];
  /** Deny only: reaches the model as the tool's error (the hook's message). */
  message?: string;
  /** Allow of a question only: the question's text → the chosen label(s), or the user's own text. */
  answers?: Record<string, string | string[]>;
  from: PromptSource;
}

/**
 * `answered`: this answer won and is on its way to the CLI. `already_answered`: another answer won
 * first (the prompt says which). `out_of_date`: the question is no longer pending (answered at
 * the computer, expired, or its turn ended).
 */
export type AnswerPromptResult = { kind: 'answered' | 'already_answered' | 'out_of_date'; prompt: PromptView };

/** A prompt as the front ends show it: the row plus what may be chosen now. */
export interface PromptView {
  id: string;
  sessionId: string;
  kind: 'tool' | 'question' | 'dialog';
  toolName: string;
  toolInput: Record<string, unknown>;
  justification: string | null;
  canAlwaysAllow: boolean;
  state: PromptState;
  answer: PromptAnswer | null;
  answeredFrom: 'telegram' | 'dashboard' | 'notification' | 'computer' | null;
  answeredAt: Date | null;
  receivedAt: Date;
  expiresAt: Date;
  resolvedAt: Date | null;
  /** Why it ended without the answer reaching a hook (`resolution.cause`), when the turn, CLI, start, Stop or archive ended it. */
  endCause: PromptEndCause | null;
}

const endCauseOf = (resolution: unknown): PromptEndCause | null => {
  const cause = (resolution as { outcome?: unknown; cause?: unknown } | null)?.cause;
  return typeof cause === 'string' && Object.hasOwn(PROMPT_END_CAUSES, cause) ? (cause as PromptEndCause) : null;
};

export function toPromptView(r: PromptRow): PromptView {
  return {
    id: r.id,
    sessionId: r.sessionId,
    kind: r.kind === 'question' || r.kind === 'dialog' ? r.kind : 'tool',
    toolName: r.toolName,
    toolInput: (r.toolInput ?? {}) as Record<string, unknown>,
    justification: r.justification,
    canAlwaysAllow: r.canAlwaysAllow,
    state: r.state,
    answer: (r.answer ?? null) as PromptAnswer | null,
    answeredFrom: r.answeredFrom as PromptView['answeredFrom'],
    answeredAt: r.answeredAt,
    receivedAt: r.receivedAt,
    expiresAt: r.expiresAt,
    resolvedAt: r.resolvedAt,
    endCause: endCauseOf(r.resolution),
  };
}

/**
 * The answer's user content within the protocol's bounds (`zAnswers`, a deny's message), checked
 * before anything is read or stored: an oversize answer is refused here with its reason, never
 * queued as a command the agent would have to refuse.
 */
function checkBounds(input: AnswerPromptInput): void {
  const answers = input.answers === undefined ? null : zAnswers.safeParse(input.answers);
  const tooLong = input.message !== undefined && input.message.length > MAX_DENY_MESSAGE;
  if (tooLong || (answers && !answers.success))
    throw new AppError('INVALID_INPUT', {
      message: tooLong ? `a message is at most ${MAX_DENY_MESSAGE} characters` : `answers out of bounds: ${answers?.error?.issues[0]?.message ?? 'invalid'}`,
      userMessage: 'prompts.invalid_answer',
      reason: 'too_long',
    });
}
const MAX_DENY_MESSAGE = 4000;

function check(p: PromptRow, input: AnswerPromptInput): void {
  const bad = (message: string) => new AppError('INVALID_INPUT', { message, userMessage: 'prompts.invalid_answer' });
  if (p.kind === 'dialog' && (input.decision === 'always_allow' || input.message !== undefined || input.answers !== undefined))
    throw bad('a start dialog is trusted (allow) or the start cancelled (deny)');
  if (p.kind === 'dialog' && input.decision === 'at_computer') throw bad("a start dialog is on the computer's screen already");
  const misfit = answerFits(
    // Only a rule the buttons can name (an older agent offered tool-wide rules: no longer taken).
    { alwaysAllow: promptAlwaysAllow(p) !== null, answers: p.kind === 'question' },
    {
      allow: input.decision === 'allow' || input.decision === 'always_allow',
      alwaysAllow: input.decision === 'always_allow',
      answers: input.answers !== undefined,
    },
  );
  if (misfit === 'always_allow_not_allow' || misfit === 'always_allow_not_offered') throw bad('always allow is not offered for this request');
  if (input.message !== undefined && (input.decision !== 'deny' || input.message.trim() === '' || input.message.length > 4000))
    throw bad('a message goes with deny only, 1 to 4000 characters');
  if (misfit === 'answers_need_allow' || misfit === 'answers_not_taken') throw bad('answers go with a question only');
  if (p.kind === 'question' && input.decision === 'allow' && (input.answers === undefined || Object.keys(input.answers).length === 0))
    throw bad('a question is answered with its answers');
}

/**
 * The user's answer to a permission request or question. The first answer wins, from whichever
 * front end: the row moves `pending → answered` only if it is still pending, under the session's
 * lock, and in the same transaction the `answer_permission` command is stored (the hub sends it; the
 * agent hands the CLI the first answer only) and the chats are told who answered.
 */
export async function answerPrompt(deps: ServiceDeps, input: AnswerPromptInput): Promise<AnswerPromptResult> {
  const d = depsOf(deps);
  checkBounds(input);
  return withSessionTx(d.db, d, async (ctx) => {
    const first = await getPrompt(ctx.tx, input.promptId);
    if (!first) throw new AppError('NOT_FOUND', { message: 'prompt not found', userMessage: 'prompts.not_found' });
    const row = await lockSession(ctx.tx, first.sessionId);
    if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
    const p = (await getPrompt(ctx.tx, input.promptId)) ?? first;
    // The table takes an answer only where the user still decides (`pending`).
    if (promptTransition(p.state, 'answered') === null)
      return { kind: p.state === 'answered' || p.state === 'delivered' ? 'already_answered' : 'out_of_date', prompt: toPromptView(p) };
    check(p, input);
    // After the user's Stop the CLI's interrupt key closes the dialog as a refusal: an answer now
    // could not be what the CLI acts on. The request ends with the stop (one that reached the hub
    // after the Stop was asked, e.g. across a hub restart, is ended here).
    if (p.kind !== 'dialog' && stopInProgress(row)) {
      await endPromptsForStop(ctx, row, 'hub');
      return { kind: 'out_of_date', prompt: toPromptView((await getPrompt(ctx.tx, p.id)) ?? p) };
    }
    // A start is cancelled only while it still waits; after that the dialog prompt is out of date.
    if (p.kind === 'dialog' && input.decision === 'deny' && row.state !== 'Starting') return { kind: 'out_of_date', prompt: toPromptView(p) };
    const answer: PromptAnswer = {
      decision: input.decision,
      ...(input.message ? { message: input.message } : {}),
      ...(input.answers ? { answers: input.answers } : {}),
    };
    const answerId = randomUUID();
    if (!(await answerPromptRow(ctx.tx, { id: p.id, answer, answerId, from: input.from, now: ctx.now }))) {
      const now = (await getPrompt(ctx.tx, p.id)) ?? p;
      return { kind: 'already_answered', prompt: toPromptView(now) };
    }
    if (p.kind === 'dialog' && input.decision === 'deny') {
      // Cancel the start: the session closes (nothing of it is left running) and is archived.
      const r = await applyEvent(ctx, row.id, { type: 'close_requested' }, 'user');
      // Rolls the answer back with the refused close.
      if (!r.ok) throw new AppError('CONFLICT', { message: `the start cannot be cancelled now (${r.refusal.code})`, userMessage: 'prompts.cancel_refused' });
      await pumpQueue(ctx, row.id);
    } else if (p.kind === 'dialog') {
      await insertSessionCommand(ctx.tx, {
        id: randomUUID(),
        nodeId: row.nodeId,
        sessionId: row.id,
        type: 'answer_dialog',
        payload: { generation: p.generation, requestId: p.id, dialog: p.toolName, choice: 'accept' },
      });
    } else {
      await insertSessionCommand(ctx.tx, {
        id: randomUUID(),
        nodeId: row.nodeId,
        sessionId: row.id,
        type: 'answer_permission',
        // The agent's protocol names two front ends; a notification is the dashboard's (its service
        // worker), so agents of any version take it. The row and the evidence keep `notification`.
        payload: { generation: p.generation, requestId: p.id, answerId, ...answer, from: input.from === 'telegram' ? 'telegram' : 'dashboard' },
      });
    }
    await recordEvidence(ctx.tx, {
      sessionId: row.id,
      event: 'permission_answered',
      actor: 'user',
      from: row.state,
      to: row.state,
      at: ctx.now,
      evidence: {
        requestId: p.id,
        answerId,
        from: input.from,
        decision: input.decision,
        ...(input.message ? { message: input.message.slice(0, 300) } : {}),
        ...(input.answers ? { answers: JSON.stringify(input.answers).slice(0, 500) } : {}),
      },
    });
    await notifyChats(ctx.tx, row, ctx.now, () => ({
      key: `prompt:${p.id}:answered`,
      payload: { kind: 'prompt', sessionId: row.id, nodeId: row.nodeId, promptId: p.id, phase: 'answered' },
    }));
    // The answer won: every device that shows the request closes it (same tag).
    await closePromptPush(ctx.tx, { promptId: p.id, sessionId: row.id, kind: p.kind, now: ctx.now });
    const after = (await getPrompt(ctx.tx, p.id)) ?? p;
    return { kind: 'answered', prompt: toPromptView(after) };
  });
}

export async function getPromptView(deps: ServiceDeps, promptId: string): Promise<PromptView | null> {
  const p = await getPrompt(depsOf(deps).db, promptId);
  return p ? toPromptView(p) : null;
}

/** A session's prompts, newest first; `open`: those whose CLI dialog may still be open. */
export async function listSessionPrompts(deps: ServiceDeps, sessionId: string, o: { open?: boolean; limit?: number } = {}): Promise<PromptView[]> {
  return (await listPrompts(depsOf(deps).db, sessionId, o)).map(toPromptView);
}
