import {
  AWAITING_CLI_PROMPT_STATES,
  answeredAtComputer,
  FINAL_PROMPT_STATES,
  OPEN_PROMPT_STATES,
  PROMPT_END_CAUSES,
  type PromptAsked,
  type PromptEnd,
  type PromptEndCause,
  type PromptState,
  promptEventOfEnd,
  promptStateOf,
  promptStatesFor,
  promptTargetOf,
  promptTransition,
} from '../../domain/index.ts';
import type { DbOrTx, Tx } from './sessions.ts';

/** A permission request or question as the front ends show it (PermissionPrompt row). */
export interface PromptRow {
  id: string;
  sessionId: string;
  generation: number;
  kind: string;
  toolName: string;
  toolInput: unknown;
  justification: string | null;
  canAlwaysAllow: boolean;
  state: PromptState;
  answer: unknown;
  answerId: string | null;
  answeredFrom: string | null;
  answeredAt: Date | null;
  receivedAt: Date;
  expiresAt: Date;
  resolvedAt: Date | null;
  resolution: unknown;
}

const select = {
  id: true,
  sessionId: true,
  generation: true,
  kind: true,
  toolName: true,
  toolInput: true,
  justification: true,
  canAlwaysAllow: true,
  state: true,
  answer: true,
  answerId: true,
  answeredFrom: true,
  answeredAt: true,
  receivedAt: true,
  expiresAt: true,
  resolvedAt: true,
  resolution: true,
} as const;

/** Stores a request once by its id (a replayed event is a no-op). Returns whether it is new. */
export async function insertPrompt(tx: Tx, sessionId: string, generation: number, p: PromptAsked, openedSeq: bigint | null = null): Promise<boolean> {
  const r = await tx.permissionPrompt.createMany({
    data: [
      {
        id: p.requestId,
        sessionId,
        generation,
        kind: p.kind,
        toolName: p.toolName,
        toolInput: p.toolInput as object,
        justification: p.justification ?? null,
        canAlwaysAllow: p.canAlwaysAllow,
        receivedAt: new Date(p.receivedAt),
        expiresAt: new Date(p.expiresAt),
        openedSeq,
      },
    ],
    skipDuplicates: true,
  });
  return r.count === 1;
}

/** A row as stored, its state read through the machine's list (the column is text). */
function toRow<T extends { state: string }>(r: T): Omit<T, 'state'> & { state: PromptState } {
  return { ...r, state: promptStateOf(r.state) };
}

/**
 * Applies the agent's report of a request's end as the prompt machine decides it (`promptEventOfEnd`,
 * `promptTransition`); returns the row before and the new state, or null when nothing moved.
 */
export async function resolvePrompt(tx: Tx, sessionId: string, end: PromptEnd, now: Date): Promise<{ before: PromptRow; to: PromptState } | null> {
  const found = await tx.permissionPrompt.findFirst({ where: { id: end.requestId, sessionId }, select });
  if (!found) return null;
  const before = toRow(found);
  const event = promptEventOfEnd(end, before.answerId);
  const to = event === null ? null : promptTransition(before.state, event);
  if (!to) return null;
  // Nobody answered through Bria (or the answer did not reach the hook): the computer did.
  const fromComputer = answeredAtComputer(before.state, to);
  await tx.permissionPrompt.update({
    where: { id: before.id },
    data: {
      state: to,
      resolution: { outcome: end.outcome, at: end.at, ...(end.evidence ? { evidence: end.evidence } : {}) } as object,
      ...(FINAL_PROMPT_STATES.includes(to) ? { resolvedAt: now } : {}),
      ...(fromComputer ? { answeredFrom: 'computer', answeredAt: new Date(end.at) } : {}),
    },
  });
  return { before, to };
}

/**
 * Which open prompts end: `kinds` — start dialogs only, or tool requests and questions only (all
 * when unset); `openedBeforeSeq` — only those the agent reported before that event of its own (a
 * turn's end processed late must not end a later turn's request; docs/reliability.md).
 */
export interface EndPromptsScope {
  kinds?: 'dialogs' | 'requests';
  openedBeforeSeq?: bigint;
}

