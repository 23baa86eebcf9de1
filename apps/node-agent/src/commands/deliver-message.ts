import path from 'node:path';
import type { Attachment } from '@bria/core/protocol';
import { ExecutorError } from '../executors/index.ts';
import { processGone } from './cli-process.ts';
import { DELIVERY_MARKS } from './registry.ts';
import { attachmentForm, imagePathTaken } from './attachment-forms.ts';
import { AttachmentNotStored, messageForCli, storeAttachments } from './session-attachments.ts';
import type { Result, SessionRuntime } from './session-runtime.ts';

export interface DeliverParams {
  messageId: string;
  text: string;
  attachments?: Attachment[];
}

/** `deliver`: the message typed into the session's CLI once, marked before the paste, bound to its receipt. */
export async function deliverMessage(rt: SessionRuntime, sessionId: string, p: DeliverParams): Promise<Result> {
  const host = rt.hosts.get(sessionId);
  const rec = rt.registry.get(sessionId);
  // `typed: false` is a proof that nothing reached the pane: the hub may hand the message over again.
  if (!host || !rec || rec.status !== 'live') return { ok: false, typed: false, messageId: p.messageId, error: 'no live session here' };
  // A permission request or question is open in the CLI: a paste + Enter would answer its dialog.
  if ((rt.o.hooks?.pending(sessionId).length ?? 0) > 0)
    return { ok: false, typed: false, messageId: p.messageId, error: 'a permission request is waiting for an answer' };
  let text = p.text;
  let images: string[] = [];
  // The same message with every file named as a path: what is typed when the CLI did not take an image.
  let allPaths = p.text;
  if (p.attachments?.length) {
    try {
      // Images the CLI attaches as images are pasted as their paths alone; the rest are named in the text.
      const forms = p.attachments.map((a) => attachmentForm(a.mime, Buffer.from(a.contentBase64.slice(0, 24), 'base64')));
      const files = await storeAttachments(rt.o.attachmentsDir ?? path.join(rt.o.dir, 'attachments'), sessionId, p.messageId, p.attachments, forms);
      const taken = forms.map((f, i) => (f === 'image' && imagePathTaken(rec.executor, files[i]!) ? 'image' : 'path'));
      ({ text, images } = messageForCli(p.text, files, p.attachments, taken));
      allPaths = messageForCli(
        p.text,
        files,
        p.attachments,
        files.map(() => 'path'),
      ).text;
    } catch (err) {
      if (!(err instanceof AttachmentNotStored)) throw err;
      rt.o.log('warn', 'agent.attachment_not_stored', { sessionId, reason: err.message });
      return { ok: false, typed: false, messageId: p.messageId, attachmentError: err.message, error: `attachment could not be stored: ${err.message}` };
    }
  }
  // Remembered before the paste: after a crash this message is re-checked, never typed again.
  const now = rt.registry.get(sessionId) ?? rec;
  rt.registry.put(sessionId, {
    unconfirmed: [...now.unconfirmed.filter((m) => m !== p.messageId), p.messageId],
    deliveries: [...(now.deliveries ?? []).filter((d) => d.messageId !== p.messageId), { messageId: p.messageId, at: Date.now() }].slice(-DELIVERY_MARKS),
  });
  try {
    const hooks = rt.o.hooks;
    const gate = hooks ? { begin: () => hooks.beginTyping(sessionId), end: () => hooks.endTyping(sessionId) } : undefined;
    // The answer is read from the screen while the turn runs (a draft, never stored); the journal decides.
    const draft = rt.drafts.get(sessionId);
    draft?.expect(p.messageId, text);
    const r = await host.deliver({ messageId: p.messageId, text, images }, gate).catch(async (err: unknown) => {
      // The CLI left an image path as text: nothing was submitted and its box was emptied, so the
      // message goes now with every file named as a path (a refusal would only come back the same).
      if (!(images.length > 0 && err instanceof ExecutorError && err.details.imagesNotAttached === true)) throw err;
      rt.o.log('warn', 'agent.image_not_attached', { sessionId });
      draft?.forget(p.messageId);
      draft?.expect(p.messageId, allPaths);
      return host.deliver({ messageId: p.messageId, text: allPaths }, gate);
    });
    if (!r.accepted) draft?.forget(p.messageId);
    // Without a receipt in time the text may or may not have reached the CLI: unknown, never retyped.
    return r.accepted
      ? { ok: true, delivery: 'accepted', messageId: p.messageId, nativeRef: r.nativeRef }
      : { ok: false, delivery: 'unknown', messageId: p.messageId, error: r.reason };
  } catch (err) {
    rt.drafts.get(sessionId)?.forget(p.messageId);
    // Refused before the paste, or the paste failed because the CLI is verifiably gone: nothing reached it.
    const untyped = (err instanceof ExecutorError && err.code === 'not_ready') || (rec.identity !== null && (await processGone(rec.identity)));
    if (!untyped) throw err;
    const after = rt.registry.get(sessionId);
    if (after)
      rt.registry.put(sessionId, {
        unconfirmed: after.unconfirmed.filter((m) => m !== p.messageId),
        deliveries: after.deliveries?.filter((d) => d.messageId !== p.messageId),
      });
    return { ok: false, typed: false, messageId: p.messageId, error: (err as Error).message };
  }
}
