import { z } from 'zod';

/** Dates leave the API as ISO strings, so clients need no transformer. */
export const zIsoDate = z.date().transform((d) => d.toISOString());
export const zIsoDateOrNull = z
  .date()
  .nullable()
  .transform((d) => (d ? d.toISOString() : null));
export { zExecutor } from '../../protocol/messages.ts';
export const zId = z.uuid();

/** Tokens the four kinds apart (issue 33). */
export const zTokenCounts = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() });
/** What holds a session's next message for limits or money (`spendHold`, domain/spend-gate.ts). */
export const zSpendHold = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('usage_limit'), resetsAt: zIsoDate }),
  z.object({ kind: z.literal('budget_reached'), scope: z.enum(['session', 'day']), budgetUsd: z.number(), spentUsd: z.number() }),
]);
