import { DiscoveryIndex } from './discovery-index.ts';
import type { ScanResult } from './session-types.ts';

export interface ScanSessionsOptions {
  claudeHome: string | null;
  codexHome: string | null;
  /** An index to reuse, or a directory for its state file; without it every call reads everything. */
  state?: DiscoveryIndex | string;
}

/** Lists every native Claude Code and Codex session on this computer, whoever started it. */
export async function scanSessions(options: ScanSessionsOptions): Promise<ScanResult> {
  const index =
    options.state instanceof DiscoveryIndex
      ? options.state
      : new DiscoveryIndex({ claudeHome: options.claudeHome, codexHome: options.codexHome, stateDir: options.state ?? null });
  const result = await index.scan();
  index.save();
  return result;
}
