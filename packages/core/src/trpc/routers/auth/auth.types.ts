import { z } from 'zod';
import { zId } from '../zod-shared.ts';

export const ZMeResponse = z.object({
  user: z.object({ id: zId, name: z.string(), language: z.string().nullable() }).nullable(),
});
export const ZLogoutResponse = z.object({ ok: z.literal(true) });
export const ZSignOutEverywhereResponse = z.object({ ok: z.literal(true), ended: z.number().int().nonnegative() });
