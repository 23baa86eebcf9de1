import {
  pickBehaviour,
  replyText,
  slowChunkText,
  splitDeltas,
  titleText,
  twoBlockTexts,
} from './behaviour.ts';
import type { Exchange } from './http-server.ts';
import type { Behaviour } from './types.ts';

/** One text delta of an answer: which content block it belongs to and the pause before it. */
export interface Step {
  block: number;
  text: string;
  delayMs: number;
}

/** How a model request is answered, shared by both APIs; each API renders it in its own wire shape. */
export type Plan =
  | { type: 'fail'; status: 400 | 500 }
  | { type: 'hang' }
  | { type: 'text'; steps: Step[]; stall: boolean };

/** Chooses the answer for a turn or title request and records it on the log entry. */
export function planFor(x: Exchange, opts: { allowTwoBlocks: boolean }): Plan {
  const n = x.entry.id;
  const userText = x.entry.userText ?? '';
  if (x.entry.kind === 'title') {
    x.entry.behaviour = 'title';
    x.entry.reply = titleText(n);
    return { type: 'text', steps: [{ block: 0, text: x.entry.reply, delayMs: 0 }], stall: false };
  }
  let behaviour: Behaviour = pickBehaviour(userText);
  if (behaviour === 'twoblocks' && !opts.allowTwoBlocks) behaviour = 'reply';
  x.entry.behaviour = behaviour;
  const single = (text: string): Step[] => splitDeltas(text).map((t) => ({ block: 0, text: t, delayMs: 0 }));
  switch (behaviour) {
    case 'fail400':
      return { type: 'fail', status: 400 };
    case 'fail500':
      return { type: 'fail', status: 500 };
    case 'hang':
      return { type: 'hang' };
    case 'stall':
      x.entry.reply = replyText(n, userText);
      return { type: 'text', steps: [{ block: 0, text: x.entry.reply, delayMs: 0 }], stall: true };
    case 'slow': {
      const steps: Step[] = [];
      for (let i = 1; i <= x.slowChunks; i++) {
        steps.push({ block: 0, text: slowChunkText(n, userText, i, x.slowChunks), delayMs: i === 1 ? 0 : x.slowChunkMs });
      }
      x.entry.reply = steps.map((s) => s.text).join('');
      return { type: 'text', steps, stall: false };
    }
    case 'twoblocks': {
      const [a, b] = twoBlockTexts(n, userText);
      x.entry.reply = a + b;
      return {
        type: 'text',
        steps: [...single(a), ...single(b).map((s) => ({ ...s, block: 1 }))],
        stall: false,
      };
    }
    case 'reply':
      x.entry.reply = replyText(n, userText);
      return { type: 'text', steps: single(x.entry.reply), stall: false };
    default:
      return behaviour satisfies never;
  }
}

/** Full text per content block, for non-streaming answers. */
export function blockTexts(steps: Step[]): string[] {
  const out: string[] = [];
  for (const s of steps) out[s.block] = (out[s.block] ?? '') + s.text;
  return out;
}

/** Total pause of a plan, for non-streaming answers to SLOW. */
export function totalDelay(steps: Step[]): number {
  return steps.reduce((sum, s) => sum + s.delayMs, 0);
}
