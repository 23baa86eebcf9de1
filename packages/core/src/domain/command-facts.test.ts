import { describe, expect, it } from 'vitest';
import { COMMAND_FAILURE_CODES, parseCommandResult } from '../protocol/command-results.ts';
import {
  type CommandAnswerFacts,
  type CommandAnswerReads,
  type CommandFactSnapshot,
  type CommandResultEffect,
  commandResultReads,
  interpretCommandResult,
} from './command-facts.ts';
import { SESSION_STATES } from './session-types.ts';

const G = 3;
const CMD = '00000000-0000-4000-8000-0000000000c1';
const MSG = '00000000-0000-4000-8000-000000000001';
const base: CommandFactSnapshot = {
  state: 'Ready',
  resumeState: null,
  observerGeneration: G,
  executor: 'claude',
  commandId: CMD,
  commandGeneration: G,
  leasedMessageId: MSG,
};
const snap = (o: Partial<CommandFactSnapshot> = {}): CommandFactSnapshot => ({ ...base, ...o });
/** An answer as the engine gets it: through the protocol's parser (codes derived as for a real agent). */
const answer = (raw: Record<string, unknown>): CommandAnswerFacts => {
  const p = parseCommandResult(raw);
  if (!p.ok) throw new Error(p.error);
  return p.result;
};

const COMMANDS = ['deliver', 'start_session', 'resume_session', 'close_session', 'interrupt', 'attach_session', 'discover', 'probe'] as const;
/** `ok`, then a refusal with every code the protocol knows. */
const ANSWERS: (string | null)[] = [null, ...COMMAND_FAILURE_CODES];
const LOAD_GENERATION = { commandGeneration: true, leasedMessage: false };

describe('what to load, every command × ok / failure code × interrupted', () => {
  const cases = COMMANDS.flatMap((command) => ANSWERS.flatMap((code) => [false, true].map((interrupted) => ({ command, code: code ?? 'ok', interrupted }))));
  it.each(cases)('$command answered $code (interrupted: $interrupted)', ({ command, code, interrupted }) => {
    const r = answer({ command, ...(code === 'ok' ? { ok: true } : { ok: false, code }), ...(interrupted ? { interrupted: true } : {}) });
    // A deliver changes something only through its flags (typed, delivery; table below), never its code.
    const resumeRefusal = command === 'resume_session' && code !== 'ok' && !interrupted && !['stale_generation', 'blocked', 'interrupted'].includes(code);
    const expected: CommandAnswerReads =
      command === 'deliver'
        ? null
        : resumeRefusal
          ? LOAD_GENERATION
          : interrupted
            ? { commandGeneration: command === 'start_session' || command === 'resume_session', leasedMessage: false }
            : null;
    expect(commandResultReads(r, CMD)).toEqual(expected);
    // Without the command's id nothing but a deliver's message can be bound to the answer.
    expect(commandResultReads(r, null)).toBeNull();
  });

  const deliver: { name: string; raw: Record<string, unknown>; reads: CommandAnswerReads }[] = [
    { name: 'typed: false (not_typed)', raw: { ok: false, typed: false, delivery: 'not_typed', code: 'not_typed' }, reads: 'untyped' },
    { name: 'typed: false (stale_generation)', raw: { ok: false, typed: false, code: 'stale_generation' }, reads: 'untyped' },
    { name: 'typed: false (attachment_not_stored)', raw: { ok: false, typed: false, attachmentError: 'disk full' }, reads: 'untyped' },
    { name: 'typed: false, interrupted (the agent died before typing)', raw: { ok: false, typed: false, interrupted: true }, reads: 'untyped' },
    { name: 'delivery unknown (no receipt)', raw: { ok: false, delivery: 'unknown' }, reads: { commandGeneration: false, leasedMessage: true } },
    {
      name: 'delivery unknown, interrupted',
      raw: { ok: false, delivery: 'unknown', interrupted: true },
      reads: { commandGeneration: false, leasedMessage: true },
    },
    {
      name: 'accepted, interrupted',
      raw: { ok: true, delivery: 'accepted', interrupted: true, nativeRef: 'r1' },
      reads: { commandGeneration: false, leasedMessage: true },
    },
    { name: 'accepted', raw: { ok: true, delivery: 'accepted', nativeRef: 'r1' }, reads: null },
    { name: 'delivery not_typed without typed: false', raw: { ok: false, delivery: 'not_typed' }, reads: null },
  ];
  it.each(deliver)('deliver $name', ({ raw, reads }) => {
    expect(commandResultReads(answer({ command: 'deliver', messageId: MSG, ...raw }), CMD)).toEqual(reads);
  });
  it('a deliver answered unknown without a command id still loads (its message cannot be leased by it)', () => {
    expect(commandResultReads(answer({ command: 'deliver', messageId: MSG, delivery: 'unknown' }), null)).toEqual({
      commandGeneration: false,
      leasedMessage: true,
    });
  });
});

