import { RECOVERABLE_STATES } from './session-types.ts';
import { tableEdges } from './session-machine.ts';

/**
 * The state diagram, generated from SESSION_TABLE. Self-loops are left out of the picture (they
 * are listed in README's table); `previous` fans out to every state AwaitingRecovery can return to.
 */
export function toMermaid(): string {
  const lines = ['stateDiagram-v2', '  [*] --> Starting: create', '  [*] --> Archived: discovered'];
  const seen = new Set<string>();
  for (const e of tableEdges()) {
    const targets = e.to === 'previous' ? [...RECOVERABLE_STATES] : [e.to];
    for (const to of targets) {
      if (to === e.from) continue;
      const label = e.to === 'previous' ? `${e.event} (previous)` : e.guard ? `${e.event} [${e.guard}]` : e.event;
      const line = `  ${e.from} --> ${to}: ${label}`;
      if (!seen.has(line)) lines.push(line);
      seen.add(line);
    }
  }
  return lines.join('\n');
}

/** Every legal self-loop as `State: event [guard]`, for README's list. */
export function selfLoops(): string[] {
  return tableEdges()
    .filter((e) => e.to === e.from)
    .map((e) => `${e.from}: ${e.event}${e.guard ? ` [${e.guard}]` : ''}`);
}
