import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Builds Claude and Codex stores with records shaped like the ones the pinned CLIs write (key
// order included), for tests and the benchmark. `pad` inflates replies and tool output so files
// reach realistic sizes.

export interface Turn {
  prompt: string;
  reply: string;
  /** ISO time of the user record; the reply follows 1 s later. */
  at: string;
  /** Extra bytes of tool output in this turn. */
  toolBytes?: number;
}

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const uuid = (n: number, salt: number) => `${(salt >>> 0).toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export function claudeProjectDir(claudeHome: string, cwd: string): string {
  return join(claudeHome, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
}

export interface ClaudeSessionSpec {
  sessionId: string;
  cwd: string;
  turns: Turn[];
  aiTitle?: string;
  customTitle?: string;
  /** Print mode: `promptSource:"sdk"` instead of `origin.kind:"human"`. */
  sdk?: boolean;
  /** Write the first turn's assistant records before its user record, as the CLI sometimes does. */
  firstTurnOutOfOrder?: boolean;
}

export function claudeLines(spec: ClaudeSessionSpec): string[] {
  const base = {
    userType: 'external',
    entrypoint: spec.sdk ? 'sdk-cli' : 'cli',
    cwd: spec.cwd,
    sessionId: spec.sessionId,
    version: '2.1.197',
    gitBranch: 'main',
  };
  const head: string[] = [
    JSON.stringify({ type: 'mode', mode: 'normal', sessionId: spec.sessionId }),
    JSON.stringify({ type: 'permission-mode', permissionMode: 'default', sessionId: spec.sessionId }),
  ];
  const body: string[] = [];
  let parent: string | null = null;
  spec.turns.forEach((turn, i) => {
    const userId = uuid(i * 10 + 1, 1);
    const user = JSON.stringify({
      parentUuid: parent,
      isSidechain: false,
      promptId: uuid(i, 2),
      type: 'user',
      message: { role: 'user', content: turn.prompt },
      uuid: userId,
      timestamp: turn.at,
      permissionMode: 'default',
      ...(spec.sdk ? { promptSource: 'sdk' } : { promptSource: 'typed', origin: { kind: 'human' } }),
      ...base,
    });
    const turnLines: string[] = [];
    let last = userId;
    if (turn.toolBytes) {
      const toolUse = uuid(i * 10 + 2, 1);
      turnLines.push(assistant(base, toolUse, last, plus(turn.at, 300), [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: 'ls -la' } }]));
      const result = uuid(i * 10 + 3, 1);
      turnLines.push(
        JSON.stringify({
          parentUuid: toolUse,
          isSidechain: false,
          promptId: uuid(i, 2),
          type: 'user',
          message: { role: 'user', content: [{ tool_use_id: `toolu_${i}`, type: 'tool_result', content: filler(turn.toolBytes, i) }] },
          uuid: result,
          timestamp: plus(turn.at, 600),
          toolUseResult: { stdout: '(see above)', stderr: '', interrupted: false },
          sourceToolAssistantUUID: toolUse,
          ...base,
        }),
      );
      last = result;
    }
    const reply = uuid(i * 10 + 4, 1);
    turnLines.push(assistant(base, reply, last, plus(turn.at, 1000), [{ type: 'text', text: turn.reply }]));
    turnLines.push(
      JSON.stringify({
        parentUuid: reply,
        isSidechain: false,
        type: 'system',
        subtype: 'turn_duration',
        durationMs: 36,
        messageCount: 4,
        timestamp: plus(turn.at, 1001),
        uuid: uuid(i * 10 + 5, 1),
        ...base,
      }),
    );
    if (i === 0 && spec.firstTurnOutOfOrder) body.push(...turnLines, user);
    else body.push(user, ...turnLines);
    if (i === 0 && spec.aiTitle) body.push(JSON.stringify({ type: 'ai-title', aiTitle: spec.aiTitle, sessionId: spec.sessionId }));
    parent = reply;
  });
  if (spec.customTitle) {
    body.push(JSON.stringify({ type: 'custom-title', customTitle: spec.customTitle, sessionId: spec.sessionId }));
    body.push(JSON.stringify({ type: 'agent-name', agentName: spec.customTitle, sessionId: spec.sessionId }));
  }
  const lastTurn = spec.turns.at(-1);
  if (lastTurn) body.push(JSON.stringify({ type: 'last-prompt', lastPrompt: lastTurn.prompt, leafUuid: parent, sessionId: spec.sessionId }));
  return [...head, ...body];
}

function assistant(base: object, id: string, parent: string, at: string, content: object[]): string {
  return JSON.stringify({
    parentUuid: parent,
    isSidechain: false,
    message: {
      id: `msg_${id.slice(-6)}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-8',
      content,
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    },
    requestId: `req_${id.slice(-6)}`,
    type: 'assistant',
    uuid: id,
    timestamp: at,
    ...base,
  });
}

