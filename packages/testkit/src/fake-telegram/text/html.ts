import type { MessageEntity } from '@grammyjs/types';
import { byteOffset, checkLink, EntityParseError, isSpace, type ParsedText, sortEntities } from './entity-types.ts';

const TAGS = new Set(['a', 'b', 'strong', 'i', 'em', 's', 'strike', 'del', 'u', 'ins', 'tg-spoiler', 'tg-emoji', 'span', 'pre', 'code', 'blockquote']);

interface OpenTag {
  name: string;
  argument: string;
  offset: number;
}

const at = (s: string, i: number): string => (i < s.length ? (s[i] as string) : '\0');

/** Decodes &lt; &gt; &amp; &quot; and numeric references; the server makes the ';' optional. */
function decodeEntity(s: string, pos: number): { ch: string; next: number } | undefined {
  let end = pos + 1;
  let code = 0;
  if (at(s, end) === '#') {
    end++;
    const hex = at(s, end) === 'x';
    if (hex) end++;
    const digit = hex ? /[0-9a-fA-F]/ : /[0-9]/;
    while (digit.test(at(s, end))) code = code * (hex ? 16 : 10) + Number.parseInt(at(s, end++), 16);
    if (code === 0 || code >= 0x10ffff || end - pos >= 10) return undefined;
  } else {
    while (/[a-zA-Z]/.test(at(s, end))) end++;
    const named: Record<string, number> = { lt: 60, gt: 62, amp: 38, quot: 34 };
    const found = named[s.slice(pos + 1, end)];
    if (found === undefined) return undefined;
    code = found;
  }
  return { ch: String.fromCodePoint(code), next: at(s, end) === ';' ? end + 1 : end };
}

/** Parses parse_mode=HTML following the real server's rules and error texts. */
export function parseHtml(s: string): ParsedText {
  let out = '';
  const open: OpenTag[] = [];
  const entities: MessageEntity[] = [];
  const fail = (msg: string): never => {
    throw new EntityParseError(msg);
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '&') {
      const decoded = decodeEntity(s, i);
      if (decoded) {
        out += decoded.ch;
        i = decoded.next - 1;
        continue;
      }
    }
    if (c !== '<') {
      out += c;
      continue;
    }
    const begin = i++;
    if (at(s, i) !== '/') {
      while (!isSpace(at(s, i)) && at(s, i) !== '>') i++;
      if (i >= s.length) fail(`Unclosed start tag at byte offset ${byteOffset(s, begin)}`);
      const name = s.slice(begin + 1, i).toLowerCase();
      if (!TAGS.has(name)) fail(`Unsupported start tag "${name}" at byte offset ${byteOffset(s, begin)}`);
      let argument = '';
      while (at(s, i) !== '>') {
        while (i < s.length && isSpace(at(s, i))) i++;
        if (at(s, i) === '>') break;
        const attrBegin = i;
        while (!isSpace(at(s, i)) && at(s, i) !== '=' && at(s, i) !== '>') i++;
        const attr = s.slice(attrBegin, i);
        if (attr === '') fail(`Empty attribute name in the tag "${name}" at byte offset ${byteOffset(s, begin)}`);
        while (i < s.length && isSpace(at(s, i))) i++;
        // The one attribute without a value: <blockquote expandable>.
        if (at(s, i) !== '=' && name === 'blockquote' && attr === 'expandable') {
          argument = '1';
          continue;
        }
        if (at(s, i) !== '=') {
          fail(`Expected equal sign in declaration of an attribute of the tag "${name}" at byte offset ${byteOffset(s, begin)}`);
        }
        i++;
        while (i < s.length && isSpace(at(s, i))) i++;
        if (i >= s.length) fail(`Unclosed start tag "${name}" at byte offset ${byteOffset(s, begin)}`);
        let value = '';
        const quote = at(s, i);
        if (quote !== '"' && quote !== "'") {
          const tokenBegin = i;
          while (/[a-zA-Z0-9.-]/.test(at(s, i))) i++;
          value = s.slice(tokenBegin, i).toLowerCase();
          if (!isSpace(at(s, i)) && at(s, i) !== '>') {
            fail(`Unexpected end of name token at byte offset ${byteOffset(s, tokenBegin)}`);
          }
        } else {
          i++;
          while (i < s.length && at(s, i) !== quote) {
            const decoded = at(s, i) === '&' ? decodeEntity(s, i) : undefined;
            if (decoded) {
              value += decoded.ch;
              i = decoded.next;
            } else value += s[i++];
          }
          if (at(s, i) === quote) i++;
        }
        if (i >= s.length) fail(`Unclosed start tag at byte offset ${byteOffset(s, begin)}`);
        if (name === 'a' && attr === 'href') argument = value;
        else if (name === 'code' && attr === 'class' && value.startsWith('language-')) argument = value.slice(9);
        else if (name === 'span' && attr === 'class' && value.startsWith('tg-')) argument = value.slice(3);
        else if (name === 'tg-emoji' && attr === 'emoji-id') argument = value;
        else if (name === 'blockquote' && attr === 'expandable') argument = '1';
      }
      if (name === 'span' && argument !== 'spoiler') {
        fail(`Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(s, begin)}`);
      }
      open.push({ name, argument, offset: out.length });
      continue;
    }
    const top = open.at(-1);
    if (!top) fail(`Unexpected end tag at byte offset ${byteOffset(s, begin)}`);
    while (!isSpace(at(s, i)) && at(s, i) !== '>') i++;
    const endName = s.slice(begin + 2, i);
    while (i < s.length && isSpace(at(s, i))) i++;
    if (at(s, i) !== '>') fail(`Unclosed end tag at byte offset ${byteOffset(s, begin)}`);
    const tag = top as OpenTag;
    if (endName !== '' && endName !== tag.name) {
      fail(`Unmatched end tag at byte offset ${byteOffset(s, begin)}, expected "</${tag.name}>", found "</${endName}>"`);
    }
    if (out.length > tag.offset) closeTag(tag, out, entities);
    open.pop();
  }
  const last = open.at(-1);
  if (last) fail(`Can't find end tag corresponding to start tag "${last.name}"`);
  // A code entity keeps its language only while a surrounding <pre> may still claim it.
  const clean = entities.map((e) => (e.type === 'code' ? { type: e.type, offset: e.offset, length: e.length } : e));
  return { text: out, entities: sortEntities(clean) };
}

