import { newestActivityFirst, openSessionGroup } from '../../../domain/index.ts';
import { listSessionPrompts } from '../../../services/sessions/answer-prompt.ts';
import { listOpenSessionsAcross } from '../../../services/sessions/get-session.ts';
import { authedProcedure } from '../../init.ts';
import { promptWait } from '../../../domain/index.ts';
import { ZListAllOpenRequest, ZListAllOpenResponse } from './list-all-open.types.ts';

/**
 * Every open session on every computer in one call (home and its filters): its computer, agent,
 * folder, state, last activity and current activity, newest activity first.
 */
export const listAllOpenRoute = authedProcedure
  .input(ZListAllOpenRequest)
  .output(ZListAllOpenResponse)
  .query(async ({ ctx, input }) => {
    const deps = { db: ctx.db };
    const sessions = await listOpenSessionsAcross(deps, { nodeId: input.nodeId, executor: input.executor });
    // One indexed read per open session (sessionId, state): a person has tens open at most.
    const waits = await Promise.all(sessions.map(async (s) => promptWait(await listSessionPrompts(deps, s.id, { open: true, limit: 20 }))));
    const withWait = sessions.map((s, i) => ({ ...s, promptWait: waits[i] ?? null }));
    const kept = input.group ? withWait.filter((s) => openSessionGroup(s) === input.group) : withWait;
    return { sessions: newestActivityFirst(kept) };
  });
