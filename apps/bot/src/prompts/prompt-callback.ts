/**
 * Buttons of a permission request or question (≤ 64 bytes; ids and indexes, never labels):
 * `pr:<prompt id>:<op>[:<question>[:<option>]][:<picks>]`.
 * - `a` allow, `d` deny, `w` always allow for the session, `r` deny with a reason (the next text),
 *   `x` cancel typing (back to the choices);
 * - `o:<q>:<i>:<picks>` option `i` of question `q`, `s:<q>:<picks>` send the ticked options of `q`,
 *   `t:<q>:<picks>` answer question `q` in text.
 * `picks` is the choice so far of every question, two hex digits (an option bitmask) per question:
 * the message itself carries the partial answer, so presses need no stored state (README "Prompts").
 */
export const MAX_QUESTIONS = 9;
export const MAX_OPTIONS = 8;

export type PromptPress =
  | { op: 'allow' | 'deny' | 'always' | 'reason' | 'cancel' | 'computer'; promptId: string }
  | { op: 'option'; promptId: string; q: number; i: number; picks: number[] }
  | { op: 'send' | 'text'; promptId: string; q: number; picks: number[] };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SIMPLE = { a: 'allow', d: 'deny', w: 'always', r: 'reason', x: 'cancel', c: 'computer' } as const;
const CODE = { allow: 'a', deny: 'd', always: 'w', reason: 'r', cancel: 'x', computer: 'c', option: 'o', send: 's', text: 't' } as const;

const picksOut = (p: number[]) => p.map((m) => m.toString(16).padStart(2, '0')).join('');
function picksIn(s: string | undefined): number[] | undefined {
  if (s === undefined || !/^([0-9a-f]{2}){1,9}$/.test(s)) return undefined;
  return s.match(/../g)?.map((h) => Number.parseInt(h, 16));
}
const index = (s: string | undefined, max: number) => (s !== undefined && /^\d$/.test(s) && Number(s) < max ? Number(s) : undefined);

export const promptCb = {
  encode(p: PromptPress): string {
    const parts: (string | number)[] = ['pr', p.promptId, CODE[p.op]];
    if (p.op === 'option') parts.push(p.q, p.i, picksOut(p.picks));
    else if (p.op === 'send' || p.op === 'text') parts.push(p.q, picksOut(p.picks));
    const s = parts.join(':');
    if (Buffer.byteLength(s) > 64) throw new Error(`callback data too long (${Buffer.byteLength(s)} bytes)`);
    return s;
  },
  /** Anything not shaped exactly like what `encode` writes is refused (tampered or from another build). */
  decode(s: string): PromptPress | undefined {
    const [pr, promptId, op, a, b, c, ...rest] = s.split(':');
    if (pr !== 'pr' || !promptId || !UUID.test(promptId) || rest.length > 0) return undefined;
    if (op && op in SIMPLE) return a === undefined ? { op: SIMPLE[op as keyof typeof SIMPLE], promptId } : undefined;
    const q = index(a, MAX_QUESTIONS);
    if (q === undefined) return undefined;
    if (op === 'o') {
      const i = index(b, MAX_OPTIONS);
      const picks = picksIn(c);
      return i !== undefined && picks && q < picks.length ? { op: 'option', promptId, q, i, picks } : undefined;
    }
    if ((op === 's' || op === 't') && c === undefined) {
      const picks = picksIn(b);
      return picks && q < picks.length ? { op: op === 's' ? 'send' : 'text', promptId, q, picks } : undefined;
    }
    return undefined;
  },
};
