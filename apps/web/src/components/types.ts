import type { AppRouter } from '@bria/core/trpc';
import type { inferRouterOutputs } from '@trpc/server';

type Out = inferRouterOutputs<AppRouter>;
/** A session as every route returns it (`listOpen` adds `promptWait`). */
export type SessionItem = Omit<Out['sessions']['listOpen']['sessions'][number], 'promptWait'>;
export type SessionDetail = Out['sessions']['get'];
export type ConversationItem = SessionDetail['conversation']['items'][number];
export type EvidenceItem = SessionDetail['evidence'][number];
export type UsagePoint = SessionDetail['usageHistory'][number];
export type Executor = SessionItem['executor'];
export const EXECUTORS = ['claude', 'codex'] as const satisfies readonly Executor[];
export type JournalView = Out['sessions']['journal'];
export type PromptItem = Out['sessions']['prompts']['prompts'][number];
export type QueueWait = NonNullable<SessionDetail['queueWait']>;
