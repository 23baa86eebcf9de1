import { transition } from '../session-machine.ts';
import type { SessionEffect, SessionEvent, SessionSnapshot } from '../session-types.ts';

export interface Step {
  /** An event, or one built from the current snapshot (agent facts carry its generation). */
  event: SessionEvent | ((s: SessionSnapshot) => SessionEvent);
  at: Date;
  /** Queue summary to present to the machine before this event (services recompute it). */
  queue?: SessionSnapshot['queue'];
}

/** Applies events in order as a service would; throws on any refusal so scenarios fail loudly. */
export function run(start: SessionSnapshot, steps: Step[]): { snapshot: SessionSnapshot; effects: SessionEffect[][] } {
  let snapshot = start;
  const effects: SessionEffect[][] = [];
  for (const step of steps) {
    const input = step.queue ? { ...snapshot, queue: step.queue } : snapshot;
    const event = typeof step.event === 'function' ? step.event(input) : step.event;
    const r = transition(input, event, step.at);
    if (!r.ok) throw new Error(`refused ${event.type} in ${snapshot.state}: ${r.refusal.code}`);
    snapshot = { ...r.next, version: r.next.version + 1 };
    effects.push(r.effects);
  }
  return { snapshot, effects };
}

export const commands = (fx: SessionEffect[]) => fx.flatMap((e) => (e.type === 'send_command' ? [e.kind] : []));
export const notices = (fx: SessionEffect[]) => fx.flatMap((e) => (e.type === 'notify' ? [e.kind] : []));
export const queueOps = (fx: SessionEffect[]) => fx.flatMap((e) => (e.type === 'queue' ? [e.op] : []));

type AgentType = Extract<SessionEvent, { generation: number }>['type'];
/** An agent fact reported under the session's current observer generation. */
export function fact<T extends AgentType>(type: T, extra: Omit<Extract<SessionEvent, { type: T }>, 'type' | 'generation'> = {} as never) {
  return (s: SessionSnapshot) => ({ type, generation: s.observerGeneration, ...extra }) as SessionEvent;
}
