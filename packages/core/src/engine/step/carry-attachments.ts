import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { recordEvidence } from '../../db/repos/evidence.ts';
import type { SessionRow } from '../../db/repos/sessions.ts';
import { type Attachment, MAX_ATTACHMENT_BYTES } from '../../protocol/index.ts';
import { notifyChats } from './session-notices.ts';
import type { StepContext } from './step-context.ts';

/** An attachment as the front end stored it with its message: a file on this server and its checksum. */
export interface StoredAttachment {
  name: string;
  mime?: string;
  path: string;
  sizeBytes: number;
  sha256: string;
}

/** The stored file is missing, unreadable, too large or not the bytes it was stored as. */
export class AttachmentUnreadable extends Error {
  constructor(
    readonly messageId: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'AttachmentUnreadable';
  }
}

/** The outcome detail of a message whose attachment never left the server: never the executor's failure. */
export const ATTACHMENT_UNREADABLE = 'attachment could not be read';
/** The node could not write the attachment into the session's folder: nothing was typed. */
export const ATTACHMENT_NOT_STORED = 'attachment could not be stored';

/**
 * Reads a message's stored attachments for the `deliver` command and checks each against the size and
 * SHA-256 recorded when it was stored, so the node receives exactly the bytes the user sent or nothing.
 */
export async function carryAttachments(messageId: string, stored: unknown): Promise<Attachment[]> {
  if (stored === null || stored === undefined) return [];
  if (!Array.isArray(stored)) throw new AttachmentUnreadable(messageId, 'stored attachments are not a list');
  const out: Attachment[] = [];
  let total = 0;
  for (const s of stored as Partial<StoredAttachment>[]) {
    if (typeof s.path !== 'string' || typeof s.sha256 !== 'string' || typeof s.name !== 'string')
      throw new AttachmentUnreadable(messageId, 'stored attachment lacks path or checksum');
    const bytes = await readFile(s.path).catch((err: NodeJS.ErrnoException) => {
      throw new AttachmentUnreadable(messageId, `stored file unreadable (${err.code ?? 'error'})`);
    });
    total += bytes.length;
    if (total > MAX_ATTACHMENT_BYTES) throw new AttachmentUnreadable(messageId, 'attachments exceed the carried size limit');
    if (typeof s.sizeBytes === 'number' && s.sizeBytes !== bytes.length) throw new AttachmentUnreadable(messageId, 'stored file size differs');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== s.sha256) throw new AttachmentUnreadable(messageId, 'stored file checksum differs');
    out.push({ name: s.name, mime: s.mime ?? 'application/octet-stream', sizeBytes: bytes.length, sha256, contentBase64: bytes.toString('base64') });
  }
  return out;
}

/**
 * Fails a message whose attachment could not be read here or stored on the node. It was never typed,
 * so the CLI did nothing with it: the outcome names the attachment and the session's state is untouched.
 */
export async function failAttachmentMessage(ctx: StepContext, row: SessionRow, messageId: string, detail: string, reason: string): Promise<boolean> {
  const u = await ctx.tx.message.updateMany({
    where: { id: messageId, sessionId: row.id, status: { in: ['pending', 'leased'] } },
    data: { status: 'failed', deliveryId: null, leaseOwner: null, mainMessageId: null, outcomeAt: ctx.now, outcomeDetail: detail },
  });
  if (u.count === 1) {
    await recordEvidence(ctx.tx, {
      sessionId: row.id,
      event: 'attachment_failed',
      actor: 'hub',
      from: row.state,
      to: row.state,
      at: ctx.now,
      evidence: { messageId, detail, reason: reason.slice(0, 200) },
    });
    await notifyChats(ctx.tx, row, ctx.now, () => ({
      key: `attachment_failed:${messageId}`,
      payload: { kind: 'attachment_failed', sessionId: row.id, nodeId: row.nodeId, messageId, detail },
    }));
  }
  return u.count === 1;
}
