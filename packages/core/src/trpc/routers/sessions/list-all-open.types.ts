import { z } from 'zod';
import { OPEN_SESSION_GROUPS } from '../../../domain/index.ts';
import { zExecutor, zId } from '../zod-shared.ts';
import { zPromptWait } from './prompts.types.ts';
import { ZSessionView } from './sessions.types.ts';

/** Every filter is optional: none means every open session of every computer. */
export const ZListAllOpenRequest = z
  .object({
    nodeId: zId.optional(),
    executor: zExecutor.optional(),
    /** The state as a person reads it (domain/open-sessions.ts), not the machine's states. */
    group: z.enum(OPEN_SESSION_GROUPS).optional(),
  })
  .default({});

export const ZOpenSessionAcross = ZSessionView.extend({ promptWait: zPromptWait, nodeName: z.string(), nodeOnline: z.boolean() });
export const ZListAllOpenResponse = z.object({ sessions: z.array(ZOpenSessionAcross) });
