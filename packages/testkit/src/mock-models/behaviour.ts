import type { Behaviour } from './types.ts';

/** TOOLSTEPS-<n>, n from 1 to 300 (a larger n is an ordinary reply, not a runaway loop). */
const STEPS_WORD = /\bTOOLSTEPS-([1-9]\d?|[12]\d\d|300)\b/;

// Checked in this order when a text carries several words; upper case only, so ordinary prose
// ("a slow build") never trips them.
const MAGIC: ReadonlyArray<[RegExp, Behaviour]> = [
  [/\bLIMIT429(?:-[1-9]\d{0,5})?\b/, 'limit429'],
  [/\bFAIL400\b/, 'fail400'],
  [/\bFAIL500\b/, 'fail500'],
  [/\bHANG\b/, 'hang'],
  [/\bSTALL\b/, 'stall'],
  [/\bSLOWLINES\b/, 'slowlines'],
  [/\bSLOW\b/, 'slow'],
  [/\bTWOBLOCKS\b/, 'twoblocks'],
  [/\bMDSAMPLE\b/, 'mdsample'],
  [/\bHUGEREPLY-[1-9]\d{0,6}\b/, 'hugereply'],
  [/\bTOOLBASH-[A-Za-z0-9_]+\b/, 'toolbash'],
  [/\bTOOLWRITE-[A-Za-z0-9_]+\b/, 'toolwrite'],
  [/\bTOOLEDIT-[A-Za-z0-9_]+\b/, 'tooledit'],
  [/\bTOOLASKMULTI\b/, 'toolaskmulti'],
  [/\bTOOLASK\b/, 'toolask'],
  [/\bTOOLSHELL-[A-Za-z0-9_]+\b/, 'toolshell'],
  [/\bTOOLFAIL-(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-5])\b/, 'toolfail'],
  [/\bTOOLWAIT-[A-Za-z0-9_]+\b/, 'toolwait'],
  [/\bTOOLASKWAIT-[A-Za-z0-9_]+\b/, 'toolaskwait'],
  [STEPS_WORD, 'toolsteps'],
  [/\bTOOLMIX-[A-Za-z0-9_]+\b/, 'toolmix'],
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

/**
 * HUGEREPLY-<n> (n up to 9,999,999): an answer of exactly n characters of Cyrillic prose in numbered
 * lines of 100 characters (600,000 characters are ~1.2 MB as UTF-8: beyond one frame of the hub ⇄
 * agent protocol). Deterministic, so a test can compare what arrived character for character.
 */
export function hugeReplyText(userText: string): string {
  const n = Number(/\bHUGEREPLY-(\d+)/.exec(userText)?.[1] ?? 0);
  const words = 'привет мир это длинный ответ модели съешь ещё этих мягких французских булок да выпей чаю ';
  let out = '';
  for (let line = 1; out.length < n; line++) {
    const head = `${line}. `;
    let body = head;
    while (body.length < 99) body += words;
    out += `${body.slice(0, 99)}\n`;
  }
  return out.slice(0, n);
}

/** MDSAMPLE: lines in its long code block, more than a dashboard shows before folding. */
export const MD_SAMPLE_LONG_LINES = 40;

/**
 * MDSAMPLE: a Markdown answer with what a renderer must handle — a heading, a fenced block with a
 * language, a table with alignments and markup in a cell, a list and a long fenced block.
 */
export function mdSampleText(n: number): string {
  const long = Array.from({ length: MD_SAMPLE_LONG_LINES }, (_, i) => `log line ${i + 1} of ${MD_SAMPLE_LONG_LINES}`);
  return [
    `MOCK-MD-${n}: a Markdown sample.`,
    '',
    '## Result',
    '',
    '```ts',
    `const answer: number = ${n};`,
    'console.log("answer", answer);',
    '```',
    '',
    '| Fruit | Count | Note |',
    '|:--|--:|---|',
    '| apples | 3 | <img src=x onerror=alert(1)> |',
    '| pears | 12 | **ripe** |',
    '',
    '1. first step',
    '2. second step',
    '',
    '```text',
    ...long,
    '```',
  ].join('\n');
}

