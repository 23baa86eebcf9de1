/**
 * Whether a node's agent is older than the bundle this server hands out. A bundled agent reports
 * `<package version>-<content hash>` (scripts/build-agent.ts); an agent run from a checkout
 * (`npm run agent`, the launcher's own agent) reports the bare package version. A bundled agent
 * is outdated when its version differs from the bundle's at all (same package version, other
 * code); one run from a checkout only when its package version differs, since its code is the
 * checkout's and no hash names it. Nothing is known without both versions.
 */
export function agentOutdated(agentVersion: string | null, bundleVersion: string | null): boolean {
  if (!agentVersion || !bundleVersion) return false;
  if (BUNDLED.test(agentVersion)) return agentVersion !== bundleVersion;
  return agentVersion !== packageVersion(bundleVersion);
}

const BUNDLED = /-[0-9a-f]{8}$/;

/** `0.1.0-1a2b3c4d` → `0.1.0`; a version without a content hash is returned as it is. */
export function packageVersion(version: string): string {
  return version.replace(BUNDLED, '');
}