const fact = (event: object, actor: 'agent' | 'hub', why: string, evidence?: object): CommandResultEffect =>
  ({ type: 'fact', event, actor, why, ...(evidence ? { evidence } : {}) }) as CommandResultEffect;
const interruptedEvidence = (command: string): CommandResultEffect => ({
  type: 'evidence',
  event: 'command_interrupted',
  evidence: { command, commandId: CMD },
});
const refused = (error?: string) => answer({ command: 'resume_session', ok: false, code: 'failed', ...(error !== undefined ? { error } : {}) });
const resumeFailed = (cause: string) => fact({ type: 'resume_failed', generation: G, cause }, 'agent', 'resume_refused', { commandId: CMD });

describe('a resume refused without its resume_failed fact, every state', () => {
  it.each(SESSION_STATES.flatMap((state) => SESSION_STATES.map((resumeState) => ({ state, resumeState }))))(
    '$state (resumeState $resumeState)',
    ({ state, resumeState }) => {
      const out = interpretCommandResult(snap({ state, resumeState }), refused('bad payload'));
      const attempt = state === 'Resuming' || (state === 'AwaitingRecovery' && resumeState === 'Resuming');
      expect(out).toEqual(attempt ? [resumeFailed('the computer refused the resume: bad payload')] : []);
    },
  );
});

describe('an interrupted close, every state', () => {
  it.each(SESSION_STATES)('%s', (state) => {
    const out = interpretCommandResult(snap({ state, leasedMessageId: null }), answer({ command: 'close_session', ok: false, interrupted: true }));
    expect(out).toEqual([
      interruptedEvidence('close_session'),
      ...(state === 'Closing' ? [fact({ type: 'node_returned', evidence: { reason: 'close_interrupted' } }, 'hub', 'close_interrupted')] : []),
    ]);
  });
});

