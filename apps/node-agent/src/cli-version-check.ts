import { cliVersionVerdict, cliVersionWarning } from '@bria/core/protocol';
import type { ExecutorProbe } from './agent.ts';
import type { AgentLog } from './log.ts';

/**
 * Each runnable CLI whose `--version` is not one Bria was verified with (core `VERIFIED_CLI_VERSIONS`)
 * gets one warning line; nothing is refused. The hub learns the version from the hello and the
 * dashboard's computer card says the same.
 */
export function warnUnverifiedClis(log: AgentLog, probes: readonly ExecutorProbe[]): void {
  for (const p of probes) {
    if (!p.available) continue;
    const verdict = cliVersionVerdict(p.executor, p.version ?? '');
    const warning = cliVersionWarning(p.executor, verdict);
    if (warning === null) continue;
    log('warn', 'agent.cli_version_unverified', {
      executor: p.executor,
      version: verdict.kind === 'unverified' ? verdict.version : null,
      relation: verdict.kind === 'unverified' ? verdict.relation : 'unknown',
      verified: verdict.kind === 'verified' ? [] : [...verdict.verified],
      warning,
    });
  }
}
