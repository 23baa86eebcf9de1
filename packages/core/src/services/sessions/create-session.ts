import { randomUUID } from 'node:crypto';
import { AppError, folderRefusal, newSession } from '../../domain/index.ts';
import { sessionChoices } from './session-choices.ts';
import { recordEvidence } from '../../db/repos/evidence.ts';
import { insertSession, setActiveSessionId } from '../../db/repos/sessions.ts';
import { readSettings } from '../../db/repos/settings.ts';
import { scheduleTimer } from '../../db/repos/timers.ts';
import { sendSessionCommand } from '../../engine/step/session-commands.ts';
import { createWorktreeOnNode, headAtStart } from '../git/create-worktree.ts';
import { depsOf, type ServiceDeps, type SessionDto, toSessionDto } from './session-dto.ts';
import { notifyEffect } from '../../engine/step/session-notices.ts';
import { withSessionTx } from '../../engine/step/step-context.ts';

export interface CreateSessionInput {
  nodeId: string;
  /** Optional when exactly one executor is enabled on the node (it is picked). */
  executor?: 'claude' | 'codex';
  folder: string;
  /** One of the executor's modes (protocol/session-choices.ts); absent = the node's default for it. */
  permissionMode?: string;
  /** The CLI's model; absent or empty = the CLI's own default. */
  model?: string | null;
  /** The Telegram chat asking: the new session becomes its active session on that node. */
  chatId?: bigint;
  /** The session's title as the user typed it (its worktree's branch is named from it). */
  title?: string | null;
  /**
   * "In its own worktree": `git worktree add` on a new branch (docs/worktrees.md) from the folder's
   * repository before the session is stored; the worktree becomes the session's folder, so the CLI
   * starts and every resume runs there.
   */
  worktree?: { branch: string };
}

/**
 * Creates a session and its `start_session` command in one transaction, before anything is sent:
 * the hub only ever sends what is already stored, so a crash cannot leave a process without a record.
 */
export async function createSession(deps: ServiceDeps, input: CreateSessionInput): Promise<SessionDto> {
  const { db, clock, log } = depsOf(deps);
  const node = await db.node.findUnique({
    where: { id: input.nodeId },
    select: {
      id: true,
      online: true,
      enabledExecutors: true,
      missingExecutors: true,
      claudePermissionMode: true,
      codexPermissionMode: true,
      unavailableModes: true,
    },
  });
  if (!node) throw new AppError('NOT_FOUND', { message: 'node not found' });
  if (!node.online) throw new AppError('NODE_OFFLINE', { message: 'node offline', userMessage: 'sessions.node_offline' });
  // Offered: enabled by the user and runnable there (the agent's hello lists the CLIs it could not run).
  const offered = node.enabledExecutors.filter((e) => !node.missingExecutors.includes(e));
  const executor = input.executor ?? (offered.length === 1 ? offered[0] : undefined);
  if (!executor) throw new AppError('INVALID_INPUT', { message: 'executor required: none or several are offered on this node' });
  if (!node.enabledExecutors.includes(executor))
    throw new AppError('EXECUTOR_DISABLED', { message: 'executor disabled on node', userMessage: 'sessions.executor_disabled' });
  if (node.missingExecutors.includes(executor)) {
    throw new AppError('EXECUTOR_DISABLED', { message: 'executor not installed on node', userMessage: `sessions.executor_missing.${executor}` });
  }
  const asked = input.folder.trim();
  const folderRefused = folderRefusal(asked);
  if (folderRefused) throw new AppError('INVALID_INPUT', { message: folderRefused });

  const { permissionMode, model } = sessionChoices(executor, node, input);
  const title = input.title?.trim().slice(0, 200) || null;
  // Made last before the session, once every other check passed; a worktree made for a session that
  // then failed to be stored stays on the computer like any branch the user made (listed by git).
  const wt = input.worktree ? await createWorktreeOnNode(db, { nodeId: node.id, repo: asked, branch: input.worktree.branch }) : null;
  const folder = wt?.path ?? asked;
  // In a folder of its own repository the session's changes are read against HEAD as it starts.
  const head = wt ? null : await headAtStart(db, { nodeId: node.id, folder });

  const settings = await readSettings(db);
  return withSessionTx(db, { log, clock }, async (ctx) => {
    const hasNativeId = executor === 'claude';
    const { snapshot, effects } = newSession({ now: ctx.now, lifetime: settings.lifetime, hasNativeId });
    const row = await insertSession(ctx.tx, {
      id: randomUUID(),
      nodeId: node.id,
      executor,
      folder,
      nativeSessionId: hasNativeId ? randomUUID() : null,
      state: snapshot.state,
      version: 0,
      observerGeneration: snapshot.observerGeneration,
      permissionMode,
      model,
      lifetimeStartedAt: ctx.now,
      lifetimeDeadline: snapshot.lifetimeDeadline,
      originChatId: input.chatId ?? null,
      createdAt: ctx.now,
      title,
      ...(wt
        ? {
            worktreePath: wt.path,
            worktreeRepo: wt.repo,
            worktreeBranch: wt.branch,
            gitBaseBranch: wt.base,
            gitBaseCommit: wt.baseCommit,
          }
        : { gitBaseCommit: head }),
    });
    await recordEvidence(ctx.tx, {
      sessionId: row.id,
      event: 'create',
      actor: 'user',
      from: null,
      to: 'Starting',
      evidence: { executor, generation: 1, lifetime: settings.lifetime, permissionMode, model, ...(wt ? { worktreeBranch: wt.branch } : {}) },
      at: ctx.now,
    });
    for (const fx of effects) {
      if (fx.type === 'send_command') await sendSessionCommand(ctx.tx, row, fx);
      if (fx.type === 'schedule') await scheduleTimer(ctx.tx, { sessionId: row.id, name: fx.timer, dueAt: fx.at });
    }
    if (input.chatId !== undefined) {
      const chat = await ctx.tx.telegramChat.findUnique({ where: { chatId: input.chatId }, select: { chatId: true } });
      if (chat) await setActiveSessionId(ctx.tx, input.chatId, node.id, row.id);
    }
    await notifyEffect(ctx.tx, row, 'card_update', { now: ctx.now });
    return toSessionDto(row);
  });
}
