import type { MessageEntity } from '@grammyjs/types';
import { byteOffset, checkLink, EntityParseError, isSpace, type ParsedText, sortEntities } from './entity-types.ts';

type Kind = 'Bold' | 'Italic' | 'Underline' | 'Strikethrough' | 'Spoiler' | 'Code' | 'Pre' | 'PreCode' | 'TextUrl' | 'CustomEmoji';

interface Open {
  kind: Kind;
  argument: string;
  offset: number;
  byteAt: number;
}

const RESERVED = '_*[]()~`>#+-=|{}.!';
const at = (s: string, i: number): string => (i < s.length ? (s[i] as string) : '\0');
const escapable = (ch: string): boolean => ch !== '\0' && ch.charCodeAt(0) <= 126;

function isEnd(kind: Kind, s: string, i: number): boolean {
  const c = at(s, i);
  switch (kind) {
    case 'Bold':
      return c === '*';
    case 'Italic':
      return c === '_' && at(s, i + 1) !== '_';
    case 'Code':
      return c === '`';
    case 'Pre':
    case 'PreCode':
      return c === '`' && at(s, i + 1) === '`' && at(s, i + 2) === '`';
    case 'TextUrl':
    case 'CustomEmoji':
      return c === ']';
    case 'Underline':
      return c === '_' && at(s, i + 1) === '_';
    case 'Strikethrough':
      return c === '~';
    case 'Spoiler':
      return c === '|' && at(s, i + 1) === '|';
  }
}

/** Parses parse_mode=MarkdownV2 with the real server's escaping rules and error texts. */
export function parseMarkdownV2(s: string): ParsedText {
  let out = '';
  const open: Open[] = [];
  const entities: MessageEntity[] = [];
  let quote: { offset: number; expandable: boolean } | undefined;
  const reserved = (i: number): never => {
    throw new EntityParseError(`Character '${at(s, i)}' is reserved and must be escaped with the preceding '\\'`);
  };
  const endQuote = (): void => {
    if (quote && out.length > quote.offset) {
      const type = quote.expandable ? 'expandable_blockquote' : 'blockquote';
      entities.push({ type, offset: quote.offset, length: out.length - quote.offset });
    }
    quote = undefined;
  };
  for (let i = 0; i < s.length; i++) {
    let c = s[i] as string;
    const top = open.at(-1);
    const inCode = top !== undefined && (top.kind === 'Code' || top.kind === 'Pre' || top.kind === 'PreCode');
    if (!inCode && (i === 0 || s[i - 1] === '\n')) {
      const starsQuote = c === '*' && at(s, i + 1) === '*' && at(s, i + 2) === '>';
      if (c === '>' || starsQuote) {
        if (!quote) quote = { offset: out.length, expandable: starsQuote };
        i += starsQuote ? 2 : 0;
        continue;
      }
      if (quote) endQuote();
    }
    if (c === '\\' && escapable(at(s, i + 1))) {
      out += s[++i];
      continue;
    }
    if (!(inCode ? '`' : RESERVED).includes(c)) {
      out += c;
      continue;
    }
    if (quote?.expandable && c === '|' && at(s, i + 1) === '|' && (at(s, i + 2) === '\n' || i + 2 >= s.length)) {
      i++;
      endQuote();
      continue;
    }
    if (!top || !isEnd(top.kind, s, i)) {
      const byteAt = byteOffset(s, i);
      let kind: Kind;
      let argument = '';
      switch (c) {
        case '_':
          kind = at(s, i + 1) === '_' ? 'Underline' : 'Italic';
          if (kind === 'Underline') i++;
          break;
        case '*':
          kind = 'Bold';
          break;
        case '~':
          kind = 'Strikethrough';
          break;
        case '|':
          if (at(s, i + 1) !== '|') reserved(i);
          i++;
          kind = 'Spoiler';
          break;
        case '[':
          kind = 'TextUrl';
          break;
        case '`':
          if (at(s, i + 1) === '`' && at(s, i + 2) === '`') {
            i += 3;
            kind = 'Pre';
            let langEnd = i;
            while (!isSpace(at(s, langEnd)) && at(s, langEnd) !== '`') langEnd++;
            if (i !== langEnd && langEnd < s.length && at(s, langEnd) !== '`') {
              kind = 'PreCode';
              argument = s.slice(i, langEnd);
              i = langEnd;
            }
            c = at(s, i);
            if (c === '\n' || c === '\r') {
              const n = at(s, i + 1);
              i += (n === '\n' || n === '\r') && n !== c ? 2 : 1;
            }
            i--;
          } else kind = 'Code';
          break;
        case '!':
          if (at(s, i + 1) !== '[') reserved(i);
          i++;
          kind = 'CustomEmoji';
          break;
        default:
          return reserved(i);
      }
      open.push({ kind, argument, offset: out.length, byteAt });
      continue;
    }
    const entity = top;
    let skip = out.length === entity.offset;
    let argument = entity.argument;
    if (entity.kind === 'Underline' || entity.kind === 'Spoiler') i++;
    if (entity.kind === 'Pre' || entity.kind === 'PreCode') i += 2;
    if (entity.kind === 'TextUrl' || entity.kind === 'CustomEmoji') {
      let url = '';
      if (at(s, i + 1) !== '(') url = out.slice(entity.offset);
      else {
        i += 2;
        const urlBegin = i;
        while (i < s.length && s[i] !== ')') {
          if (s[i] === '\\' && escapable(at(s, i + 1))) {
            url += s[i + 1];
            i += 2;
          } else url += s[i++];
        }
        if (at(s, i) !== ')') throw new EntityParseError(`Can't find end of a URL at byte offset ${byteOffset(s, urlBegin)}`);
      }
      if (entity.kind === 'CustomEmoji') {
        const id = /^tg:\/\/emoji\?id=(\d+)$/.exec(url)?.[1];
        if (!id) throw new EntityParseError('Custom emoji URL must have an emoji identifier');
        argument = id;
      } else {
        const checked = checkLink(url);
        if (checked === undefined) skip = true;
        else argument = checked;
      }
    }
    if (!skip) entities.push(toEntity(entity.kind, entity.offset, out.length - entity.offset, argument));
    open.pop();
  }
  endQuote();
  const last = open.at(-1);
  if (last) throw new EntityParseError(`Can't find end of ${last.kind} entity at byte offset ${last.byteAt}`);
  return { text: out, entities: sortEntities(entities) };
}

function toEntity(kind: Kind, offset: number, length: number, argument: string): MessageEntity {
  switch (kind) {
    case 'PreCode':
      return { type: 'pre', offset, length, language: argument };
    case 'TextUrl':
      return { type: 'text_link', offset, length, url: argument };
    case 'CustomEmoji':
      return { type: 'custom_emoji', offset, length, custom_emoji_id: argument };
    default: {
      const type = { Bold: 'bold', Italic: 'italic', Underline: 'underline', Strikethrough: 'strikethrough', Spoiler: 'spoiler', Code: 'code', Pre: 'pre' }[
        kind
      ] as MessageEntity.CommonMessageEntity['type'];
      return { type, offset, length } as MessageEntity;
    }
  }
}
