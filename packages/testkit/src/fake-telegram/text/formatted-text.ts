import type { MessageEntity } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';
import { detectEntities } from './auto-entities.ts';
import { EntityParseError, type ParsedText, sortEntities } from './entity-types.ts';
import { parseHtml } from './html.ts';
import { parseMarkdown } from './markdown.ts';
import { parseMarkdownV2 } from './markdown-v2.ts';

export const TEXT_LIMIT = 4096;
export const CAPTION_LIMIT = 1024;

function parse(text: string, parseMode: string | undefined, entities: MessageEntity[] | undefined): ParsedText {
  const mode = (parseMode ?? '').toLowerCase();
  try {
    if (mode === 'html') return parseHtml(text);
    if (mode === 'markdownv2') return parseMarkdownV2(text);
    if (mode === 'markdown') return parseMarkdown(text);
  } catch (error) {
    if (error instanceof EntityParseError) throw ApiError.badRequest(`can't parse entities: ${error.message}`);
    throw error;
  }
  if (mode !== '') throw ApiError.badRequest('unsupported parse_mode');
  return { text, entities: sortEntities(entities ?? []) };
}

/** Leading and trailing whitespace is cut and entities are moved or clipped with it, like the server does. */
function trim({ text, entities }: ParsedText): ParsedText {
  const start = text.length - text.trimStart().length;
  const trimmed = text.trim();
  const moved = entities
    .map((e) => {
      const from = Math.max(e.offset - start, 0);
      const to = Math.min(e.offset + e.length - start, trimmed.length);
      return { ...e, offset: from, length: to - from };
    })
    .filter((e) => e.length > 0);
  return { text: trimmed, entities: moved };
}

/**
 * Turns the text and formatting of a send/edit call into what the message will hold.
 * Returns undefined for an absent caption; throws the server's 400s otherwise.
 */
export function formatText(opts: {
  text: string | undefined;
  parseMode: string | undefined;
  entities: MessageEntity[] | undefined;
  kind: 'text' | 'caption';
}): ParsedText | undefined {
  if (opts.text === undefined || opts.text === '') {
    if (opts.kind === 'caption') return undefined;
    throw ApiError.badRequest('message text is empty');
  }
  const parsed = trim(parse(opts.text, opts.parseMode, opts.entities));
  if (parsed.text === '') {
    if (opts.kind === 'caption') return undefined;
    throw ApiError.badRequest('message text is empty');
  }
  const limit = opts.kind === 'text' ? TEXT_LIMIT : CAPTION_LIMIT;
  if ([...parsed.text].length > limit) {
    throw ApiError.badRequest(opts.kind === 'text' ? 'message is too long' : 'message caption is too long');
  }
  const found = detectEntities(parsed.text, parsed.entities);
  return { text: parsed.text, entities: sortEntities([...parsed.entities, ...found]) };
}
