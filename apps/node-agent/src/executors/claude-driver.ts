import { randomUUID } from 'node:crypto';
import { access, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClaudeJournal } from '../journal/claude-journal.ts';
import { permissionModeOf } from '@bria/core/protocol';
import { asObject, asString } from '../journal/types.ts';
import { claudeTextAfterImages, typeClaudeWithImages } from './image-paste.ts';
import { typeClaudePrompt } from './type-prompt.ts';
import type { DriverContext, Env, ExecutorDriver, JournalReader, PermissionMode } from './types.ts';

export function claudeConfigDir(env: Env): string {
  return env.CLAUDE_CONFIG_DIR ?? join(env.HOME ?? '/', '.claude');
}

function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Claude's project folder name for a cwd: every non-alphanumeric char becomes '-', long names get a hash. */
export function claudeProjectDirName(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= 200) return name;
  return `${name.slice(0, 200)}-${Math.abs(javaStringHash(cwd)).toString(36)}`;
}

// Always stated, `default` too: the user's own `permissions.defaultMode` must not make the session
// run in another mode than the one Bria shows.
function permissionArgs(mode: PermissionMode): string[] {
  return ['--permission-mode', permissionModeOf('claude', mode)];
}

function modelArgs(model: string | undefined): string[] {
  return model ? ['--model', model] : [];
}

// `--settings <file>` adds to the user's own settings (their hooks keep running; verified in
// ../hooks/permission-hooks-claude.test.ts); one argument, so the path can never read as an option.
function settingsArgs(settingsPath: string | undefined): string[] {
  return settingsPath ? [`--settings=${settingsPath}`] : [];
}

async function liveSessionFile(ctx: DriverContext): Promise<Record<string, unknown> | null> {
  const path = join(claudeConfigDir(ctx.env), 'sessions', `${ctx.cliPid}.json`);
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    return asObject(JSON.parse(text));
  } catch {
    return null;
  }
}

class ClaudeReader extends ClaudeJournal implements JournalReader {
  statedIds(): string[] {
    return [...this.sessionIds];
  }
}

export const claudeDriver: ExecutorDriver = {
  executor: 'claude',
  chooseNativeId: () => randomUUID(),
  startArgs: ({ nativeId, permissionMode, model, settingsPath }) => {
    if (!nativeId) throw new Error('Claude sessions need an id chosen up front');
    return ['--session-id', nativeId, ...permissionArgs(permissionMode), ...modelArgs(model), ...settingsArgs(settingsPath)];
  },
  // One argument `--resume=<id>`: the id can never be read as an option of its own.
  resumeArgs: ({ nativeId, permissionMode, model, settingsPath }) => [
    `--resume=${nativeId}`,
    ...permissionArgs(permissionMode),
    ...modelArgs(model),
    ...settingsArgs(settingsPath),
  ],
  hookSettings: true,
  settleMs: { start: 0, resume: 0 },

  // The live registry `<config>/sessions/<pid>.json` is written by the CLI for its own pid, at
  // about the time the prompt shows.
  async readNativeId(ctx) {
    for (let i = 0; i < 30; i++) {
      const id = asString((await liveSessionFile(ctx))?.sessionId);
      if (id) return { nativeId: id, evidence: `sessions/${ctx.cliPid}.json` };
      await sleep(100);
    }
    return { nativeId: null, evidence: `sessions/${ctx.cliPid}.json missing` };
  },

  async readNativeIdPassive(ctx) {
    return asString((await liveSessionFile(ctx))?.sessionId);
  },

  // The file appears with the first message of a new session; a resumed one must already have it.
  async findJournal(ctx, nativeId, { resumed }) {
    const cwd = await realpath(ctx.cwd).catch(() => ctx.cwd);
    const path = join(claudeConfigDir(ctx.env), 'projects', claudeProjectDirName(cwd), `${nativeId}.jsonl`);
    if (
      resumed &&
      !(await access(path).then(
        () => true,
        () => false,
      ))
    )
      return null;
    return path;
  },

  createJournal: () => new ClaudeReader(),
  submitPrompt: typeClaudePrompt,
  // Claude's input box turns every pasted tab into four spaces (observed in 2.1.197); that fixed
  // rewrite is the only difference accepted between what Bria pasted and what the journal holds.
  promptMatches: (stored, sent) => stored === sent || stored === sent.replaceAll('\t', '    '),
  images: { submit: typeClaudeWithImages, textAfter: claudeTextAfterImages },

  async idleStatus(ctx) {
    const live = await liveSessionFile(ctx);
    const status = asString(live?.status);
    if (!status) return null;
    const updatedAt = typeof live?.statusUpdatedAt === 'number' ? live.statusUpdatedAt : null;
    return { idle: status === 'idle', updatedAt, evidence: `sessions/${ctx.cliPid}.json status=${status} at ${String(updatedAt)}` };
  },
};
