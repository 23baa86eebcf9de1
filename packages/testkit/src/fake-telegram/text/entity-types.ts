import type { MessageEntity } from '@grammyjs/types';

/** A parse failure carries the exact text the real server puts after "can't parse entities: ". */
export class EntityParseError extends Error {}

export interface ParsedText {
  text: string;
  entities: MessageEntity[];
}

// The real server sorts entities by offset, then longer first, then by a fixed type priority.
const PRIORITY: Record<string, number> = {
  blockquote: 0,
  expandable_blockquote: 0,
  pre: 10,
  code: 20,
  text_link: 49,
  text_mention: 49,
  bold: 90,
  italic: 91,
  underline: 92,
  strikethrough: 93,
  spoiler: 94,
  custom_emoji: 99,
};

export function sortEntities(entities: MessageEntity[]): MessageEntity[] {
  return [...entities].sort((a, b) => a.offset - b.offset || b.length - a.length || (PRIORITY[a.type] ?? 50) - (PRIORITY[b.type] ?? 50));
}

/** TDLib treats NUL (end of input) as a space, which is why every scanner loop below stops at it. */
export function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n' || ch === '\0' || ch === '\v';
}

export function byteOffset(source: string, index: number): number {
  return Buffer.byteLength(source.slice(0, index), 'utf8');
}

/**
 * Normalises a link target the way the server does: http(s) URLs get a path, bare hosts get
 * "http://", tg: and ton: links pass; anything else means the entity is silently dropped.
 */
export function checkLink(raw: string): string | undefined {
  const url = raw.trim();
  if (url === '') return undefined;
  if (/^(tg|ton):/i.test(url)) return url;
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `http://${url}`;
  try {
    const parsed = new URL(withScheme);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    if (!parsed.hostname.includes('.') && parsed.hostname !== 'localhost') return undefined;
    return parsed.href;
  } catch {
    return undefined;
  }
}
