import { randomUUID } from 'node:crypto';
import type { CommandKind } from '../../domain/index.ts';
import { getMessageForDelivery } from '../../db/repos/messages.ts';
import { getArchiveCopy, insertSessionCommand, type SessionRow, type Tx } from '../../db/repos/sessions.ts';
import { MAX_FRAME_BYTES, type SessionCommandType } from '../../protocol/index.ts';
import { AttachmentUnreadable, carryAttachments } from './carry-attachments.ts';

/** Room kept in a frame for the command envelope (ids, type, session) around the payload. */
const FRAME_ENVELOPE_BYTES = 4096;

const TYPE: Record<CommandKind, SessionCommandType> = {
  start: 'start_session',
  resume: 'resume_session',
  deliver: 'deliver',
  interrupt: 'interrupt',
  close: 'close_session',
  reattach: 'attach_session',
};

/**
 * Builds the payload of a session command from the stored row (never from memory) and stores it
 * durably in the caller's transaction. Returns the command id. A `deliver` whose stored attachment
 * cannot be read as stored throws `AttachmentUnreadable` before anything is written.
 */
export async function sendSessionCommand(
  tx: Tx,
  row: SessionRow,
  c: { kind: CommandKind; generation: number; messageId?: string; mainMessageId?: string },
): Promise<string> {
  const id = randomUUID();
  // "Adopt in place" (domain/handoff.ts) is the resume of a session whose desk CLI Bria binds to in
  // its own pane: the same attempt and answers, another command (no CLI is started).
  const adopting = c.kind === 'resume' && row.handoff === 'adopting' && row.deskPid !== null && row.deskStart !== null;
  const payload = adopting ? adoptPayload(row, c.generation) : await buildPayload(tx, row, c);
  await insertSessionCommand(tx, { id, nodeId: row.nodeId, sessionId: row.id, type: adopting ? 'adopt_in_place' : TYPE[c.kind], payload });
  return id;
}

function adoptPayload(row: SessionRow, generation: number): Record<string, unknown> {
  return {
    generation,
    executor: row.executor,
    folder: row.folder,
    nativeSessionId: row.nativeSessionId,
    pid: row.deskPid,
    startTime: row.deskStart,
  };
}

async function buildPayload(
  tx: Tx,
  row: SessionRow,
  c: { kind: CommandKind; generation: number; messageId?: string; mainMessageId?: string },
): Promise<Record<string, unknown>> {
  const generation = c.generation;
  switch (c.kind) {
    case 'start':
      return {
        generation,
        executor: row.executor,
        folder: row.folder,
        permissionMode: row.permissionMode,
        ...(row.model ? { model: row.model } : {}),
        ...(row.executor === 'claude' && row.nativeSessionId ? { nativeSessionId: row.nativeSessionId } : {}),
      };
    case 'resume': {
      const copy = await getArchiveCopy(tx, row.id);
      return {
        generation,
        executor: row.executor,
        folder: row.folder,
        nativeSessionId: row.nativeSessionId,
        permissionMode: row.permissionMode,
        ...(row.model ? { model: row.model } : {}),
        ...(copy ? { archivedJournal: { path: copy.path, sizeBytes: Number(copy.sizeBytes), sha256: copy.sha256 } } : {}),
        // "Continue here" confirmed for exactly this desk process: the agent ends it first.
        ...(row.handoff === 'taking_over' && row.deskPid !== null && row.deskStart ? { takeOver: { pid: row.deskPid, startTime: row.deskStart } } : {}),
      };
    }
    case 'deliver': {
      if (!c.messageId) throw new Error('deliver needs a message id');
      const m = await getMessageForDelivery(tx, c.messageId);
      if (!m) throw new Error('deliver: message not found');
      // The node cannot read this server's files: the bytes travel in the command, checked here first.
      const attachments = await carryAttachments(c.messageId, m.attachments);
      const payload = {
        generation,
        messageId: c.messageId,
        text: m.text,
        ...(attachments.length ? { attachments } : {}),
        ...(c.mainMessageId ? { mainMessageId: c.mainMessageId } : {}),
      };
      // A long text beside the files could still overflow the one frame the command travels in.
      if (attachments.length && Buffer.byteLength(JSON.stringify(payload)) > MAX_FRAME_BYTES - FRAME_ENVELOPE_BYTES) {
        throw new AttachmentUnreadable(c.messageId, 'message and attachments exceed one frame');
      }
      return payload;
    }
    case 'interrupt':
    case 'close':
      return { generation };
    case 'reattach': {
      const identity = (row.identity ?? {}) as Record<string, unknown>;
      return {
        generation,
        executor: row.executor,
        folder: row.folder,
        identity: { ...identity, ...(row.nativeSessionId ? { nativeSessionId: row.nativeSessionId } : {}) },
      };
    }
    default:
      return c.kind satisfies never;
  }
}
