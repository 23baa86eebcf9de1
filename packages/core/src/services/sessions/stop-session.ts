import { applyIntent } from '../../engine/step/apply-intent.ts';
import { depsOf, type ServiceDeps, type SessionDto, toSessionDto } from './session-dto.ts';

/** Stop interrupts the current work only; the session, its queue and context stay. */
export async function stopSession(deps: ServiceDeps, input: { sessionId: string; cardVersion?: number }): Promise<SessionDto> {
  return toSessionDto(
    await applyIntent(depsOf(deps), input.sessionId, {
      type: 'stop_requested',
      ...(input.cardVersion === undefined ? {} : { cardVersion: input.cardVersion }),
    }),
  );
}
