// Which releases of each CLI this Bria was verified with: the real-CLI executor and hooks suites
// passed against them (README, "Verified CLI versions"; docs/cli-versions.md; a test keeps the two
// tables equal). Another version is never refused: the agent warns and the dashboard says so.
// Pure and import-free (the agent reaches it through core/protocol).

export type CliExecutor = 'claude' | 'codex';

/** Oldest first; the last one is the version pinned in package.json. */
export const VERIFIED_CLI_VERSIONS = {
  claude: ['2.1.195', '2.1.196', '2.1.197'],
  codex: ['0.169.0', '0.169.1', '0.171.0'],
} as const satisfies Record<CliExecutor, readonly string[]>;

export const CLI_NAMES = { claude: 'Claude Code', codex: 'Codex' } as const satisfies Record<CliExecutor, string>;

/** The `x.y.z[-suffix]` in a CLI's `--version` output ("2.1.197 (Claude Code)", "codex-cli 0.171.0"); null when there is none. */
export function parseCliVersion(output: string): string | null {
  return /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/.exec(output)?.[1] ?? null;
}

/** Numeric comparison of the `x.y.z` parts (a suffix is ignored here); negative when a < b. */
export function compareCliVersions(a: string, b: string): number {
  const parts = (v: string) => (v.split('-')[0] ?? '').split('.').map((n) => Number(n) || 0);
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export type CliVersionVerdict =
  | { kind: 'verified'; version: string }
  /** `relation`: to the verified ones (`between`: inside their range but not one of them, or a suffixed build of one). */
  | { kind: 'unverified'; version: string; relation: 'newer' | 'older' | 'between'; verified: readonly string[] }
  /** The output named no version. */
  | { kind: 'unknown'; verified: readonly string[] };

/** Is this `--version` output (or bare version) one Bria was verified with, and if not, newer or older? */
export function cliVersionVerdict(
  executor: CliExecutor,
  output: string,
  table: Record<CliExecutor, readonly string[]> = VERIFIED_CLI_VERSIONS,
): CliVersionVerdict {
  const verified = table[executor];
  const version = parseCliVersion(output);
  if (version === null) return { kind: 'unknown', verified };
  if (verified.includes(version)) return { kind: 'verified', version };
  const newest = verified[verified.length - 1];
  const oldest = verified[0];
  const relation = newest && compareCliVersions(version, newest) > 0 ? 'newer' : oldest && compareCliVersions(version, oldest) < 0 ? 'older' : 'between';
  return { kind: 'unverified', version, relation, verified };
}

/** The English sentence for logs: "Claude Code 2.1.300 — not verified with this Bria; verified: 2.1.195, …". Null when verified. */
export function cliVersionWarning(executor: CliExecutor, verdict: CliVersionVerdict): string | null {
  switch (verdict.kind) {
    case 'verified':
      return null;
    case 'unverified':
      return `${CLI_NAMES[executor]} ${verdict.version} — not verified with this Bria (${verdict.relation} than the verified ones); verified: ${verdict.verified.join(', ')}`;
    case 'unknown':
      return `${CLI_NAMES[executor]} — its version could not be read, so it is not verified with this Bria; verified: ${verdict.verified.join(', ')}`;
    default:
      return verdict satisfies never;
  }
}

/**
 * What the hub stores from a hello (Node `executorVersions`): `<executor>:<version>` per runnable CLI,
 * the number of its `--version` line, or the line itself when it names none.
 */
export function executorVersions(executors: readonly { executor: CliExecutor; available: boolean; version?: string | undefined }[]): string[] {
  return executors.filter((e) => e.available && e.version).map((e) => `${e.executor}:${parseCliVersion(e.version ?? '') ?? e.version}`);
}

/** The stored version of one CLI (see `executorVersions`); null when the hello named none. */
export function storedCliVersion(stored: readonly string[], executor: CliExecutor): string | null {
  const hit = stored.find((s) => s.startsWith(`${executor}:`));
  return hit === undefined ? null : hit.slice(executor.length + 1);
}
