import { z } from 'zod';
import { PROMPT_END_CAUSES, PROMPT_STATES, type PromptEndCause } from '../../../domain/index.ts';
import { ZSessionView } from './sessions.types.ts';
import { zId, zIsoDate, zIsoDateOrNull } from '../zod-shared.ts';
import { zAnswers } from '../../../protocol/index.ts';

export const zPromptState = z.enum(PROMPT_STATES);
export const zPromptDecision = z.enum(['allow', 'deny', 'always_allow', 'at_computer']);

/** A permission request or question of the CLI, as the dashboard shows it (services PromptView). */
export const ZPromptView = z.object({
  id: zId,
  sessionId: zId,
  kind: z.enum(['tool', 'question', 'dialog']),
  toolName: z.string(),
  /** The CLI's own input of the tool (command, file and edit, questions), bounded by the agent. */
  toolInput: z.record(z.string(), z.unknown()),
  justification: z.string().nullable(),
  canAlwaysAllow: z.boolean(),
  state: zPromptState,
  answer: z.object({ decision: zPromptDecision, message: z.string().optional(), answers: zAnswers.optional() }).nullable(),
  answeredFrom: z.enum(['telegram', 'dashboard', 'notification', 'computer']).nullable(),
  answeredAt: zIsoDateOrNull,
  receivedAt: zIsoDate,
  expiresAt: zIsoDate,
  resolvedAt: zIsoDateOrNull,
  /** Why it ended without its answer reaching a hook (the turn, the CLI, the start — `cli_ready` — the Stop, the archive); null otherwise. */
  endCause: z.enum(Object.keys(PROMPT_END_CAUSES) as [PromptEndCause, ...PromptEndCause[]]).nullable(),
});

export const ZPromptsResponse = z.object({ prompts: z.array(ZPromptView) });

export const ZAnswerPromptRequest = z.object({
  promptId: zId,
  decision: zPromptDecision,
  /** Deny only: the reason the model reads. */
  message: z.string().trim().min(1).max(4000).optional(),
  /** A question only: question text → the chosen label(s) or the user's own text. */
  answers: zAnswers.optional(),
});
export const ZAnswerPromptResponse = z.object({ kind: z.enum(['answered', 'already_answered', 'out_of_date']), prompt: ZPromptView });

/**
 * What an open session waits for because of its CLI's prompts: `answer` while a request is
 * pending (the user decides), `computer` while one waits at the computer (nobody answered in
 * time); null otherwise (an answer on its way is the CLI running on).
 */
export const zPromptWait = z.enum(['answer', 'computer']).nullable();
export const ZListOpenWithPromptsResponse = z.object({ sessions: z.array(ZSessionView.extend({ promptWait: zPromptWait })) });
