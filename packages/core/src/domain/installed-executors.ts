/**
 * The CLIs a computer has, as its agent reported them: every hello lists each CLI with whether its
 * `--version` ran (the hub stores the ones that did not as `missingExecutors`, together with the
 * agent's version). Null until an agent has said hello at all (a computer just added): nothing is
 * known yet, and nothing may be shown as installed.
 */
export function installedExecutors<E extends string>(all: readonly E[], node: { agentVersion: string | null; missingExecutors: readonly E[] }): E[] | null {
  if (node.agentVersion === null) return null;
  return all.filter((e) => !node.missingExecutors.includes(e));
}
