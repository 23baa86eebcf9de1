import { open, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CodexJournal } from '../journal/codex-journal.ts';
import { permissionModeOf } from '@bria/core/protocol';
import { asObject, asString } from '../journal/types.ts';
import { detectBlockingPrompt, isAtPrompt, sessionIdFromStatus } from './screen.ts';
import { codexTextAfterImages, typeCodexWithImages } from './image-paste.ts';
import { typeCodexPrompt } from './type-prompt.ts';
import type { Env, ExecutorDriver, JournalReader, PermissionMode } from './types.ts';

export function codexHome(env: Env): string {
  return env.CODEX_HOME ?? join(env.HOME ?? '/', '.codex');
}

// Always stated: the user's config.toml must not make the session run in another mode than the one
// Bria shows. 0.171 takes `-a on-request|never` only (`untrusted` is refused).
function permissionArgs(mode: PermissionMode): string[] {
  const m = permissionModeOf('codex', mode);
  switch (m) {
    case 'workspace-write':
    case 'read-only':
      return ['-a', 'on-request', '-s', m];
    case 'full-access':
      return ['-a', 'never', '-s', 'danger-full-access'];
    default:
      return m satisfies never;
  }
}

function modelArgs(model: string | undefined): string[] {
  return model ? ['-m', model] : [];
}

/** First line of a rollout: its session_meta payload. */
export async function readSessionMeta(path: string): Promise<Record<string, unknown> | null> {
  const handle = await open(path, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const buf = Buffer.alloc(512 * 1024);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const nl = buf.subarray(0, bytesRead).indexOf(10);
    if (nl < 0) return null;
    const rec = asObject(JSON.parse(buf.subarray(0, nl).toString('utf8')));
    return rec?.type === 'session_meta' ? asObject(rec.payload) : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

async function findRolloutFiles(home: string, nativeId: string): Promise<string[]> {
  const root = join(home, 'sessions');
  const names = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith(`-${nativeId}.jsonl`)).map((n) => join(root, n));
}

class CodexReader extends CodexJournal implements JournalReader {
  statedIds(): string[] {
    return this.meta ? [this.meta.id] : [];
  }
}

export const codexDriver: ExecutorDriver = {
  executor: 'codex',
  chooseNativeId: () => null,
  // Without --no-daemon, /exit only detaches from a background server that keeps running the session.
  // Bria's hooks come as `-c` overrides of this run only (../hooks, docs/hooks-channel.md): the
  // user's config.toml and hooks.json are not touched and their hooks keep running.
  startArgs: ({ cwd, permissionMode, model, codexHooks }) => [
    '--no-daemon',
    '-C',
    cwd,
    ...permissionArgs(permissionMode),
    ...modelArgs(model),
    ...(codexHooks ?? []),
  ],
  // The id comes after `--`, so it can never be read as an option.
  resumeArgs: ({ nativeId, cwd, permissionMode, model, codexHooks }) => [
    'resume',
    '--no-daemon',
    '-C',
    cwd,
    ...permissionArgs(permissionMode),
    ...modelArgs(model),
    ...(codexHooks ?? []),
    '--',
    nativeId,
  ],
  codexHooks: true,
  // Codex paints its idle composer before `resume <unknown id>` fails about a second later, and for
  // about 300 ms before its folder-trust dialog replaces it (observed in 0.171.0): an Enter typed in
  // that window would answer the dialog with its default, "Trust and continue".
  settleMs: { start: 1200, resume: 1500 },

  // The id is only stated by the TUI itself before the first message: `/status` prints it.
  async readNativeId(ctx) {
    const screen = await ctx.tmux.capture(ctx.paneId);
    if (!isAtPrompt(screen) || detectBlockingPrompt(screen)) return { nativeId: null, evidence: 'not at an idle prompt' };
    await ctx.tmux.paste(ctx.paneId, '/status');
    for (let i = 0; i < 40; i++) {
      await sleep(100);
      const id = sessionIdFromStatus(await ctx.tmux.capture(ctx.paneId, { scrollback: 300 }));
      if (id) return { nativeId: id, evidence: '/status screen' };
    }
    return { nativeId: null, evidence: '/status screen showed no session id' };
  },

  // Codex also opens older rollouts, so a file only counts when its own session_meta names this id,
  // this folder and (for a new session) a start time not before ours.
  async findJournal(ctx, nativeId, { resumed }) {
    const cwd = await realpath(ctx.cwd).catch(() => ctx.cwd);
    for (const path of await findRolloutFiles(codexHome(ctx.env), nativeId)) {
      const meta = await readSessionMeta(path);
      if (!meta || asString(meta.id) !== nativeId) continue;
      const metaCwd = asString(meta.cwd);
      if (metaCwd !== cwd && metaCwd !== ctx.cwd) continue;
      const ts = Date.parse(asString(meta.timestamp) ?? '');
      if (!resumed && !(ts >= ctx.startedAt - 2000)) continue;
      return path;
    }
    return null;
  },

  createJournal: () => new CodexReader(),
  submitPrompt: typeCodexPrompt,
  // Codex trims the composer text: the spaces Bria types around the text are not stored, and a text
  // with outer whitespace of its own is refused by the hub. A text stored before that rule existed
  // is still recognised by its trimmed form.
  promptMatches: (stored, sent) => stored === sent || stored === sent.trim(),
  images: { submit: typeCodexWithImages, textAfter: codexTextAfterImages },
  idleStatus: async () => null,
};

export { findRolloutFiles };
