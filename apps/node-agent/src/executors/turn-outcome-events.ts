import type { TurnOutcome } from '../journal/types.ts';
import type { HostEvent } from './types.ts';

/**
 * The host events a turn's journal outcome means, in the order they are sent; null while the turn
 * is still pending. A follow-up (Codex folds a message typed during a running turn into that turn)
 * shares the main request's outcome: it gets only `completed`, and the final goes to the main one.
 */
export function turnOutcomeEvents(o: TurnOutcome, messageId: string, followUpOf: string | null): HostEvent[] | null {
  switch (o.state) {
    case 'pending':
      return null;
    case 'completed':
      if (followUpOf !== null) return [{ type: 'completed', messageId, evidence: { ...o.evidence, followUpOf } }];
      return [
        ...(o.usage ? [{ type: 'usage', messageId, usage: o.usage, evidence: o.evidence } as const] : []),
        { type: 'final', messageId, text: o.finalText, evidence: o.evidence },
        { type: 'completed', messageId, evidence: o.evidence },
      ];
    case 'api_error':
      return [{ type: 'api_error', messageId, errorText: o.errorText, evidence: o.evidence }];
    case 'interrupted':
      return [{ type: 'interrupted', messageId, reason: o.reason, evidence: o.evidence }];
    case 'unknown':
      return [{ type: 'unknown', messageId, reason: o.reason, evidence: { records: o.evidence } }];
    default: {
      const unexpected: never = o;
      throw new Error(`unexpected turn outcome ${JSON.stringify(unexpected)}`);
    }
  }
}
