import { z } from 'zod';
import { zExecutor, zId, zIsoDate, zIsoDateOrNull, zTokenCounts } from '../zod-shared.ts';

const zSpend = z.object({ tokens: zTokenCounts, turns: z.number().int(), costUsd: z.number(), unpricedTokens: z.number() });
const zPrice = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() });

export const ZUsageSummaryRequest = z.object({ days: z.number().int().min(1).max(90).default(30) });
export const zUsageLimit = z.object({
  nodeId: zId,
  nodeName: z.string(),
  executor: zExecutor,
  account: z.string(),
  reached: z.boolean(),
  resetsAt: zIsoDateOrNull,
  windows: z.array(z.object({ name: z.string(), usedPercent: z.number(), windowMinutes: z.number().optional(), resetsAt: z.number().optional() })),
  text: z.string().nullable(),
  observedAt: zIsoDate,
});
export const ZUsageLimitsResponse = z.object({ limits: z.array(zUsageLimit) });

export const ZUsageSummaryResponse = z.object({
  from: zIsoDate,
  to: zIsoDate,
  days: z.array(zSpend.extend({ day: z.string(), nodeId: zId })),
  nodes: z.array(z.object({ id: zId, name: z.string() })),
  sessions: z.array(zSpend.extend({ sessionId: zId, nodeId: zId, executor: zExecutor, title: z.string().nullable(), lastAt: zIsoDate })),
  totals: zSpend,
  today: zSpend,
  limits: z.array(zUsageLimit),
  budgets: z.object({ sessionUsd: z.number().nullable(), dayUsd: z.number().nullable() }),
  unpricedModels: z.array(z.string()),
});

export const ZUsageSettingsView = z.object({
  priceOverrides: z.record(z.string(), zPrice),
  budgetSessionUsd: z.number().nullable(),
  budgetDayUsd: z.number().nullable(),
  prices: z.object({ asOf: z.string(), source: z.string(), table: z.record(z.string(), zPrice), overrides: z.record(z.string(), zPrice) }),
});
/** Prices as JSON text (model → { input, output, cacheRead, cacheWrite } per million tokens), checked by the service. */
export const ZUpdateUsageSettingsRequest = z.object({
  priceOverrides: z.record(z.string(), z.unknown()).optional(),
  budgetSessionUsd: z.number().nullable().optional(),
  budgetDayUsd: z.number().nullable().optional(),
});
