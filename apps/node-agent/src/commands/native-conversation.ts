import { existsSync } from 'node:fs';
import { realpath, rename } from 'node:fs/promises';
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

/** Where Claude keeps the journal of `nativeId` for a CLI started in `folder` (the folder as given and its real path). */
async function claudeJournalPaths(folder: string, nativeId: string, env: Env): Promise<string[]> {
  const dirs = new Set([folder, await realpath(folder).catch(() => folder)]);
  return [...dirs].map((dir) => path.join(claudeConfigDir(env), 'projects', claudeProjectDirName(dir), `${nativeId}.jsonl`));
}

/**
 * Before Claude is started again under the session's own id: a journal of that id which holds no
 * conversation (only the `mode` / `permission-mode` lines a CLI leaves when it ends before its first
 * prompt) is moved aside to `<id>.jsonl.no-conversation-<ms>`. Claude refuses `--session-id` for an
 * id whose journal exists ("Session ID … is already in use.") and refuses `--resume` for one without
 * a conversation ("No conversation found with session ID") — both checked with the pinned CLI — so
 * without this a session whose first CLI died that way could neither start again nor resume
 * (docs/reliability.md). A journal holding anything else is never touched. Returns the files moved.
 */
export async function setAsideEmptyClaudeJournal(folder: string, nativeId: string, env: Env): Promise<string[]> {
  const moved: string[] = [];
  for (const file of await claudeJournalPaths(folder, nativeId, env)) {
    if (!existsSync(file) || journalHoldsConversation(file)) continue;
    const aside = `${file}.no-conversation-${Date.now()}`;
    try {
      await rename(file, aside);
      moved.push(aside);
    } catch {
      // Gone meanwhile, or not ours to move: the start then fails with the CLI's own words.
    }
  }
  return moved;
}
