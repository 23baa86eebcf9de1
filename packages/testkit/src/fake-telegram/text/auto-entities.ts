import type { MessageEntity } from '@grammyjs/types';

// Entities the server finds on its own in plain text. Narrower than the real detector (no bare
// domains, no e-mail, phone or cashtag), which is enough for what a bot and a test look at.
const DETECTORS: Array<{ type: MessageEntity['type']; re: RegExp; trim?: RegExp }> = [
  { type: 'bot_command', re: /(?<![A-Za-z0-9_/<>])\/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![A-Za-z0-9_/<>])/g },
  { type: 'mention', re: /(?<![A-Za-z0-9_@])@[A-Za-z][A-Za-z0-9_]{2,31}(?![A-Za-z0-9_])/g },
  { type: 'hashtag', re: /(?<![\p{L}\p{N}_#])#[\p{L}_][\p{L}\p{N}_]*/gu },
  { type: 'url', re: /(?<![\w@])(?:https?:\/\/|www\.)[^\s<>"]+/gi, trim: /[.,;:!?)'\]]+$/ },
];

const ATOMIC = new Set(['code', 'pre', 'text_link', 'text_mention', 'custom_emoji', 'url', 'bot_command']);

export function detectEntities(text: string, existing: MessageEntity[]): MessageEntity[] {
  const found: MessageEntity[] = [];
  const blocked = existing.filter((e) => ATOMIC.has(e.type));
  for (const { type, re, trim } of DETECTORS) {
    for (const m of text.matchAll(re)) {
      const value = trim ? m[0].replace(trim, '') : m[0];
      const offset = m.index ?? 0;
      const length = value.length;
      if (length === 0) continue;
      const clash = [...blocked, ...found].some((e) => offset < e.offset + e.length && e.offset < offset + length);
      if (!clash) found.push({ type, offset, length } as MessageEntity);
    }
  }
  return found;
}
