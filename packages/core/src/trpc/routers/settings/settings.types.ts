import { z } from 'zod';
import { zIsoDateOrNull } from '../zod-shared.ts';

export const zLifetime = z.enum(['never', '6h', '12h', '24h', '48h']);
/** Telegram user ids are 64-bit: they travel as decimal strings. */
const zTelegramUserId = z
  .string()
  .trim()
  .regex(/^[1-9]\d{0,18}$/, 'a positive integer id');

export const ZSettingsView = z.object({
  lifetime: zLifetime,
  resumeRecommendations: z.boolean(),
  allowedTelegramUsers: z.array(z.bigint().transform((u) => u.toString())),
  updatedAt: zIsoDateOrNull,
});
export const ZUpdateSettingsRequest = z.object({
  lifetime: zLifetime.optional(),
  resumeRecommendations: z.boolean().optional(),
  allowedTelegramUsers: z.array(zTelegramUserId).max(50).optional(),
});