const long = 'x'.repeat(201);
const table: { name: string; s: CommandFactSnapshot; r: CommandAnswerFacts; out: CommandResultEffect[] }[] = [
  {
    name: 'deliver unknown (no receipt), still leased by this command: unknown, on record',
    s: snap(),
    r: answer({ command: 'deliver', ok: false, delivery: 'unknown', messageId: MSG }),
    out: [
      { type: 'message_unknown', messageId: MSG, detail: 'no_receipt' },
      { type: 'evidence', event: 'delivery_unknown', evidence: { messageId: MSG, commandId: CMD, interrupted: false } },
    ],
  },
  {
    name: 'deliver unknown, cut short by an agent restart',
    s: snap(),
    r: answer({ command: 'deliver', ok: false, delivery: 'unknown', interrupted: true, messageId: MSG }),
    out: [
      { type: 'message_unknown', messageId: MSG, detail: 'delivery_interrupted' },
      { type: 'evidence', event: 'delivery_unknown', evidence: { messageId: MSG, commandId: CMD, interrupted: true } },
    ],
  },
  {
    name: 'deliver unknown, message no longer leased by it (a repeated answer, another command): nothing',
    s: snap({ leasedMessageId: null }),
    r: answer({ command: 'deliver', ok: false, delivery: 'unknown', messageId: MSG }),
    out: [],
  },
  {
    name: 'interrupted receipt, Claude: accepted by record id',
    s: snap(),
    r: answer({ command: 'deliver', ok: true, delivery: 'accepted', interrupted: true, messageId: MSG, nativeRef: 'rec-1' }),
    out: [{ type: 'accept_receipt', messageId: MSG, nativeRecordId: 'rec-1' }],
  },
  {
    name: 'interrupted receipt, Codex: accepted by turn id',
    s: snap({ executor: 'codex' }),
    r: answer({ command: 'deliver', ok: true, delivery: 'accepted', interrupted: true, messageId: MSG, nativeRef: 'turn-1' }),
    out: [{ type: 'accept_receipt', messageId: MSG, nativeTurnId: 'turn-1' }],
  },
  {
    name: 'interrupted receipt of 200 characters is one',
    s: snap(),
    r: answer({ command: 'deliver', ok: true, delivery: 'accepted', interrupted: true, messageId: MSG, nativeRef: long.slice(1) }),
    out: [{ type: 'accept_receipt', messageId: MSG, nativeRecordId: long.slice(1) }],
  },
  {
    name: 'interrupted receipt of 201 characters is none',
    s: snap(),
    r: answer({ command: 'deliver', ok: true, delivery: 'accepted', interrupted: true, messageId: MSG, nativeRef: long }),
    out: [],
  },
  {
    name: 'interrupted receipt, empty',
    s: snap(),
    r: answer({ command: 'deliver', ok: true, delivery: 'accepted', interrupted: true, messageId: MSG, nativeRef: '' }),
    out: [],
  },
  {
    name: 'interrupted receipt, none bound',
    s: snap(),
    r: answer({ command: 'deliver', ok: true, delivery: 'accepted', interrupted: true, messageId: MSG }),
    out: [],
  },
  {
    name: 'interrupted receipt, message no longer leased (its turn_accepted landed)',
    s: snap({ leasedMessageId: null }),
    r: answer({ command: 'deliver', ok: true, delivery: 'accepted', interrupted: true, messageId: MSG, nativeRef: 'rec-1' }),
    out: [],
  },
  {
    name: 'deliver accepted (not interrupted): its turn_accepted does the work',
    s: snap(),
    r: answer({ command: 'deliver', ok: true, delivery: 'accepted', messageId: MSG, nativeRef: 'rec-1' }),
    out: [],
  },
  { name: 'deliver typed: false: the hold decides, not this', s: snap(), r: answer({ command: 'deliver', ok: false, typed: false, messageId: MSG }), out: [] },
  {
    name: 'resume refused, no reason given',
    s: snap({ state: 'Resuming' }),
    r: refused(),
    out: [resumeFailed('the computer refused the resume: no reason given')],
  },
  {
    name: 'resume refused, empty reason',
    s: snap({ state: 'Resuming' }),
    r: refused(''),
    out: [resumeFailed('the computer refused the resume: no reason given')],
  },
  {
    name: 'resume refused, the cause is cut at 500 characters',
    s: snap({ state: 'Resuming' }),
    r: refused('y'.repeat(600)),
    out: [resumeFailed(`the computer refused the resume: ${'y'.repeat(600)}`.slice(0, 500))],
  },
  {
    name: 'resume refused as unsupported (older agent)',
    s: snap({ state: 'Resuming' }),
    r: answer({ command: 'resume_session', ok: false, code: 'unsupported', error: 'unknown command' }),
    out: [resumeFailed('the computer refused the resume: unknown command')],
  },
  {
    name: 'resume refused without a code (older agent: generic failed)',
    s: snap({ state: 'Resuming' }),
    r: answer({ command: 'resume_session', ok: false, error: 'x' }),
    out: [resumeFailed('the computer refused the resume: x')],
  },
  { name: 'resume refused for an older attempt: nothing', s: snap({ state: 'Resuming', commandGeneration: G - 1 }), r: refused('x'), out: [] },
  { name: 'resume refused, command generation unknown: nothing', s: snap({ state: 'Resuming', commandGeneration: null }), r: refused('x'), out: [] },
  {
    name: 'resume refused as stale: nothing',
    s: snap({ state: 'Resuming' }),
    r: answer({ command: 'resume_session', ok: false, code: 'stale_generation' }),
    out: [],
  },
  {
    name: 'resume left on a dialog (blocked): nothing, its timer bounds it',
    s: snap({ state: 'Resuming' }),
    r: answer({ command: 'resume_session', ok: false, blocked: true }),
    out: [],
  },
  {
    name: 'start refused: nothing (its facts travel as events)',
    s: snap({ state: 'Starting' }),
    r: answer({ command: 'start_session', ok: false, code: 'folder_missing' }),
    out: [],
  },
  { name: 'resume ok: nothing', s: snap({ state: 'Resuming' }), r: answer({ command: 'resume_session', ok: true }), out: [] },
  {
    name: 'interrupted start, CLI ended, current attempt: verified exit',
    s: snap({ state: 'Starting' }),
    r: answer({ command: 'start_session', ok: false, interrupted: true, exited: true }),
    out: [
      interruptedEvidence('start_session'),
      fact({ type: 'process_exited_verified', generation: G, evidence: { reason: 'start_session_interrupted' } }, 'agent', 'launch_interrupted'),
    ],
  },
  {
    name: 'interrupted start of a session being closed: the exit says the CLI wrote no journal (chaos seed 40022)',
    s: snap({ state: 'Closing' }),
    r: answer({ command: 'start_session', ok: false, interrupted: true, exited: true, journal: 'none' }),
    out: [
      interruptedEvidence('start_session'),
      fact(
        { type: 'process_exited_verified', generation: G, evidence: { reason: 'start_session_interrupted', journal: 'none' } },
        'agent',
        'launch_interrupted',
      ),
    ],
  },
  {
    name: 'interrupted resume, CLI ended, current attempt: verified exit',
    s: snap({ state: 'Resuming' }),
    r: answer({ command: 'resume_session', ok: false, interrupted: true, exited: true }),
    out: [
      interruptedEvidence('resume_session'),
      fact({ type: 'process_exited_verified', generation: G, evidence: { reason: 'resume_session_interrupted' } }, 'agent', 'launch_interrupted'),
    ],
  },
  {
    name: 'interrupted start, CLI ended, older attempt: evidence only',
    s: snap({ state: 'Starting', commandGeneration: G - 1 }),
    r: answer({ command: 'start_session', ok: false, interrupted: true, exited: true }),
    out: [interruptedEvidence('start_session')],
  },
  {
    name: 'interrupted start, CLI not ended: evidence only',
    s: snap({ state: 'Starting' }),
    r: answer({ command: 'start_session', ok: false, interrupted: true }),
    out: [interruptedEvidence('start_session')],
  },
  {
    name: 'interrupted interrupt: evidence only',
    s: snap({ state: 'Stopping' }),
    r: answer({ command: 'interrupt', ok: false, interrupted: true }),
    out: [interruptedEvidence('interrupt')],
  },
  {
    name: 'interrupted attach: evidence only',
    s: snap({ state: 'AwaitingRecovery' }),
    r: answer({ command: 'attach_session', ok: false, interrupted: true }),
    out: [interruptedEvidence('attach_session')],
  },
  {
    name: 'interrupted, a long command name is cut at 32',
    s: snap(),
    r: answer({ command: 'c'.repeat(40), ok: false, interrupted: true }),
    out: [interruptedEvidence('c'.repeat(32))],
  },
  {
    name: 'interrupted without the command id: nothing',
    s: snap({ state: 'Closing', commandId: null }),
    r: answer({ command: 'close_session', ok: false, interrupted: true }),
    out: [],
  },
  { name: 'close ok: nothing', s: snap({ state: 'Closing' }), r: answer({ command: 'close_session', ok: true }), out: [] },
  {
    name: 'close failed (not interrupted): nothing here',
    s: snap({ state: 'Closing' }),
    r: answer({ command: 'close_session', ok: false, code: 'failed' }),
    out: [],
  },
];

describe('interpretCommandResult', () => {
  it.each(table)('$name', ({ s, r, out }) => {
    expect(interpretCommandResult(s, r)).toEqual(out);
  });
});
