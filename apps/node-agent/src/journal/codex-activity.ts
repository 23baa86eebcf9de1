import { ACTIVITY_LIMITS, type ActivityPayload, clip } from '@bria/core/protocol';
import { ActivityTracker, type ActivityKind, type DraftItem, outputHead, patchDiff, subjectOf, timeOf } from './activity.ts';
import type { JournalLine } from './jsonl-tailer.ts';
import { asNumber, asObject, asString } from './types.ts';

const KINDS: Record<string, ActivityKind> = {
  exec_command: 'command',
  shell: 'command',
  local_shell: 'command',
  apply_patch: 'edit',
  request_user_input: 'question',
  web_search: 'search',
};

function parseArgs(args: unknown): Record<string, unknown> {
  if (typeof args !== 'string') return asObject(args) ?? {};
  try {
    return asObject(JSON.parse(args)) ?? {};
  } catch {
    return {};
  }
}

function callSubject(name: string, args: Record<string, unknown>): string | undefined {
  if (name === 'request_user_input') return subjectOf(asObject(Array.isArray(args.questions) ? args.questions[0] : null)?.question);
  const cmd = Array.isArray(args.command) ? args.command.map(String).join(' ') : (args.cmd ?? args.command);
  return subjectOf(cmd ?? args.query ?? args.path);
}

/** The files an apply_patch envelope touches (`*** Update File: a.ts`), as its subject. */
function patchSubject(patch: string): string | undefined {
  const files = [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]);
  return subjectOf(files.join(', '));
}

/**
 * What an exec_command's `function_call_output` says: "Process exited with code N" and the output
 * after "Output:"; a call refused before it ran ("exec_command failed: …") is an error.
 */
function outputFacts(output: string): Partial<DraftItem> {
  const code = /^Process exited with code (-?\d+)$/m.exec(output)?.[1];
  const at = output.indexOf('\nOutput:\n');
  const body = at >= 0 ? output.slice(at + '\nOutput:\n'.length) : output;
  if (code !== undefined) return { exitCode: Number(code), status: Number(code) === 0 ? 'ok' : 'error', outputHead: outputHead(body) };
  return { exitCode: null, status: /^\w+ failed: /.test(output) ? 'error' : 'ok', outputHead: outputHead(body) };
}

interface PendingText {
  item: DraftItem;
  turn: string;
  at: number;
}

/**
 * Activity of a Codex rollout: calls (`function_call` / `custom_tool_call` → their outputs, and the
 * `CommandExecution` item that reports the exit code), the assistant's messages between them, and
 * context use (`token_count`). A message is held until the next call of its turn shows it was not
 * the final answer (the hub gets that as `turn_final`); a completed turn drops its last message.
 */
export class CodexActivity {
  private readonly tracker = new ActivityTracker();
  /** Refs already settled and sent: a late second report of the same call does not bring it back. */
  private readonly settled = new Set<string>();
  private pendingTexts: PendingText[] = [];
  private currentTurn: string | null = null;
  private window: number | undefined;
  private compactionItems = 0;
  private compactedRecords = 0;

  /** Changes caused by records before this offset are not sent (history the hub already has). */
  get floor(): number {
    return this.tracker.floor;
  }

  set floor(offset: number) {
    this.tracker.floor = offset;
  }

  ingest(lines: readonly JournalLine[]): void {
    for (const line of lines) {
      if (line.text.trim() === '') continue;
      let rec: Record<string, unknown> | null = null;
      try {
        rec = asObject(JSON.parse(line.text));
      } catch {
        // malformed lines are the journal reader's to report
      }
      if (rec) this.add(rec, line);
    }
  }

  add(rec: Record<string, unknown>, line: JournalLine): void {
    const p = asObject(rec.payload);
    if (!p) return;
    const at = line.offset;
    const time = timeOf(rec.timestamp) ?? 0;
    if (rec.type === 'compacted') {
      this.compactedRecords++;
      this.contextChanged(at);
    } else if (rec.type === 'response_item') this.responseItem(p, at, time);
    else if (rec.type === 'event_msg') this.event(p, at, time);
  }

