import { applyIntent } from './apply-intent.ts';
import type { ServiceDeps, SessionDto } from './session-dto.ts';

/** Stop interrupts the current work only; the session, its queue and context stay. */
export async function stopSession(deps: ServiceDeps, input: { sessionId: string; cardVersion?: number }): Promise<SessionDto> {
  return applyIntent(deps, input.sessionId, { type: 'stop_requested', ...(input.cardVersion === undefined ? {} : { cardVersion: input.cardVersion }) });
}
