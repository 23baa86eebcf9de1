import { listSessionPrompts } from '../../../services/sessions/answer-prompt.ts';
import { listOpenSessions } from '../../../services/sessions/get-session.ts';
import { authedProcedure } from '../../init.ts';
import { promptWait } from '../../../domain/index.ts';
import { ZListOpenWithPromptsResponse } from './prompts.types.ts';
import { ZNodeRequest } from './sessions.types.ts';

export const listOpenRoute = authedProcedure
  .input(ZNodeRequest)
  .output(ZListOpenWithPromptsResponse)
  .query(async ({ ctx, input }) => {
    const deps = { db: ctx.db };
    const sessions = await listOpenSessions(deps, { nodeId: input.nodeId });
    // One indexed read per open session (sessionId, state): a node has a handful open at once.
    const waits = await Promise.all(sessions.map(async (s) => promptWait(await listSessionPrompts(deps, s.id, { open: true, limit: 20 }))));
    return { sessions: sessions.map((s, i) => ({ ...s, promptWait: waits[i] ?? null })) };
  });
