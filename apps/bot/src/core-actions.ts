import { mkdir, open, rename } from 'node:fs/promises';
import path from 'node:path';
import {
  acceptMessage,
  answerPrompt,
  cancelMessage,
  editMessage,
  keepVoiceNote,
  closeSession,
  commitSessionChanges,
  compactSession,
  draftCommitMessage,
  pushSessionBranch,
  readSessionChanges,
  removeWorktreeAfterClose,
  continueHere,
  adoptInPlace,
  createLoginLink,
  createSession,
  type Db,
  resumeSession,
  sendMessageNow,
  setExecutors,
  setPermissionMode,
  stopSession,
  updateSettings,
  validateFolderOnNode,
} from '@bria/core/services';
import { AppError, isAppError, type LifetimeSetting } from '@bria/core/domain';
import type { Logger } from '@bria/core/log';
import type { AttachmentIn, SessionActions } from './deps.ts';

const lifetimeOf = (hours: number | null): LifetimeSetting => (hours === null ? 'never' : (`${hours}h` as LifetimeSetting));

/**
 * Attachments are written to a Bria-owned folder (content-addressed by SHA-256, fsynced, renamed into
 * place) before the message that references them is stored, so a stored message never points at a
 * missing file.
 */
async function storeAttachment(dir: string, a: AttachmentIn): Promise<{ name: string; mime: string; path: string; sizeBytes: number; sha256: string }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const final = path.join(dir, `${a.sha256}-${a.fileName}`);
  const tmp = `${final}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(a.bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, final);
  return { name: a.fileName, mime: a.mimeType, path: final, sizeBytes: a.bytes.length, sha256: a.sha256 };
}

export function coreActions(o: { db: Db; log: Logger; publicUrl: string; attachmentsDir: string }): SessionActions {
  const deps = { db: o.db, log: o.log };
  return {
    async createSession(i) {
      const s = await createSession(deps, {
        nodeId: i.nodeId,
        executor: i.executor,
        folder: i.folder,
        chatId: i.chatId,
        ...(i.permissionMode ? { permissionMode: i.permissionMode } : {}),
        ...(i.model ? { model: i.model } : {}),
      });
      return { sessionId: s.id };
    },
    async validateFolder(i) {
      // The same shape rules as createSession first, so the user reads the reason instead of a generic error.
      if (!i.folder.startsWith('/') || i.folder.includes('\0') || i.folder.length > 4096) return { ok: false, reason: 'not an absolute path' };
      // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
      if (/[\u0000-\u001f\u007f]/.test(i.folder)) return { ok: false, reason: 'the path contains control characters' };
      if (i.folder.split('/').some((seg) => seg === '.' || seg === '..')) return { ok: false, reason: 'write the full path without . or .. parts' };
      // Then the node itself: a folder missing there would give a session that can never start.
      try {
        const r = await validateFolderOnNode({ db: o.db, nodeId: i.nodeId, folder: i.folder });
        return { ok: true, folder: r.folder };
      } catch (error) {
        if (!isAppError(error)) throw error;
        if (error.code === 'NOT_FOUND') return { ok: false, reason: 'unknown computer' };
        if (error.code === 'NODE_OFFLINE' && error.userMessage?.startsWith('sessions.')) return { ok: false, reason: 'the computer is offline' };
        // The catalog wraps the reason in its own sentence.
        const reason = (error.userMessage ?? 'the folder cannot be used').replace(/\.$/, '');
        return { ok: false, reason: reason.charAt(0).toLowerCase() + reason.slice(1) };
      }
    },
    async stopSession(i) {
      await stopSession(deps, i);
    },
    async compactSession(i) {
      await compactSession(deps, i);
    },
    async closeSession(i) {
      await closeSession(deps, i);
    },
    async resumeSession(i) {
      await resumeSession(deps, { sessionId: i.sessionId });
    },
    async continueHere(i) {
      await continueHere(deps, { sessionId: i.sessionId, pid: i.pid, source: 'telegram' });
    },
    async adoptInPlace(i) {
      await adoptInPlace(deps, { sessionId: i.sessionId, pid: i.pid, source: 'telegram' });
    },
    async acceptMessage(i) {
      let attachments: Awaited<ReturnType<typeof storeAttachment>>[] | undefined;
      if (i.attachments?.length) {
        try {
          attachments = await Promise.all(i.attachments.map((a) => storeAttachment(path.join(o.attachmentsDir, i.sessionId), a)));
        } catch (cause) {
          throw new AppError('PERSIST_FAILED', { message: 'attachment could not be stored', cause });
        }
      }
      const m = { sessionId: i.sessionId, text: i.text, source: i.source, sourceKey: i.sourceKey, ...(attachments ? { attachments } : {}) };
      if (i.now) {
        const r = await sendMessageNow(deps, m);
        return { messageId: r.message.id, seq: r.message.seq, interrupted: r.interrupted };
      }
      const r = await acceptMessage(deps, m);
      return { messageId: r.message.id, seq: r.message.seq };
    },
    async cancelMessage(i) {
      const r = await cancelMessage(deps, { messageId: i.messageId });
      return { seq: r.seq };
    },
    async editMessage(i) {
      const r = await editMessage(deps, { messageId: i.messageId, text: i.text });
      return { seq: r.seq };
    },
    async updateSettings(i) {
      await updateSettings(deps, {
        ...(i.lifetimeHours !== undefined ? { lifetime: lifetimeOf(i.lifetimeHours) } : {}),
        ...(i.resumeRecommendations !== undefined ? { resumeRecommendations: i.resumeRecommendations } : {}),
      });
    },
    async setPermissionMode(i) {
      await setPermissionMode({ db: o.db, nodeId: i.nodeId, executor: i.executor, mode: i.mode });
    },
    async setExecutors(i) {
      await setExecutors({ db: o.db, nodeId: i.nodeId, executors: i.executors });
    },
    async createLoginLink(i) {
      const link = await createLoginLink({ db: o.db, baseUrl: o.publicUrl, telegramUserId: i.telegramUserId, ...(i.name ? { name: i.name } : {}) });
      return { url: link.url, expiresAt: link.expiresAt };
    },
    answerPrompt(i) {
      return answerPrompt(deps, i);
    },
    gitChanges(i) {
      return readSessionChanges(deps, { sessionId: i.sessionId, ...(i.paths ? { paths: i.paths } : {}) });
    },
    gitCommit(i) {
      return commitSessionChanges(deps, { sessionId: i.sessionId, message: i.message });
    },
    gitPush(i) {
      return pushSessionBranch(deps, { sessionId: i.sessionId });
    },
    draftCommitMessage(i) {
      return draftCommitMessage(deps, { sessionId: i.sessionId, source: 'telegram', sourceKey: i.sourceKey });
    },
    removeWorktree(i) {
      return removeWorktreeAfterClose(deps, { sessionId: i.sessionId, ...(i.force ? { force: true } : {}) });
    },
    async keepVoiceNote(i) {
      return keepVoiceNote(deps, {
        sessionId: i.sessionId,
        chatId: i.chatId,
        source: 'telegram',
        sourceKey: i.sourceKey,
        attachmentsDir: o.attachmentsDir,
        file: { fileName: i.file.fileName, mimeType: i.file.mimeType, bytes: i.file.bytes },
      });
    },
  };
}