/**
 * The turn, the CLI, the start or the user's Stop ended the session's prompts in `scope`: every one
 * the machine moves on `cause`'s event (`PROMPT_END_CAUSES`) goes where it says (`ended`).
 */
export async function endOpenPrompts(tx: Tx, sessionId: string, cause: PromptEndCause, now: Date, scope: EndPromptsScope = {}): Promise<PromptRow[]> {
  const event = PROMPT_END_CAUSES[cause];
  const from = promptStatesFor(event);
  const before = scope.openedBeforeSeq === undefined ? {} : { OR: [{ openedSeq: null }, { openedSeq: { lt: scope.openedBeforeSeq } }] };
  const kind = scope.kinds === 'dialogs' ? { kind: 'dialog' } : scope.kinds === 'requests' ? { kind: { not: 'dialog' } } : {};
  const open = (await tx.permissionPrompt.findMany({ where: { sessionId, state: { in: from }, ...kind, ...before }, select })).map(toRow);
  if (open.length === 0) return [];
  const to = promptTargetOf(event);
  await tx.permissionPrompt.updateMany({
    where: { id: { in: open.map((p) => p.id) }, state: { in: from } },
    data: { state: to, ...(FINAL_PROMPT_STATES.includes(to) ? { resolvedAt: now } : {}), resolution: { outcome: 'ended', cause } },
  });
  return open;
}

/** Whether a hook reported a request of the session that still waits for the user (its dialog is on screen). */
export async function hasPendingHookPrompt(tx: Tx, sessionId: string): Promise<boolean> {
  return (await tx.permissionPrompt.count({ where: { sessionId, kind: { in: ['tool', 'question'] }, state: { in: [...AWAITING_CLI_PROMPT_STATES] } } })) > 0;
}

/** Whether a start dialog of the session's CLI of `generation` is offered to the user now. */
export async function hasOpenDialog(tx: Tx, sessionId: string, generation: number): Promise<boolean> {
  return (await tx.permissionPrompt.count({ where: { sessionId, kind: 'dialog', generation, state: { in: [...AWAITING_CLI_PROMPT_STATES] } } })) > 0;
}

/** `Session.openPrompts` recounted from the rows (the queue's hold); call after any prompt change. */
export async function recountOpenPrompts(tx: Tx, sessionId: string): Promise<number> {
  const n = await tx.permissionPrompt.count({ where: { sessionId, state: { in: [...OPEN_PROMPT_STATES] } } });
  await tx.session.update({ where: { id: sessionId }, data: { openPrompts: n } });
  return n;
}

export type PromptAnswer = { decision: 'allow' | 'deny' | 'always_allow' | 'at_computer'; message?: string; answers?: Record<string, string | string[]> };

/** The first answer wins: the machine's `answered` move, only from the state it leaves (`pending`). Returns whether this answer won. */
export async function answerPromptRow(
  tx: Tx,
  p: { id: string; answer: PromptAnswer; answerId: string; from: 'telegram' | 'dashboard' | 'notification'; now: Date },
): Promise<boolean> {
  const r = await tx.permissionPrompt.updateMany({
    where: { id: p.id, state: { in: promptStatesFor('answered') } },
    data: { state: promptTargetOf('answered'), answer: p.answer as object, answerId: p.answerId, answeredFrom: p.from, answeredAt: p.now },
  });
  return r.count === 1;
}

export async function getPrompt(db: DbOrTx, id: string): Promise<PromptRow | null> {
  const r = await db.permissionPrompt.findUnique({ where: { id }, select });
  return r ? toRow(r) : null;
}

/** A session's prompts, newest first (`open`: only those whose dialog may still be open). */
export async function listPrompts(db: DbOrTx, sessionId: string, o: { open?: boolean; limit?: number } = {}): Promise<PromptRow[]> {
  const rows = await db.permissionPrompt.findMany({
    where: { sessionId, ...(o.open ? { state: { in: [...OPEN_PROMPT_STATES] } } : {}) },
    orderBy: { receivedAt: 'desc' },
    take: o.limit ?? 20,
    select,
  });
  return rows.map(toRow);
}
