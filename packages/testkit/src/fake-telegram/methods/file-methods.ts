import type { Document, Message, MessageEntity, PhotoSize } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';
import { type FakeContext, type Handler, type HandlerRequest, unixTime } from '../context.ts';
import { imageSize } from '../image-size.ts';
import { json, requireChatId, str } from '../params.ts';
import { type FileKind, mimeFromName, type StoredFile } from '../state/file-store.ts';
import { formatText } from '../text/formatted-text.ts';
import { botUser, compact, readInlineMarkup, readReplyTarget } from './message-parts.ts';

/** An upload (attach://id or a part named like the field) or a file_id the server already knows. */
function resolveFile(req: HandlerRequest, ctx: FakeContext, field: FileKind): StoredFile {
  const value = str(req.params, field);
  const attach = value?.startsWith('attach://') ? value.slice('attach://'.length) : undefined;
  const part = req.files.find((f) => f.field === (attach ?? field));
  if (part) {
    if (part.bytes.length === 0) throw ApiError.badRequest('file must be non-empty');
    let mimeType: string | undefined;
    if (field === 'document') {
      const declared = part.contentType.split(';')[0]?.trim();
      mimeType = mimeFromName(part.fileName) ?? (declared && declared !== 'application/octet-stream' ? declared : 'application/octet-stream');
    }
    return ctx.files.add({ kind: field, bytes: part.bytes, fileName: part.fileName, mimeType });
  }
  if (value === undefined || attach !== undefined) throw ApiError.badRequest(`there is no ${field} in the request`);
  // No internet here, so URLs cannot be fetched the way the real server would.
  if (/^https?:\/\//i.test(value)) throw ApiError.badRequest('failed to get HTTP URL content');
  const known = ctx.files.get(value);
  if (!known) throw ApiError.badRequest('wrong file identifier/HTTP URL specified');
  if (known.kind !== field) {
    const name = (k: FileKind) => (k === 'photo' ? 'Photo' : 'Document');
    throw ApiError.badRequest(`can't use file of type ${name(known.kind)} as ${name(field)}`);
  }
  return known;
}

export function photoSizes(file: StoredFile): PhotoSize[] {
  const size = imageSize(file.bytes);
  if (!size) throw ApiError.badRequest('IMAGE_PROCESS_FAILED');
  return [{ file_id: file.fileId, file_unique_id: file.uniqueId, file_size: file.bytes.length, ...size }];
}

export function documentOf(file: StoredFile): Document {
  return compact({
    file_name: file.fileName,
    mime_type: file.mimeType,
    file_id: file.fileId,
    file_unique_id: file.uniqueId,
    file_size: file.bytes.length,
  });
}

function sendFile(kind: FileKind): Handler {
  return (req, ctx) => {
    const p = req.params;
    const chatId = requireChatId(p);
    ctx.chats.forBot(chatId);
    const caption = formatText({
      text: str(p, 'caption'),
      parseMode: str(p, 'parse_mode'),
      entities: json<MessageEntity[]>(p, 'caption_entities', "can't parse entities JSON object"),
      kind: 'caption',
    });
    const markup = readInlineMarkup(p);
    const reply = readReplyTarget(p, ctx, chatId);
    const file = resolveFile(req, ctx, kind);
    const media = kind === 'photo' ? { photo: photoSizes(file) } : { document: documentOf(file) };
    const message = ctx.chats.add(
      chatId,
      (message_id, chat) =>
        compact({
          message_id,
          from: botUser(ctx),
          chat,
          date: unixTime(ctx),
          ...reply,
          ...media,
          caption: caption?.text,
          caption_entities: caption?.entities,
          reply_markup: markup,
        }) as Message,
    );
    return structuredClone(message);
  };
}

export const fileMethods: Record<string, Handler> = {
  sendDocument: sendFile('document'),
  sendPhoto: sendFile('photo'),
  getFile: ({ params }, ctx) => ctx.files.describe(str(params, 'file_id')),
};
