import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { claudeProjectDirName } from '../executors/claude-driver.ts';
import { findRolloutFiles } from '../executors/codex-driver.ts';
import { claudeConfigDir, codexHome, type Env } from '../executors/index.ts';
import { journalHoldsConversation } from './journal-content.ts';
import type { SessionRecord } from './registry.ts';

/**
 * Whether the CLI's own store holds a conversation under this session's native id. Both CLIs create
 * that file with the first submitted message, not at start (Claude: `projects/<cwd>/<id>.jsonl`;
 * Codex: `sessions/…/rollout-…-<id>.jsonl`), so for a CLI whose process is gone, no file — or one
 * holding no conversation — means no prompt was ever submitted under this id and nothing reached a
 * model. `null` when it cannot be told (no identity or id recorded): the caller then assumes one.
 */
export async function nativeConversationOnDisk(rec: SessionRecord, env: Env): Promise<boolean | null> {
  const id = rec.identity;
  if (!id?.nativeId) return null;
  const candidates = new Set<string>();
  if (id.journalPath) candidates.add(id.journalPath);
  if (rec.executor === 'claude') {
    for (const cwd of new Set([id.cwd, rec.folder])) {
      for (const dir of new Set([cwd, await realpath(cwd).catch(() => cwd)])) {
        candidates.add(path.join(claudeConfigDir(env), 'projects', claudeProjectDirName(dir), `${id.nativeId}.jsonl`));
      }
    }
  } else {
    for (const file of await findRolloutFiles(codexHome(env), id.nativeId)) candidates.add(file);
  }
  return [...candidates].some((file) => existsSync(file) && journalHoldsConversation(file));
}