/** TWOBLOCKS: the two block texts; a client shows them concatenated. */
export function twoBlockTexts(n: number, userText: string): [string, string] {
  return [replyText(n, userText), ` MOCK-SECOND-BLOCK-${n}`];
}

/** SLOW: chunk i (1-based) of count; the first carries the usual reply so tests can match it. */
export function slowChunkText(n: number, userText: string, i: number, count: number): string {
  return i === 1 ? `${replyText(n, userText)} [1/${count}]` : ` [${i}/${count}]`;
}

/**
 * SLOWLINES: like SLOW, but each later chunk starts a new line. Claude Code draws an answer's lines
 * only once they are complete, so a draft read from its screen grows only with such an answer.
 */
export function slowLineChunkText(n: number, userText: string, i: number, count: number): string {
  return i === 1 ? `${replyText(n, userText)} [1/${count}]` : `\nline ${i} of ${count} of the slow answer`;
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

/** A tool call a magic word asks for: the text before it and the call itself. */
export interface ToolCallPlan {
  text: string;
  name: string;
  input: Record<string, unknown>;
}

/** The tool-calling magic words (each API renders the ones its CLI has, see `MockApi.tools`). */
export type ToolBehaviour =
  | 'toolbash'
  | 'toolwrite'
  | 'tooledit'
  | 'toolask'
  | 'toolaskmulti'
  | 'toolshell'
  | 'toolfail'
  | 'toolwait'
  | 'toolaskwait'
  | SequenceBehaviour;
/** Tool words that make several calls in a row, one per request, within one turn. */
export type SequenceBehaviour = 'toolsteps' | 'toolmix';

/** The questions of TOOLASK / TOOLASKMULTI (Claude's AskUserQuestion input). */
export const ASK_SINGLE = {
  question: 'Which color do you prefer?',
  header: 'Color',
  multiSelect: false,
  options: [
    { label: 'Red', description: 'warm' },
    { label: 'Blue', description: 'cool' },
  ],
};
/** TOOLASK for Codex: its `request_user_input` takes an id per question and no multiSelect. */
export const ASK_CODEX = {
  id: 'color',
  header: 'Color',
  question: 'Which color do you prefer?',
  options: [
    { label: 'Red', description: 'warm' },
    { label: 'Blue', description: 'cool' },
  ],
};
export const ASK_MULTI = {
  question: 'Which toppings do you want?',
  header: 'Toppings',
  multiSelect: true,
  options: [
    { label: 'Cheese', description: 'melted' },
    { label: 'Ham', description: 'smoked' },
    { label: 'Olives', description: 'black' },
  ],
};

function marker(word: string, userText: string): string | null {
  return new RegExp(`\\b${word}-([A-Za-z0-9_]+)\\b`).exec(userText)?.[1] ?? null;
}

/**
 * The tool call of a magic word; every file it touches is named after `<x>` in the CLI's working
 * folder, each a change a CLI in its default permission mode asks about:
 * - TOOLBASH-<x>: Claude Bash `touch ran-<x>`.
 * - TOOLWRITE-<x>: Claude Write of a new `written-<x>.txt`.
 * - TOOLEDIT-<x>: Claude Read of `edit-<x>.txt` (Claude edits only a file it has read), then, on
 *   that result, Edit `before <x>` → `after <x>` (see `toolFollowUp`); the test creates the file.
 * - TOOLASK / TOOLASKMULTI: Claude AskUserQuestion with one single- / multi-select question;
 *   TOOLASK for Codex (`flavour` openai): `request_user_input` with one question.
 * - TOOLFAIL-<n> (1..255): a command that writes to stderr and exits with n (Claude Bash, Codex
 *   `exec_command` without escalation), for what the CLIs record of a failed command.
 * - TOOLWAIT-<x>: a command (Claude Bash, Codex `exec_command`) that runs until the file `go-<x>`
 *   exists in the CLI's folder, so a test sees a tool call in progress for as long as it needs to
 *   and ends it by creating that file (no timing involved).
 * - TOOLASKWAIT-<x>: a command that asks for permission and, once allowed, runs until `go-<x>`
 *   exists, then touches `ran-<x>` (Claude Bash; Codex `exec_command` asking to run outside the
 *   sandbox like TOOLSHELL): a permission request followed by a tool call in progress for as long
 *   as a test needs.
 * - TOOLSHELL-<x>: Codex `exec_command` `touch ran-<x>` asking to run outside the sandbox
 *   (`sandbox_permissions: "require_escalated"` + a justification), so Codex under
 *   `-a on-request -s read-only` asks for approval.
 */
export function toolCall(behaviour: ToolBehaviour, n: number, userText: string, flavour: 'anthropic' | 'openai' = 'anthropic'): ToolCallPlan | null {
  const say = (what: string) => `MOCK-TOOL-${n}: ${what}`;
  switch (behaviour) {
    case 'toolbash': {
      const x = marker('TOOLBASH', userText);
      return x === null ? null : { text: say(`creating ran-${x}`), name: 'Bash', input: { command: `touch ran-${x}`, description: `Touch ran-${x}` } };
    }
    case 'toolwrite': {
      const x = marker('TOOLWRITE', userText);
      return x === null
        ? null
        : { text: say(`writing written-${x}.txt`), name: 'Write', input: { file_path: `written-${x}.txt`, content: `written by TOOLWRITE-${x}\n` } };
    }
    case 'tooledit': {
      const x = marker('TOOLEDIT', userText);
      return x === null ? null : { text: say(`reading edit-${x}.txt`), name: 'Read', input: { file_path: `edit-${x}.txt` } };
    }
    case 'toolask':
      return flavour === 'openai'
        ? { text: say('asking a question'), name: 'request_user_input', input: { questions: [ASK_CODEX] } }
        : { text: say('asking a question'), name: 'AskUserQuestion', input: { questions: [ASK_SINGLE] } };
    case 'toolaskmulti':
      return { text: say('asking a multi-select question'), name: 'AskUserQuestion', input: { questions: [ASK_MULTI] } };
    case 'toolshell': {
      const x = marker('TOOLSHELL', userText);
      if (x === null) return null;
      const args = { cmd: `touch ran-${x}`, sandbox_permissions: 'require_escalated', justification: `Create the marker ran-${x}` };
      return { text: say(`creating ran-${x}`), name: 'exec_command', input: args };
    }
    case 'toolfail': {
      const code = marker('TOOLFAIL', userText);
      if (code === null) return null;
      const cmd = `echo failing-${code} >&2; exit ${code}`;
      return flavour === 'openai'
        ? { text: say(`failing with ${code}`), name: 'exec_command', input: { cmd } }
        : { text: say(`failing with ${code}`), name: 'Bash', input: { command: cmd, description: `Fail with ${code}` } };
    }
    case 'toolwait': {
      const x = marker('TOOLWAIT', userText);
      if (x === null) return null;
      const cmd = `until [ -e go-${x} ]; do sleep 0.2; done; echo released-${x}`;
      return flavour === 'openai'
        ? { text: say(`waiting for go-${x}`), name: 'exec_command', input: { cmd, yield_time_ms: 600000 } }
        : { text: say(`waiting for go-${x}`), name: 'Bash', input: { command: cmd, description: `Wait for go-${x}`, timeout: 600000 } };
    }
    case 'toolaskwait': {
      const x = marker('TOOLASKWAIT', userText);
      if (x === null) return null;
      const cmd = `until [ -e go-${x} ]; do sleep 0.2; done; touch ran-${x}`;
      return flavour === 'openai'
        ? {
            text: say(`waiting for go-${x}`),
            name: 'exec_command',
            input: { cmd, sandbox_permissions: 'require_escalated', justification: `Wait for go-${x}`, yield_time_ms: 600000 },
          }
        : { text: say(`waiting for go-${x}`), name: 'Bash', input: { command: cmd, description: `Wait for go-${x}`, timeout: 600000 } };
    }
    case 'toolsteps':
    case 'toolmix': {
      const step = sequenceStep(behaviour, n, userText, 0, flavour);
      return step?.type === 'call' ? step.call : null;
    }
    default:
      return behaviour satisfies never;
  }
}

/** The sequence word a turn's prompt carries, if any. */
export function sequenceWord(turnText: string): SequenceBehaviour | null {
  if (STEPS_WORD.test(turnText)) return 'toolsteps';
  return marker('TOOLMIX', turnText) === null ? null : 'toolmix';
}

/**
 * One step of a sequence word, for a request that already holds `done` tool results of the turn
 * (the CLI resends the whole turn each time, so the count says how far it got), or its final text:
 * - TOOLSTEPS-<n>: n quick commands `echo step-<i>` (Claude Bash with a description, Codex
 *   `exec_command` with no escalation), then `MOCK-STEPS-DONE: <n> steps`.
 * - TOOLMIX-<x>: Claude Bash `echo mix-<x>`, Write `mix-<x>.txt` (`old line`), Edit of it
 *   (`old line` → `new line`); Codex `exec_command` `echo mix-<x>`, then one writing `mix-<x>.txt`
 *   with printf; then `MOCK-MIX-DONE: mix-<x>`.
 * Each call is preceded by a short text (`MOCK-STEP-<i>/<total>`), so there is assistant text between tools.
 */
export function sequenceStep(
  behaviour: SequenceBehaviour,
  n: number,
  turnText: string,
  done: number,
  flavour: 'anthropic' | 'openai' = 'anthropic',
): { type: 'call'; call: ToolCallPlan } | { type: 'final'; text: string } | null {
  const codex = flavour === 'openai';
  const say = (total: number) => `MOCK-STEP-${n}: ${done + 1}/${total}`;
  if (behaviour === 'toolsteps') {
    const total = Number(STEPS_WORD.exec(turnText)?.[1] ?? Number.NaN);
    if (!Number.isInteger(total)) return null;
    if (done >= total) return { type: 'final', text: `MOCK-STEPS-DONE: ${total} steps` };
    const i = done + 1;
    const call = codex
      ? { name: 'exec_command', input: { cmd: `echo step-${i}` } }
      : { name: 'Bash', input: { command: `echo step-${i}`, description: `Print step ${i}` } };
    return { type: 'call', call: { text: say(total), ...call } };
  }
  const x = marker('TOOLMIX', turnText);
  if (x === null) return null;
  const file = `mix-${x}.txt`;
  const calls = codex
    ? [
        { name: 'exec_command', input: { cmd: `echo mix-${x}` } },
        { name: 'exec_command', input: { cmd: `printf 'a\\nb\\n' > ${file}` } },
      ]
    : [
        { name: 'Bash', input: { command: `echo mix-${x}`, description: `Print mix-${x}` } },
        { name: 'Write', input: { file_path: file, content: 'old line\n' } },
        { name: 'Edit', input: { file_path: file, old_string: 'old line', new_string: 'new line' } },
      ];
  const call = calls[done];
  if (!call) return { type: 'final', text: `MOCK-MIX-DONE: mix-${x}` };
  return { type: 'call', call: { text: say(calls.length), ...call } };
}

/** The second step of TOOLEDIT: after a successful Read of `edit-<x>.txt`, the Edit of it. */
export function toolFollowUp(n: number, result: { toolName: string | null; toolInput: unknown; isError: boolean }): ToolCallPlan | null {
  if (result.toolName !== 'Read' || result.isError) return null;
  const path = (result.toolInput as { file_path?: unknown } | null)?.file_path;
  const x = typeof path === 'string' ? /(?:^|\/)edit-([A-Za-z0-9_]+)\.txt$/.exec(path)?.[1] : undefined;
  if (x === undefined) return null;
  return {
    text: `MOCK-TOOL-${n}: editing edit-${x}.txt`,
    name: 'Edit',
    input: { file_path: path as string, old_string: `before ${x}`, new_string: `after ${x}` },
  };
}

/** The answer to the request that carries a tool's result; tests read the result back from it. */
export function toolDoneText(n: number, isError: boolean, content: string): string {
  return `TOOL-DONE-${n}: is_error=${isError} result=${content}`;
}

/** Rough, deterministic token estimate for usage fields. */
export function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}
