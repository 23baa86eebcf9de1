import { type AlwaysAllowRefusal, alwaysAllowOffer, answerFits } from '@bria/core/protocol';

/**
 * What the hook prints for an answer, and which answers a request takes (pure). The output shapes are
 * those of Claude Code 2.1.197 and Codex 0.171 (docs/cli-facts.md, "Hook answers"); the always-allow
 * and question shapes are Claude's and checked in permission-answers-claude.test.ts.
 */

/** Which CLI asked; written into the hook command by the settings writer. */
export type HookExecutor = 'claude' | 'codex';

export interface PermissionAnswer {
  behavior: 'allow' | 'deny';
  /** Deny only: reaches the model as the tool's error result. */
  message?: string;
  /**
   * Allow only, Claude tool requests only: also allow matching calls for the rest of the CLI
   * session (a `session` rule, see `alwaysAllowRule`); Codex has no such answer from a hook.
   */
  alwaysAllow?: boolean;
  /**
   * Allow only, question requests only (Claude `AskUserQuestion`): the answer per question text;
   * several labels of a multi-select question as an array (given to Claude joined by ", ").
   */
  answers?: Record<string, string | string[]>;
}

/** The request facts the answer rules read. */
export interface AnsweredRequest {
  executor: HookExecutor;
  kind: 'tool' | 'question';
  toolName: string | null;
  toolInput: unknown;
}

/** Tool names that are the agent asking the user, per CLI (Codex: if it ever sends one here). */
const QUESTION_TOOLS = new Set(['AskUserQuestion', 'request_user_input']);

export function requestKind(toolName: string | null): 'tool' | 'question' {
  return toolName !== null && QUESTION_TOOLS.has(toolName) ? 'question' : 'tool';
}

/**
 * The session rule an always-allow adds (Claude `updatedPermissions` `addRules`, destination
 * `session`), or why none is offered: core's `alwaysAllowOffer` (the exact Bash command; never an
 * interpreter, a wrapper or a compound command; no other tool). The buttons name the same rule.
 */
export function alwaysAllowRule(
  r: Pick<AnsweredRequest, 'executor' | 'kind' | 'toolName' | 'toolInput'>,
): { toolName: string; ruleContent: string } | AlwaysAllowRefusal {
  const d = alwaysAllowOffer(r);
  return d.ok ? d.offer.rule : d.reason;
}

/** Why an answer cannot be given to this request (core's `answerFits`, in words), or null when it fits. */
export function answerRefusal(r: AnsweredRequest, a: PermissionAnswer): string | null {
  const rule = alwaysAllowRule(r);
  const target = {
    alwaysAllow: typeof rule === 'object',
    answers: r.kind === 'question' && r.executor === 'claude',
  };
  const misfit = answerFits(target, { allow: a.behavior === 'allow', alwaysAllow: a.alwaysAllow === true, answers: a.answers !== undefined });
  switch (misfit) {
    case null:
      return null;
    case 'always_allow_not_allow':
      return 'always-allow is an allow';
    case 'always_allow_not_offered':
      return r.executor !== 'claude'
        ? `${r.executor} takes no always-allow from a hook`
        : r.kind !== 'tool'
          ? 'always-allow is for tool requests'
          : `no always-allow for this request (${String(rule)})`;
    case 'answers_need_allow':
      return 'answers are given with allow';
    case 'answers_not_taken':
      return 'answers are for Claude questions';
    default:
      return misfit satisfies never;
  }
}

/** The answer as the log keeps it: a message only with a deny, the flags only when set. */
export function cleanAnswer(answer: PermissionAnswer): PermissionAnswer {
  const clean: PermissionAnswer = { behavior: answer.behavior };
  if (answer.behavior === 'deny' && answer.message) clean.message = answer.message;
  if (answer.alwaysAllow) clean.alwaysAllow = true;
  if (answer.answers) clean.answers = answer.answers;
  return clean;
}

/** The hook's stdout for an answer; `request` is the record the answer is for. */
export function permissionHookOutput(answer: PermissionAnswer, request?: AnsweredRequest): Record<string, unknown> {
  let decision: Record<string, unknown>;
  if (answer.behavior === 'deny') {
    decision = { behavior: 'deny', message: answer.message?.trim() ? answer.message : 'Denied by the user through Bria' };
  } else if (answer.answers && request) {
    const questions = (request.toolInput as { questions?: unknown } | null)?.questions ?? [];
    // Claude takes one string per question; the labels of a multi-select answer are joined by ", "
    // and reach the model as `"<question>"="Cheese, Olives"` (permission-answers-claude.test.ts).
    const answers = Object.fromEntries(Object.entries(answer.answers).map(([q, a]) => [q, Array.isArray(a) ? a.join(', ') : a]));
    decision = { behavior: 'allow', updatedInput: { questions, answers } };
  } else if (answer.alwaysAllow && request && typeof alwaysAllowRule(request) === 'object') {
    const rule = alwaysAllowRule(request);
    decision = { behavior: 'allow', updatedPermissions: [{ type: 'addRules', rules: [rule], behavior: 'allow', destination: 'session' }] };
  } else {
    decision = { behavior: 'allow' };
  }
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
}
