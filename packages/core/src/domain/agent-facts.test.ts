import { describe, expect, it } from 'vitest';
import { type AgentEventEffect, type AgentFactSnapshot, type AgentSessionEvent, interpret } from './agent-facts.ts';
import { SESSION_STATES } from './session-types.ts';

const G = 4;
const MSG = '00000000-0000-4000-8000-000000000001';
const base: AgentFactSnapshot = {
  state: 'Ready',
  resumeState: null,
  observerGeneration: G,
  executor: 'claude',
  nativeSessionId: 'native-1',
  identityPid: 100,
  conversationMayExist: false,
  finalPending: false,
};
const snap = (o: Partial<AgentFactSnapshot> = {}): AgentFactSnapshot => ({ ...base, ...o });
const ev = <E extends Omit<AgentSessionEvent, 'generation'>>(e: E, generation: number | null = G) => ({ ...e, generation }) as AgentSessionEvent;
const identity = { nativeSessionId: 'native-1', pid: 100 };
const fact = (event: object, evidence?: object): AgentEventEffect => ({ type: 'fact', event, ...(evidence ? { evidence } : {}) }) as AgentEventEffect;

/** One event of every kind the engine hands to `interpret`. */
const samples: AgentSessionEvent[] = [
  ev({ name: 'session_ready', payload: { identity } }),
  ev({ name: 'resume_confirmed', payload: { identity } }),
  ev({ name: 'resume_failed', payload: { reason: 'gone' } }),
  ev({ name: 'turn_accepted', payload: { messageId: MSG, nativeTurnId: 't1' } }),
  ev({ name: 'turn_final', payload: { nativeTurnId: 't1', text: 'done' } }),
  ev({ name: 'turn_completed', payload: { nativeTurnId: 't1' } }),
  ev({ name: 'turn_interrupted', payload: { nativeTurnId: 't1' } }),
  ev({ name: 'turn_api_error', payload: { nativeTurnId: 't1' } }),
  ev({ name: 'usage', payload: { inputTokens: 1 } }),
  ev({ name: 'process_exited', payload: { pids: [1], exitStatus: 0, paneDead: true, verified: true } }),
  ev({ name: 'session_closed', payload: { evidence: { verified: true } } }),
  ev({ name: 'blocked_on_prompt', payload: { text: 'Trust this folder?' } }),
  ev({ name: 'evidence_unknown', payload: { messageId: MSG, processAlive: false } }),
  ev({ name: 'observer_lost', payload: {} }),
  ev({ name: 'reattached', payload: { identity } }),
  ev({ name: 'identity_mismatch', payload: { reason: 'not_found' } }),
  ev({
    name: 'permission_request',
    payload: { requestId: MSG, kind: 'tool', toolName: 'Bash', toolInput: { command: 'ls' }, canAlwaysAllow: true, receivedAt: 1, expiresAt: 2 },
  }),
];

describe('generation check, every state × event', () => {
  const cases = SESSION_STATES.flatMap((state) => samples.map((e) => ({ state, name: e.name, e })));
  it.each(cases)("$state + $name from an older, a newer or no generation is refused (a waiting start's dialog aside)", ({ state, e }) => {
    for (const generation of [G - 1, G + 1, null]) {
      const out = interpret(snap({ state }), { ...e, generation } as AgentSessionEvent);
      const toldDialog = e.name === 'blocked_on_prompt' && state === 'Starting' && generation === G - 1;
      if (toldDialog) expect(out.map((f) => f.type)).toEqual(['evidence', 'notify_dialog']);
      else expect(out).toEqual([{ type: 'refuse', code: 'STALE_GENERATION' }]);
    }
  });
  it.each(cases)('$state + $name under the current generation means something', ({ state, e }) => {
    const out = interpret(snap({ state }), e);
    expect(out.length).toBeGreaterThan(0);
    expect(out.some((f) => f.type === 'refuse')).toBe(false);
  });
});

