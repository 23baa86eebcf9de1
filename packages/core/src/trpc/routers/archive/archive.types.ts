import { z } from 'zod';
import { ZSessionView } from '../sessions/sessions.types.ts';
import { zExecutor, zId } from '../zod-shared.ts';

export const ZListArchiveRequest = z.object({
  /** Absent: every computer's archive. */
  nodeId: zId.optional(),
  search: z.string().max(200).optional(),
  executor: zExecutor.optional(),
  /** The last row's id from the previous page (keyset pagination). */
  cursor: zId.nullish(),
  limit: z.number().int().min(1).max(100).optional(),
});
/** `match.snippet`: the matched words are between \u0002 and \u0003 (the page marks them). */
export const ZArchiveItem = ZSessionView.extend({
  match: z.object({ messageId: zId, snippet: z.string() }).nullable(),
  /** The computer it ran on; `removed`: that computer was removed. */
  node: z.object({ name: z.string(), removed: z.boolean() }),
});
export const ZListArchiveResponse = z.object({ items: z.array(ZArchiveItem), nextCursor: zId.nullable() });
