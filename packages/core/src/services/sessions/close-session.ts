import { applyIntent } from '../../engine/step/apply-intent.ts';
import { depsOf, type ServiceDeps, type SessionDto, toSessionDto } from './session-dto.ts';

/**
 * Close when no work runs. The session is Archived only after the agent verified the process is
 * gone AND the archive record is committed; this call only starts that (state Closing).
 */
export async function closeSession(deps: ServiceDeps, input: { sessionId: string; cardVersion?: number }): Promise<SessionDto> {
  return toSessionDto(
    await applyIntent(depsOf(deps), input.sessionId, {
      type: 'close_requested',
      ...(input.cardVersion === undefined ? {} : { cardVersion: input.cardVersion }),
    }),
  );
}
