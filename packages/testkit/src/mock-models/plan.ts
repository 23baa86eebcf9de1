import {
  hugeReplyText,
  mdSampleText,
  pickBehaviour,
  replyText,
  sequenceStep,
  sequenceWord,
  slowChunkText,
  slowLineChunkText,
  splitDeltas,
  titleText,
  type ToolBehaviour,
  toolCall,
  toolDoneText,
  toolFollowUp,
  twoBlockTexts,
} from './behaviour.ts';
import type { Behaviour, MockRequest, MockToolCall } from './types.ts';

/** One text delta of an answer: which content block it belongs to and the pause before it. */
export interface Step {
  block: number;
  text: string;
  delayMs: number;
}

/** How a model request is answered, shared by both APIs; each API renders it in its own wire shape. */
/**
 * `limit`: the provider's usage-limit refusal (HTTP 429), the limit resetting at `resetsAt` (seconds
 * since the epoch); each API answers it in its own shape (anthropic-mock.ts, openai-mock.ts).
 */
export type Plan =
  | { type: 'fail'; status: 400 | 500 }
  | { type: 'limit'; resetsAt: number }
  | { type: 'hang' }
  | { type: 'text'; steps: Step[]; stall: boolean; tool?: MockToolCall };

export interface PlanOptions {
  allowTwoBlocks: boolean;
  slowChunks: number;
  slowChunkMs: number;
  /**
   * The tool words the API renders as tool calls (its CLI's tools) and the id prefix of its calls;
   * other tool words are answered as a plain reply, and without tools a tool result is too.
   */
  tools: { behaviours: readonly ToolBehaviour[]; idPrefix: string; flavour: 'anthropic' | 'openai' } | null;
}

const TOOL_WORDS: readonly Behaviour[] = [
  'toolbash',
  'toolwrite',
  'tooledit',
  'toolask',
  'toolaskmulti',
  'toolshell',
  'toolfail',
  'toolwait',
  'toolaskwait',
  'toolsteps',
  'toolmix',
];

/**
 * Chooses the answer for a turn or title request and records it on the log entry; runs before
 * the entry is logged so waiters can match on `behaviour` and `reply` right away.
 */
export function planFor(entry: MockRequest, opts: PlanOptions): Plan {
  const n = entry.id;
  const userText = entry.userText ?? '';
  if (entry.kind === 'title') {
    entry.behaviour = 'title';
    entry.reply = titleText(n);
    return { type: 'text', steps: [{ block: 0, text: entry.reply, delayMs: 0 }], stall: false };
  }
  // A tool result closes the tool call of the turn before, whatever the earlier prompt said.
  const tools = opts.tools;
  // A sequence word (TOOLSTEPS, TOOLMIX) goes on over the tool results of its own turn.
  const sequence = entry.toolResult && tools ? sequenceWord(entry.turnText ?? '') : null;
  let behaviour: Behaviour = entry.toolResult && tools ? (sequence ?? 'tooldone') : pickBehaviour(entry.behaviourText ?? userText);
  if (behaviour === 'twoblocks' && !opts.allowTwoBlocks) behaviour = 'reply';
  if (TOOL_WORDS.includes(behaviour) && !tools?.behaviours.includes(behaviour as ToolBehaviour)) behaviour = 'reply';
  entry.behaviour = behaviour;
  const single = (text: string): Step[] => splitDeltas(text).map((t) => ({ block: 0, text: t, delayMs: 0 }));
  const callWith = (call: { text: string; name: string; input: Record<string, unknown> }): Plan => {
    entry.reply = call.text;
    entry.toolCall = { id: `${tools?.idPrefix ?? 'call_mock_'}${n}`, name: call.name, input: call.input };
    return { type: 'text', steps: single(call.text), stall: false, tool: entry.toolCall };
  };
  switch (behaviour) {
    case 'fail400':
      return { type: 'fail', status: 400 };
    case 'limit429': {
      // LIMIT429-<s>: the limit resets s seconds from now; plain LIMIT429: in an hour.
      const seconds = Number(/\bLIMIT429-(\d+)\b/.exec(entry.behaviourText ?? userText)?.[1] ?? 3600);
      return { type: 'limit', resetsAt: Math.ceil(Date.now() / 1000) + seconds };
    }
    case 'fail500':
      return { type: 'fail', status: 500 };
    case 'hang':
      return { type: 'hang' };
    case 'stall':
      entry.reply = replyText(n, userText);
      return { type: 'text', steps: [{ block: 0, text: entry.reply, delayMs: 0 }], stall: true };
    case 'slow':
    case 'slowlines': {
      const chunk = behaviour === 'slow' ? slowChunkText : slowLineChunkText;
      const steps: Step[] = [];
      for (let i = 1; i <= opts.slowChunks; i++) {
        steps.push({ block: 0, text: chunk(n, userText, i, opts.slowChunks), delayMs: i === 1 ? 0 : opts.slowChunkMs });
      }
      entry.reply = steps.map((s) => s.text).join('');
      return { type: 'text', steps, stall: false };
    }
    case 'twoblocks': {
      const [a, b] = twoBlockTexts(n, userText);
      entry.reply = a + b;
      return {
        type: 'text',
        steps: [...single(a), ...single(b).map((s) => ({ ...s, block: 1 }))],
        stall: false,
      };
    }
    case 'toolbash':
    case 'toolwrite':
    case 'tooledit':
    case 'toolask':
    case 'toolaskmulti':
    case 'toolfail':
    case 'toolwait':
    case 'toolaskwait':
    case 'toolshell': {
      const call = toolCall(behaviour, n, entry.behaviourText ?? userText, tools?.flavour);
      if (!call) throw new Error(`${behaviour} picked without its marker name`);
      return callWith(call);
    }
    case 'toolsteps':
    case 'toolmix': {
      const text = entry.toolResult ? (entry.turnText ?? '') : (entry.behaviourText ?? userText);
      const step = sequenceStep(behaviour, n, text, entry.toolResult ? (entry.turnToolResults ?? 0) : 0, tools?.flavour);
      if (!step) throw new Error(`${behaviour} picked without its marker`);
      if (step.type === 'call') return callWith(step.call);
      entry.reply = step.text;
      return { type: 'text', steps: single(entry.reply), stall: false };
    }
    case 'tooldone': {
      const r = entry.toolResult!;
      const next = toolFollowUp(n, { toolName: r.toolName ?? null, toolInput: r.toolInput, isError: r.isError });
      if (next) {
        entry.behaviour = 'tooledit';
        return callWith(next);
      }
      entry.reply = toolDoneText(n, r.isError, r.content);
      return { type: 'text', steps: single(entry.reply), stall: false };
    }
    case 'hugereply': {
      entry.reply = hugeReplyText(entry.behaviourText ?? userText);
      // Deltas of 8,000 characters: a word-by-word stream of 600k characters would take minutes.
      const steps: Step[] = [];
      for (let i = 0; i < entry.reply.length; i += 8_000) steps.push({ block: 0, text: entry.reply.slice(i, i + 8_000), delayMs: 0 });
      return { type: 'text', steps, stall: false };
    }
    case 'mdsample':
      entry.reply = mdSampleText(n);
      return { type: 'text', steps: single(entry.reply), stall: false };
    case 'reply':
      entry.reply = replyText(n, userText);
      return { type: 'text', steps: single(entry.reply), stall: false };
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
