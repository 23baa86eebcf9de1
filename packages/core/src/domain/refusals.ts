import { AppError } from './errors.ts';
import type { AcceptDecision, TransitionRefusal } from './session-machine.ts';

/** A refused transition as the error a service throws when a user intent caused it. */
export function refusalToAppError(refusal: TransitionRefusal): AppError {
  const message = `${refusal.event} refused in ${refusal.state}: ${refusal.code}`;
  switch (refusal.code) {
    case 'STALE_BUTTON':
      return new AppError('STALE_BUTTON', { message });
    case 'STALE_GENERATION':
      return new AppError('STALE_GENERATION', { message });
    case 'ILLEGAL_TRANSITION':
    case 'GUARD_REJECTED':
    case 'STALE_TIMER':
      return new AppError('ILLEGAL_TRANSITION', { message });
    default:
      return refusal.code satisfies never;
  }
}

/** A refused new message as an AppError (the refused input was not stored). */
export function acceptRefusalToAppError(decision: Extract<AcceptDecision, { ok: false }>): AppError {
  return new AppError(decision.code, { message: `message refused in ${decision.state}` });
}
