import { z } from 'zod';
import { ZSessionView } from '../sessions/sessions.types.ts';
import { zExecutor, zId } from '../zod-shared.ts';

export const ZListArchiveRequest = z.object({
  nodeId: zId,
  search: z.string().max(200).optional(),
  executor: zExecutor.optional(),
  /** The last row's id from the previous page (keyset pagination). */
  cursor: zId.nullish(),
  limit: z.number().int().min(1).max(100).optional(),
});
export const ZListArchiveResponse = z.object({ items: z.array(ZSessionView), nextCursor: zId.nullable() });