  private turnOfCall(p: Record<string, unknown>): string | undefined {
    return asString(asObject(p.internal_chat_message_metadata_passthrough)?.turn_id) ?? this.currentTurn ?? undefined;
  }

  private responseItem(p: Record<string, unknown>, at: number, time: number): void {
    switch (p.type) {
      case 'function_call':
      case 'custom_tool_call': {
        const ref = asString(p.call_id);
        if (!ref || this.settled.has(ref)) return;
        const name = asString(p.name) ?? 'tool';
        const turn = this.turnOfCall(p);
        this.callSeen(turn, at);
        const base = {
          ref,
          source: { recordId: ref, offset: at },
          nativeTurnId: turn,
          toolName: name,
          kind: KINDS[name] ?? 'tool',
          status: 'running' as const,
          startedAt: time,
        };
        if (p.type === 'custom_tool_call') {
          const input = asString(p.input) ?? '';
          this.tracker.put(
            {
              ...base,
              subject: name === 'apply_patch' ? patchSubject(input) : subjectOf(input),
              ...(name === 'apply_patch' ? { diff: patchDiff(input) } : {}),
            },
            at,
          );
        } else {
          const args = parseArgs(p.arguments);
          const patch = name === 'apply_patch' ? (asString(args.input) ?? asString(args.patch)) : null;
          this.tracker.put(
            { ...base, subject: patch !== null ? patchSubject(patch) : callSubject(name, args), ...(patch !== null ? { diff: patchDiff(patch) } : {}) },
            at,
          );
        }
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const ref = asString(p.call_id);
        const item = ref ? this.tracker.get(ref) : undefined;
        // Absent, or already ended by its CommandExecution item (which holds the exact exit code and output).
        if (!ref || !item || item.status !== 'running') return;
        const output = typeof p.output === 'string' ? p.output : JSON.stringify(p.output ?? '');
        // A command that outlives its first wait goes on in the background; its CommandExecution item ends it.
        if (item.kind === 'command' && /^Process running with session ID/m.test(output)) return;
        const facts =
          item.kind === 'command'
            ? outputFacts(output)
            : { status: /^\w+ failed: /.test(output) ? ('error' as const) : ('ok' as const), outputHead: outputHead(output) };
        this.finish(ref, { ...facts, endedAt: time }, at);
        return;
      }
      case 'web_search_call': {
        const ref = asString(p.id);
        if (!ref || this.settled.has(ref)) return;
        const status = p.status === 'completed' ? 'ok' : p.status === 'failed' ? 'error' : 'running';
        const turn = this.currentTurn ?? undefined;
        this.callSeen(turn, at);
        this.tracker.put(
          {
            ref,
            source: { recordId: ref, offset: at },
            nativeTurnId: turn,
            kind: 'search',
            toolName: 'web_search',
            subject: subjectOf(asObject(p.action)?.query),
            status,
            startedAt: time,
            ...(status !== 'running' ? { endedAt: time } : {}),
          },
          at,
        );
        if (status !== 'running') this.settled.add(ref);
        return;
      }
      default:
        return;
    }
  }

  private event(p: Record<string, unknown>, at: number, time: number): void {
    const turnId = asString(p.turn_id);
    switch (p.type) {
      case 'task_started': {
        this.currentTurn = turnId ?? asString(asObject(p.turn_attribution)?.turn_id);
        const w = asNumber(p.model_context_window);
        if (w > 0) this.window = w;
        return;
      }
      case 'token_count': {
        const info = asObject(p.info);
        const last = asObject(info?.last_token_usage);
        if (!last) return;
        const w = asNumber(info?.model_context_window);
        if (w > 0) this.window = w;
        // Codex's input_tokens already include the cached ones (cached_input_tokens is a part of it).
        this.tracker.context({ usedTokens: asNumber(last.input_tokens), compactions: this.compactions(), ...this.windowUse() }, at);
        return;
      }
      case 'item_completed':
        this.itemCompleted(asObject(p.item), turnId ?? this.currentTurn, p, at, time);
        return;
      case 'task_complete':
      case 'turn_aborted':
        if (turnId) this.turnEnded(turnId, p.type === 'task_complete');
        if (this.currentTurn === turnId) this.currentTurn = null;
        return;
      default:
        return;
    }
  }