function closeTag(tag: OpenTag, out: string, entities: MessageEntity[]): void {
  const offset = tag.offset;
  const length = out.length - offset;
  const simple: Record<string, MessageEntity['type']> = {
    i: 'italic',
    em: 'italic',
    b: 'bold',
    strong: 'bold',
    s: 'strikethrough',
    strike: 'strikethrough',
    del: 'strikethrough',
    u: 'underline',
    ins: 'underline',
    'tg-spoiler': 'spoiler',
    span: 'spoiler',
  };
  const type = simple[tag.name];
  if (type) {
    entities.push({ type, offset, length } as MessageEntity);
    return;
  }
  const prev = entities.at(-1);
  const sameRange = prev !== undefined && prev.offset === offset && prev.length === length;
  switch (tag.name) {
    case 'a': {
      const url = checkLink(tag.argument || out.slice(offset));
      if (url) entities.push({ type: 'text_link', offset, length, url });
      return;
    }
    case 'tg-emoji':
      if (!/^\d+$/.test(tag.argument)) throw new EntityParseError('Invalid custom emoji identifier specified');
      entities.push({ type: 'custom_emoji', offset, length, custom_emoji_id: tag.argument });
      return;
    case 'pre':
      // <pre><code class="language-x"> collapses into one pre entity carrying the language.
      if (prev && sameRange && prev.type === 'code' && 'language' in prev) {
        entities[entities.length - 1] = { type: 'pre', offset, length, language: String(prev.language) };
      } else entities.push({ type: 'pre', offset, length });
      return;
    case 'code':
      if (prev && sameRange && prev.type === 'pre') {
        if (tag.argument) entities[entities.length - 1] = { type: 'pre', offset, length, language: tag.argument };
      } else {
        const entity = { type: 'code', offset, length } as MessageEntity;
        if (tag.argument) Object.assign(entity, { language: tag.argument });
        entities.push(entity);
      }
      return;
    case 'blockquote':
      entities.push({ type: tag.argument ? 'expandable_blockquote' : 'blockquote', offset, length });
      return;
  }
}