const dialog = ev({ name: 'blocked_on_prompt', payload: { text: 'Trust?' } }, G - 1);
const table: { name: string; s: AgentFactSnapshot; e: AgentSessionEvent; out: AgentEventEffect[] }[] = [
  {
    name: 'a dialog from an older generation while recovery returns to Starting is told',
    s: snap({ state: 'AwaitingRecovery', resumeState: 'Starting' }),
    e: dialog,
    out: [
      { type: 'evidence', event: 'blocked_on_prompt', evidence: { text: 'Trust?' } },
      { type: 'notify_dialog', text: 'Trust?' },
    ],
  },
  {
    name: 'a dialog from an older generation while recovery returns to Ready is refused',
    s: snap({ state: 'AwaitingRecovery', resumeState: 'Ready' }),
    e: dialog,
    out: [{ type: 'refuse', code: 'STALE_GENERATION' }],
  },
  {
    name: 'session_ready while Starting: identity kept, cli_ready',
    s: snap({ state: 'Starting' }),
    e: ev({ name: 'session_ready', payload: { identity } }),
    out: [
      { type: 'bind_identity', identity, nativeSessionId: 'native-1' },
      { type: 'end_prompts', cause: 'cli_ready' },
      fact({ type: 'cli_ready', generation: G }),
    ],
  },
  {
    name: 'session_ready without a stored id takes the reported one',
    s: snap({ state: 'Starting', nativeSessionId: null }),
    e: ev({ name: 'session_ready', payload: { identity: { nativeSessionId: 'n2' } } }),
    out: [
      { type: 'bind_identity', identity: { nativeSessionId: 'n2' }, nativeSessionId: 'n2' },
      { type: 'end_prompts', cause: 'cli_ready' },
      fact({ type: 'cli_ready', generation: G }),
    ],
  },
  {
    name: 'a Codex CLI showing a new id: replaced only if no conversation began (engine checks)',
    s: snap({ state: 'Starting', executor: 'codex' }),
    e: ev({ name: 'session_ready', payload: { identity: { nativeSessionId: 'n2' } } }),
    out: [
      { type: 'bind_identity', identity: { nativeSessionId: 'n2' }, nativeSessionId: 'native-1', replaceIfNoConversation: 'n2' },
      { type: 'end_prompts', cause: 'cli_ready' },
      fact({ type: 'cli_ready', generation: G }),
    ],
  },
  {
    name: 'a Claude CLI never has its id replaced',
    s: snap({ state: 'Starting' }),
    e: ev({ name: 'session_ready', payload: { identity: { nativeSessionId: 'n2' } } }),
    out: [
      { type: 'bind_identity', identity: { nativeSessionId: 'n2' }, nativeSessionId: 'native-1' },
      { type: 'end_prompts', cause: 'cli_ready' },
      fact({ type: 'cli_ready', generation: G }),
    ],
  },
  {
    name: 'a Codex resume confirmation never replaces the id',
    s: snap({ state: 'Resuming', executor: 'codex' }),
    e: ev({ name: 'resume_confirmed', payload: { identity: { nativeSessionId: 'n2' } } }),
    out: [
      { type: 'bind_identity', identity: { nativeSessionId: 'n2' }, nativeSessionId: 'native-1' },
      { type: 'confirm_resume', generation: G },
    ],
  },
  {
    name: 'session_ready while Resuming is the resume confirmation',
    s: snap({ state: 'Resuming' }),
    e: ev({ name: 'session_ready', payload: { identity } }),
    out: [
      { type: 'bind_identity', identity, nativeSessionId: 'native-1' },
      { type: 'confirm_resume', generation: G },
    ],
  },
  {
    name: 'resume_confirmed without identity',
    s: snap({ state: 'Resuming' }),
    e: ev({ name: 'resume_confirmed', payload: {} }),
    out: [
      { type: 'bind_identity', nativeSessionId: 'native-1' },
      { type: 'confirm_resume', generation: G },
    ],
  },
  {
    name: 'reattached in Ready: observer re-attach',
    s: snap(),
    e: ev({ name: 'reattached', payload: { identity } }),
    out: [{ type: 'bind_identity', identity, nativeSessionId: 'native-1' }, fact({ type: 'reattached', generation: G, mode: 'observer' })],
  },
  {
    name: 'session_ready in AwaitingRecovery returning to Starting: reattached (exact), its start dialog over, then cli_ready',
    s: snap({ state: 'AwaitingRecovery', resumeState: 'Starting' }),
    e: ev({ name: 'session_ready', payload: { identity } }),
    out: [
      { type: 'bind_identity', identity, nativeSessionId: 'native-1' },
      fact({ type: 'reattached', generation: G, mode: 'exact_resume' }),
      { type: 'end_prompts', cause: 'cli_ready', onlyDialogs: true },
      fact({ type: 'cli_ready', generation: G }),
    ],
  },
  {
    name: 'reattached in AwaitingRecovery returning to Ready: observer re-attach only',
    s: snap({ state: 'AwaitingRecovery', resumeState: 'Ready' }),
    e: ev({ name: 'reattached', payload: { identity } }),
    out: [{ type: 'bind_identity', identity, nativeSessionId: 'native-1' }, fact({ type: 'reattached', generation: G, mode: 'observer' })],
  },
  {
    name: 'resume_confirmed in AwaitingRecovery returning to Starting without identity: no cli_ready',
    s: snap({ state: 'AwaitingRecovery', resumeState: 'Starting' }),
    e: ev({ name: 'resume_confirmed', payload: {} }),
    out: [{ type: 'bind_identity', nativeSessionId: 'native-1' }, fact({ type: 'reattached', generation: G, mode: 'exact_resume' })],
  },
  {
    name: 'resume_failed: the cause travels with the fact and its evidence',
    s: snap({ state: 'Resuming' }),
    e: ev({ name: 'resume_failed', payload: { reason: 'folder gone', code: 'folder_missing' } }),
    out: [fact({ type: 'resume_failed', generation: G, cause: 'folder gone' }, { cause: 'folder gone', code: 'folder_missing' })],
  },
  {
    name: 'resume_failed conversation_may_exist marks the session once',
    s: snap({ state: 'Starting' }),
    e: ev({ name: 'resume_failed', payload: { reason: 'not started again', code: 'conversation_may_exist' } }),
    out: [
      { type: 'patch', fields: { conversationMayExist: true } },
      fact({ type: 'resume_failed', generation: G, cause: 'not started again' }, { cause: 'not started again', code: 'conversation_may_exist' }),
    ],
  },
  {
    name: 'resume_failed conversation_may_exist on a marked session',
    s: snap({ state: 'Starting', conversationMayExist: true }),
    e: ev({ name: 'resume_failed', payload: { reason: 'x', code: 'conversation_may_exist' } }),
    out: [fact({ type: 'resume_failed', generation: G, cause: 'x' }, { cause: 'x', code: 'conversation_may_exist' })],
  },
  { name: 'observer_lost', s: snap(), e: ev({ name: 'observer_lost', payload: {} }), out: [fact({ type: 'observer_lost', generation: G })] },
  {
    name: 'identity_mismatch is a refused re-attach',
    s: snap({ state: 'AwaitingRecovery', resumeState: 'Ready' }),
    e: ev({ name: 'identity_mismatch', payload: { reason: 'competing_owner' } }),
    out: [fact({ type: 'reattach_refused', generation: G, reason: 'competing_owner' })],
  },
  {
    name: 'a verified exit',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'process_exited', payload: { pids: [1, 2], exitStatus: 0, paneDead: true, verified: true } }),
    out: [
      { type: 'end_prompts', cause: 'process_exited' },
      fact({ type: 'process_exited_verified', generation: G, evidence: { pids: '1,2', exitStatus: 0, paneDead: true, verified: true } }),
    ],
  },
  {
    name: 'an unverified exit only loses the binding',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'process_exited', payload: { pids: [1], exitStatus: null, paneDead: false, verified: false } }),
    out: [fact({ type: 'observer_lost', generation: G, evidence: { pids: '1', exitStatus: null, paneDead: false, verified: false } })],
  },
  {
    name: 'session_closed with a copy: the copy first, then the verified exit',
    s: snap({ state: 'Closing' }),
    e: ev({ name: 'session_closed', payload: { evidence: { verified: true }, archivedJournal: { path: '/a', sizeBytes: 1, sha256: 'h' } } }),
    out: [
      { type: 'end_prompts', cause: 'session_closed' },
      { type: 'store_archive_copy', copy: { path: '/a', sizeBytes: 1, sha256: 'h' } },
      fact({ type: 'process_exited_verified', generation: G, evidence: { verified: true, journal: 'archived' } }),
    ],
  },
  {
    name: 'session_closed saying journal none',
    s: snap({ state: 'Closing' }),
    e: ev({ name: 'session_closed', payload: { evidence: { verified: true, journal: 'none' } } }),
    out: [
      { type: 'end_prompts', cause: 'session_closed' },
      fact({ type: 'process_exited_verified', generation: G, evidence: { verified: true, journal: 'none' } }),
    ],
  },
  {
    name: 'session_closed unverified, from an older agent',
    s: snap({ state: 'Closing' }),
    e: ev({ name: 'session_closed', payload: { evidence: { verified: false } } }),
    out: [fact({ type: 'observer_lost', generation: G, evidence: { verified: false, journal: 'unreported' } })],
  },
  {
    name: 'a receipt',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'turn_accepted', payload: { messageId: MSG, nativeRecordId: 'r1', offset: 7 } }),
    out: [{ type: 'accept_receipt', messageId: MSG, nativeRecordId: 'r1', offset: 7 }],
  },
  {
    name: 'a receipt teaching the identity of the same process and native session',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'turn_accepted', payload: { messageId: MSG, nativeTurnId: 't1', identity: { nativeSessionId: 'native-1', pid: 100, journalPath: '/j' } } }),
    out: [
      { type: 'patch', fields: { identity: { nativeSessionId: 'native-1', pid: 100, journalPath: '/j' } } },
      { type: 'accept_receipt', messageId: MSG, nativeTurnId: 't1' },
    ],
  },
  {
    name: 'a receipt naming another process never puts its identity back',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'turn_accepted', payload: { messageId: MSG, nativeTurnId: 't1', identity: { nativeSessionId: 'native-1', pid: 99 } } }),
    out: [{ type: 'accept_receipt', messageId: MSG, nativeTurnId: 't1' }],
  },
  {
    name: 'a receipt naming another native session leaves the identity',
    s: snap({ state: 'Running', identityPid: undefined }),
    e: ev({ name: 'turn_accepted', payload: { messageId: MSG, nativeTurnId: 't1', identity: { nativeSessionId: 'other' } } }),
    out: [{ type: 'accept_receipt', messageId: MSG, nativeTurnId: 't1' }],
  },
  {
    name: 'a receipt gives a session without a native id the one it names',
    s: snap({ state: 'Running', nativeSessionId: null, identityPid: undefined }),
    e: ev({ name: 'turn_accepted', payload: { messageId: MSG, nativeTurnId: 't1', identity: { nativeSessionId: 'n9' } } }),
    out: [
      { type: 'patch', fields: { identity: { nativeSessionId: 'n9' }, nativeSessionId: 'n9' } },
      { type: 'accept_receipt', messageId: MSG, nativeTurnId: 't1' },
    ],
  },
  {
    name: 'a final is written',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'turn_final', payload: { messageId: MSG, nativeTurnId: 't1', text: 'hi' } }),
    out: [{ type: 'write_final', final: { messageId: MSG, nativeTurnId: 't1', text: 'hi' } }],
  },
  {
    name: 'a final while an earlier one cannot be saved waits',
    s: snap({ state: 'Running', finalPending: true }),
    e: ev({ name: 'turn_final', payload: { nativeTurnId: 't1', text: 'hi' } }),
    out: [{ type: 'defer' }],
  },
  {
    name: 'a completed turn',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'turn_completed', payload: { messageId: MSG, nativeTurnId: 't1', offset: 3 } }),
    out: [
      {
        type: 'turn_ended',
        event: 'turn_completed',
        kind: 'completed',
        detail: 'turn_completed',
        confirmsStop: false,
        messageId: MSG,
        nativeTurnId: 't1',
        offset: 3,
      },
    ],
  },
  {
    name: 'an API error ends the turn as terminal_failed',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'turn_api_error', payload: { nativeTurnId: 't1', error: 'overloaded' } }),
    out: [
      { type: 'turn_ended', event: 'turn_api_error', kind: 'terminal_failed', detail: 'turn_api_error', confirmsStop: false, nativeTurnId: 't1', offset: null },
    ],
  },
  {
    name: 'a turn interrupted on the computer',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'turn_interrupted', payload: { nativeTurnId: 't1' } }),
    out: [
      { type: 'turn_ended', event: 'turn_interrupted', kind: 'interrupted', detail: 'turn_interrupted', confirmsStop: false, nativeTurnId: 't1', offset: null },
    ],
  },
  {
    name: 'an interrupt while Stopping confirms the stop, detail "interrupted"',
    s: snap({ state: 'Stopping' }),
    e: ev({ name: 'turn_interrupted', payload: { nativeTurnId: 't1' } }),
    out: [{ type: 'turn_ended', event: 'turn_interrupted', kind: 'interrupted', detail: 'interrupted', confirmsStop: true, nativeTurnId: 't1', offset: null }],
  },
  {
    name: 'an interrupt while ClosingAfterWork confirms the stop too',
    s: snap({ state: 'ClosingAfterWork' }),
    e: ev({ name: 'turn_interrupted', payload: { nativeTurnId: 't1' } }),
    out: [{ type: 'turn_ended', event: 'turn_interrupted', kind: 'interrupted', detail: 'interrupted', confirmsStop: true, nativeTurnId: 't1', offset: null }],
  },
  {
    name: 'a completed turn while Stopping is an ordinary outcome',
    s: snap({ state: 'Stopping' }),
    e: ev({ name: 'turn_completed', payload: { nativeTurnId: 't1' } }),
    out: [{ type: 'turn_ended', event: 'turn_completed', kind: 'completed', detail: 'turn_completed', confirmsStop: false, nativeTurnId: 't1', offset: null }],
  },
  {
    name: 'a turn end while a final cannot be saved waits',
    s: snap({ state: 'Stopping', finalPending: true }),
    e: ev({ name: 'turn_interrupted', payload: { nativeTurnId: 't1' } }),
    out: [{ type: 'defer' }],
  },
  {
    name: 'usage is stored',
    s: snap(),
    e: ev({ name: 'usage', payload: { inputTokens: 5 } }),
    out: [
      { type: 'patch', fields: { usage: { inputTokens: 5 } } },
      { type: 'record_usage', tokens: { input: 5, output: 0, cacheRead: 0, cacheWrite: 0 }, model: null, messageId: null },
    ],
  },
  {
    name: 'a dialog: evidence with its text (bounded), then the chat notice',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'blocked_on_prompt', payload: { text: 'x'.repeat(1500) } }),
    out: [
      { type: 'evidence', event: 'blocked_on_prompt', evidence: { text: 'x'.repeat(1000) } },
      { type: 'notify_dialog', text: 'x'.repeat(1500) },
    ],
  },
  {
    name: 'a permission request opens a prompt',
    s: snap({ state: 'Running' }),
    e: ev({
      name: 'permission_request',
      payload: {
        requestId: MSG,
        kind: 'question',
        toolName: 'AskUserQuestion',
        toolInput: { questions: [] },
        canAlwaysAllow: false,
        receivedAt: 1,
        expiresAt: 2,
      },
    }),
    out: [
      {
        type: 'open_prompt',
        prompt: {
          requestId: MSG,
          kind: 'question',
          toolName: 'AskUserQuestion',
          toolInput: { questions: [] },
          canAlwaysAllow: false,
          receivedAt: 1,
          expiresAt: 2,
        },
      },
    ],
  },
  {
    name: 'how a request ended applies whatever generation runs now (the request names its row)',
    s: snap({ state: 'AwaitingRecovery' }),
    e: ev({ name: 'permission_resolved', payload: { requestId: MSG, outcome: 'lost_on_restart', at: 5 } }, G - 1),
    out: [{ type: 'resolve_prompt', end: { requestId: MSG, outcome: 'lost_on_restart', at: 5 } }],
  },
  {
    name: "a start's folder-trust dialog the agent recognised becomes a dialog prompt for that CLI",
    s: snap({ state: 'Starting' }),
    e: ev({ name: 'blocked_on_prompt', payload: { text: 'Trust this folder?', dialog: 'folder_trust' } }),
    out: [
      { type: 'evidence', event: 'blocked_on_prompt', evidence: { text: 'Trust this folder?' } },
      { type: 'notify_dialog', text: 'Trust this folder?' },
      { type: 'open_dialog', dialog: 'folder_trust', text: 'Trust this folder?', generation: G },
    ],
  },
  {
    name: 'a recovery that starts the CLI again: its trust dialog under the current generation is offered too (chaos seed 21007)',
    s: snap({ state: 'AwaitingRecovery', resumeState: 'Starting' }),
    e: ev({ name: 'blocked_on_prompt', payload: { text: 'Trust this folder?', dialog: 'folder_trust' } }),
    out: [
      { type: 'evidence', event: 'blocked_on_prompt', evidence: { text: 'Trust this folder?' } },
      { type: 'notify_dialog', text: 'Trust this folder?' },
      { type: 'open_dialog', dialog: 'folder_trust', text: 'Trust this folder?', generation: G },
    ],
  },
  {
    name: 'a recovery of a session that was Ready once: a trust dialog is only told',
    s: snap({ state: 'AwaitingRecovery', resumeState: 'Ready' }),
    e: ev({ name: 'blocked_on_prompt', payload: { text: 'Trust this folder?', dialog: 'folder_trust' } }),
    out: [
      { type: 'evidence', event: 'blocked_on_prompt', evidence: { text: 'Trust this folder?' } },
      { type: 'notify_dialog', text: 'Trust this folder?' },
    ],
  },
  {
    name: 'a folder-trust dialog of a running CLI is only told, never offered as a start choice',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'blocked_on_prompt', payload: { text: 'Trust this folder?', dialog: 'folder_trust' } }),
    out: [
      { type: 'evidence', event: 'blocked_on_prompt', evidence: { text: 'Trust this folder?' } },
      { type: 'notify_dialog', text: 'Trust this folder?' },
    ],
  },
  {
    name: 'evidence_unknown asks for a re-check of that message',
    s: snap({ state: 'Running' }),
    e: ev({ name: 'evidence_unknown', payload: { messageId: MSG, processAlive: true } }),
    out: [{ type: 'recheck', messageId: MSG, processAlive: true }],
  },
];

describe('interpret', () => {
  it.each(table)('$name', ({ s, e, out }) => {
    expect(interpret(s, e)).toEqual(out);
  });
});