  private itemCompleted(item: Record<string, unknown> | null, turn: string | null, p: Record<string, unknown>, at: number, time: number): void {
    const id = asString(item?.id);
    if (!item || !id) return;
    if (item.type === 'ContextCompaction') {
      this.compactionItems++;
      this.contextChanged(at);
    } else if (item.type === 'AgentMessage') {
      const parts = Array.isArray(item.content) ? item.content.map(asObject) : [];
      const text = parts.map((c) => asString(c?.text) ?? '').join('');
      if (text.trim() === '' || !turn) return;
      const startedAt = asNumber(p.started_at_ms) || time;
      this.pendingTexts.push({
        item: {
          ref: id,
          source: { recordId: id, offset: at },
          nativeTurnId: turn,
          kind: 'text',
          status: 'ok',
          text: clip(text, ACTIVITY_LIMITS.text),
          startedAt,
        },
        turn,
        at,
      });
    } else if (item.type === 'CommandExecution') {
      if (this.settled.has(id)) return;
      const code = typeof item.exit_code === 'number' ? item.exit_code : null;
      const failed = item.status === 'failed' || item.status === 'declined' || (code !== null && code !== 0);
      const endedAt = asNumber(p.completed_at_ms) || time;
      const facts: Partial<DraftItem> = {
        status: failed ? 'error' : 'ok',
        exitCode: code,
        endedAt,
        outputHead: outputHead(asString(item.aggregated_output) ?? ''),
      };
      if (this.tracker.get(id)) {
        this.finish(id, facts, at);
        return;
      }
      // A command the user ran himself (`!cmd`) has no call before it.
      const command = Array.isArray(item.command) ? asString(item.command.at(-1)) : asString(item.command);
      this.tracker.put(
        {
          ref: id,
          source: { recordId: id, offset: at },
          ...(turn ? { nativeTurnId: turn } : {}),
          kind: 'command',
          toolName: 'exec_command',
          subject: subjectOf(command),
          startedAt: asNumber(p.started_at_ms) || time,
          ...facts,
          status: facts.status ?? 'ok',
        },
        at,
      );
      this.settled.add(id);
    }
  }

  private finish(ref: string, patch: Partial<DraftItem>, at: number): void {
    this.tracker.update(ref, patch, at);
    this.settled.add(ref);
  }

  /** A call of `turn` shows that every message of the turn before it was not the final answer. */
  private callSeen(turn: string | undefined, at: number): void {
    this.pendingTexts = this.pendingTexts.filter((t) => {
      const shown = t.turn === turn && t.at < at;
      if (shown) this.tracker.put(t.item, t.at);
      return !shown;
    });
  }

  private turnEnded(turn: string, completed: boolean): void {
    const mine = this.pendingTexts.filter((t) => t.turn === turn);
    // A completed turn's last message is its final answer; an aborted turn has none.
    for (const t of completed ? mine.slice(0, -1) : mine) this.tracker.put(t.item, t.at);
    this.pendingTexts = this.pendingTexts.filter((t) => t.turn !== turn);
  }

  private compactions(): number {
    // Whether a compaction writes a `compacted` record, a ContextCompaction item or both is not
    // proven for every version: the larger count is the number of compactions either way.
    return Math.max(this.compactionItems, this.compactedRecords);
  }

  private windowUse(): { windowTokens?: number; windowSource?: 'journal' } {
    return this.window ? { windowTokens: this.window, windowSource: 'journal' } : {};
  }

  private contextChanged(at: number): void {
    const use = this.tracker.currentContext;
    this.tracker.context({ usedTokens: use?.usedTokens ?? 0, compactions: this.compactions(), ...this.windowUse() }, at);
  }

  drain(): ActivityPayload[] {
    return this.tracker.drain(() => undefined);
  }
}
