import type { Behaviour } from './types.ts';

// Checked in this order when a text carries several words; upper case only, so ordinary prose
// ("a slow build") never trips them.
const MAGIC: ReadonlyArray<[RegExp, Behaviour]> = [
  [/\bFAIL400\b/, 'fail400'],
  [/\bFAIL500\b/, 'fail500'],
  [/\bHANG\b/, 'hang'],
  [/\bSTALL\b/, 'stall'],
  [/\bSLOW\b/, 'slow'],
  [/\bTWOBLOCKS\b/, 'twoblocks'],
  [/\bTOOLBASH-[A-Za-z0-9_]+\b/, 'toolbash'],
];

export function pickBehaviour(userText: string): Behaviour {
  for (const [re, behaviour] of MAGIC) if (re.test(userText)) return behaviour;
  return 'reply';
}

export function replyText(n: number, userText: string): string {
  return `MOCK-REPLY-${n}: you said "${userText}"`;
}

export function titleText(n: number): string {
  return JSON.stringify({ title: `Mock title ${n}` });
}

/** TWOBLOCKS: the two block texts; a client shows them concatenated. */
export function twoBlockTexts(n: number, userText: string): [string, string] {
  return [replyText(n, userText), ` MOCK-SECOND-BLOCK-${n}`];
}

/** SLOW: chunk i (1-based) of count; the first carries the usual reply so tests can match it. */
export function slowChunkText(n: number, userText: string, i: number, count: number): string {
  return i === 1 ? `${replyText(n, userText)} [1/${count}]` : ` [${i}/${count}]`;
}

export function slowText(n: number, userText: string, count: number): string {
  let text = '';
  for (let i = 1; i <= count; i++) text += slowChunkText(n, userText, i, count);
  return text;
}

/** Splits an instant reply into a few deltas (about four words each) so clients really stream. */
export function splitDeltas(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 4) out.push(words.slice(i, i + 4).join(''));
  return out.length > 0 ? out : [''];
}

/**
 * TOOLBASH-<x>: a Bash call that creates the marker file `ran-<x>` in the CLI's working folder
 * (a write, so a CLI in its default permission mode asks before running it).
 */
export function toolBashCall(n: number, userText: string): { text: string; input: { command: string; description: string } } | null {
  const m = /\bTOOLBASH-([A-Za-z0-9_]+)\b/.exec(userText);
  if (!m) return null;
  const marker = `ran-${m[1]}`;
  return { text: `MOCK-TOOL-${n}: creating ${marker}`, input: { command: `touch ${marker}`, description: `Touch ${marker}` } };
}

/** The answer to the request that carries a tool's result; tests read the result back from it. */
export function toolDoneText(n: number, isError: boolean, content: string): string {
  return `TOOL-DONE-${n}: is_error=${isError} result=${content}`;
}

/** Rough, deterministic token estimate for usage fields. */
export function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}
