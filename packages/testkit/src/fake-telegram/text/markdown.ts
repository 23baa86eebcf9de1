import type { MessageEntity } from '@grammyjs/types';
import { byteOffset, checkLink, EntityParseError, isSpace, type ParsedText, sortEntities } from './entity-types.ts';

const at = (s: string, i: number): string => (i < s.length ? (s[i] as string) : '\0');

/** Legacy parse_mode=Markdown: only _ * ` ``` and [text](url), no nesting. */
export function parseMarkdown(s: string): ParsedText {
  let out = '';
  const entities: MessageEntity[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '\\' && '_*`['.includes(at(s, i + 1))) {
      out += s[++i];
      continue;
    }
    if (!'_*`['.includes(c)) {
      out += c;
      continue;
    }
    const begin = i;
    const endChar = c === '[' ? ']' : c;
    let pre = false;
    let language = '';
    i++;
    if (c === '`' && at(s, i) === '`' && at(s, i + 1) === '`') {
      i += 2;
      pre = true;
      let langEnd = i;
      while (!isSpace(at(s, langEnd)) && at(s, langEnd) !== '`') langEnd++;
      if (i !== langEnd && langEnd < s.length && at(s, langEnd) !== '`') {
        language = s.slice(i, langEnd);
        i = langEnd;
      }
      const n = at(s, i);
      if (n === '\n' || n === '\r') i += (at(s, i + 1) === '\n' || at(s, i + 1) === '\r') && at(s, i + 1) !== n ? 2 : 1;
    }
    const offset = out.length;
    while (i < s.length && (s[i] !== endChar || (pre && !(at(s, i + 1) === '`' && at(s, i + 2) === '`')))) out += s[i++];
    if (i >= s.length) {
      throw new EntityParseError(`Can't find end of the entity starting at byte offset ${byteOffset(s, begin)}`);
    }
    const length = out.length - offset;
    if (c === '[') {
      let url = out.slice(offset);
      if (at(s, i + 1) === '(') {
        i += 2;
        url = '';
        while (i < s.length && s[i] !== ')') url += s[i++];
      }
      const checked = checkLink(url);
      if (length > 0 && checked) entities.push({ type: 'text_link', offset, length, url: checked });
    } else if (length > 0) {
      if (c === '_') entities.push({ type: 'italic', offset, length });
      else if (c === '*') entities.push({ type: 'bold', offset, length });
      else if (!pre) entities.push({ type: 'code', offset, length });
      else entities.push(language ? { type: 'pre', offset, length, language } : { type: 'pre', offset, length });
    }
    if (pre) i += 2;
  }
  return { text: out, entities: sortEntities(entities) };
}