export function writeClaudeSession(claudeHome: string, spec: ClaudeSessionSpec): string {
  const dir = claudeProjectDir(claudeHome, spec.cwd);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${spec.sessionId}.jsonl`);
  writeFileSync(file, `${claudeLines(spec).join('\n')}\n`);
  return file;
}

export interface CodexSessionSpec {
  id: string;
  cwd: string;
  startedAt: string;
  turns: Turn[];
  originator?: string;
  source?: string;
}

export function codexRolloutPath(codexHome: string, id: string, startedAt: string): string {
  const [date = '', time = ''] = startedAt.split('T');
  const [y, m, d] = date.split('-');
  return join(codexHome, 'sessions', y ?? '', m ?? '', d ?? '', `rollout-${date}T${time.slice(0, 8).replace(/:/g, '-')}-${id}.jsonl`);
}

export function codexLines(spec: CodexSessionSpec, firstOrdinal = 0): string[] {
  let ordinal = firstOrdinal;
  const line = (at: string, type: string, payload: object) => JSON.stringify({ timestamp: at, ordinal: ordinal++, type, payload });
  const out: string[] = [];
  if (firstOrdinal === 0) {
    out.push(
      line(spec.startedAt, 'session_meta', {
        session_id: spec.id,
        id: spec.id,
        timestamp: spec.startedAt,
        cwd: spec.cwd,
        originator: spec.originator ?? 'codex-tui',
        cli_version: '0.171.0',
        source: spec.source ?? 'cli',
        thread_source: 'user',
        model_provider: 'mock',
        base_instructions: { text: filler(6000, 7) },
        history_mode: 'paginated',
        git: {},
      }),
    );
  }
  spec.turns.forEach((turn, i) => {
    const turnId = `${spec.id.slice(0, 9)}turn-${i}`;
    out.push(line(turn.at, 'event_msg', { type: 'task_started', turn_id: turnId, root_turn_id: turnId, model_context_window: 258400 }));
    out.push(line(turn.at, 'turn_context', { turn_id: turnId, cwd: spec.cwd, approval_policy: 'never', model: 'mock-model' }));
    out.push(line(turn.at, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: turn.prompt }] }));
    out.push(
      line(turn.at, 'event_msg', {
        type: 'item_completed',
        thread_id: spec.id,
        turn_id: turnId,
        item: { type: 'UserMessage', id: `u${i}`, content: [{ type: 'text', text: turn.prompt, text_elements: [] }] },
      }),
    );
    if (turn.toolBytes) {
      out.push(line(plus(turn.at, 300), 'response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: `call_${i}` }));
      out.push(line(plus(turn.at, 600), 'response_item', { type: 'function_call_output', call_id: `call_${i}`, output: filler(turn.toolBytes, i) }));
    }
    const done = plus(turn.at, 1000);
    out.push(
      line(done, 'event_msg', {
        type: 'item_completed',
        thread_id: spec.id,
        turn_id: turnId,
        item: { type: 'AgentMessage', id: `msg_${i}`, content: [{ type: 'Text', text: turn.reply }] },
      }),
    );
    out.push(line(done, 'response_item', { type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: turn.reply }] }));
    out.push(line(done, 'event_msg', { type: 'task_complete', turn_id: turnId, last_agent_message: turn.reply, duration_ms: 71 }));
  });
  return out;
}

export function writeCodexSession(codexHome: string, spec: CodexSessionSpec): string {
  const file = codexRolloutPath(codexHome, spec.id, spec.startedAt);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${codexLines(spec).join('\n')}\n`);
  return file;
}

export function appendCodexTitle(codexHome: string, id: string, name: string, at: string): void {
  mkdirSync(codexHome, { recursive: true });
  appendFileSync(join(codexHome, 'session_index.jsonl'), `${JSON.stringify({ id, thread_name: name, updated_at: at })}\n`);
}

const WORDS = 'the build failed because the config file was missing a key so I added it and reran tests'.split(' ');

let base = '';

/** Deterministic text of `bytes` characters, with newlines and quotes that JSON must escape. */
export function filler(bytes: number, seed: number): string {
  if (base.length < bytes + 1024) base = buildBase(Math.max(bytes + 1024, 1 << 20));
  const from = (seed * 7919) % 1024;
  return base.slice(from, from + bytes);
}

function buildBase(size: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const w = WORDS[i % WORDS.length] ?? 'x';
    const piece = i % 13 === 0 ? `"${w}"\n` : `${w} `;
    parts.push(piece);
    length += piece.length;
  }
  return parts.join('');
}
