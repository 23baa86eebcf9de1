import { CodexActivity } from './codex-activity.ts';
import { CodexLimits } from './limits.ts';
import type { JournalLine } from './jsonl-tailer.ts';
import { asNumber, asObject, asString, type MalformedLine, type NativePrompt, type RecordRef, type TokenUsage, type TurnOutcome } from './types.ts';

export interface CodexSessionMeta extends RecordRef {
  id: string;
  cwd: string | null;
  /** When the CLI created the session (ISO), which precedes the file's creation. */
  timestamp: string | null;
}

interface Terminal extends RecordRef {
  kind: 'task_complete' | 'turn_aborted';
  payload: Record<string, unknown>;
}

/** Reads a Codex rollout file. Codex writes one turn at a time, keyed by turn id. */
export class CodexJournal {
  meta: CodexSessionMeta | null = null;
  readonly prompts: NativePrompt[] = [];
  readonly malformed: MalformedLine[] = [];
  private readonly terminals = new Map<string, Terminal[]>();
  private readonly usage = new Map<string, TokenUsage & RecordRef>();
  private currentTurn: string | null = null;
  /** The model of each turn (`turn_context`). */
  private readonly models = new Map<string, string>();
  /** When the record being read was written (ms). */
  private recordAt = 0;
  /** Usage-limit states from the `rate_limits` of token counts, drained by the host. */
  readonly limits = new CodexLimits();
  /** Tool calls, texts and context use, fed from the same parsed records. */
  readonly activity = new CodexActivity();

  ingest(lines: readonly JournalLine[]): void {
    for (const line of lines) {
      if (line.text.trim() === '') continue;
      let rec: Record<string, unknown> | null;
      try {
        rec = asObject(JSON.parse(line.text));
      } catch (err) {
        this.malformed.push({ offset: line.offset, end: line.end, error: (err as Error).message });
        continue;
      }
      const payload = asObject(rec?.payload);
      if (!rec || !payload) continue;
      try {
        this.activity.add(rec, line);
      } catch {
        // Display only: a record the activity reader cannot take must not cost the turn outcomes.
      }
      const at = { offset: line.offset, end: line.end };
      this.recordAt = Date.parse(asString(rec.timestamp) ?? '') || Date.now();
      if (rec.type === 'turn_context') {
        const turn = asString(payload.turn_id);
        const model = asString(payload.model);
        if (turn && model) this.models.set(turn, model);
        continue;
      }
      if (rec.type === 'session_meta') {
        const id = asString(payload.id);
        if (id && !this.meta) this.meta = { id, cwd: asString(payload.cwd), timestamp: asString(payload.timestamp), ...at };
        continue;
      }
      if (rec.type !== 'event_msg') continue;
      this.event(payload, at);
    }
  }

  private event(p: Record<string, unknown>, at: RecordRef): void {
    const turnId = asString(p.turn_id);
    switch (p.type) {
      case 'task_started':
        this.currentTurn = turnId ?? asString(asObject(p.turn_attribution)?.turn_id);
        return;
      case 'item_completed': {
        const item = asObject(p.item);
        if (item?.type !== 'UserMessage' || !turnId) return;
        // Pasted images are `local_image` parts beside the text (executors/README.md, "Images").
        const parts = (Array.isArray(item.content) ? item.content.map(asObject) : []).filter((c) => c?.type !== 'local_image');
        if (parts.some((c) => c?.type !== 'text')) return;
        this.prompts.push({ nativeRef: turnId, text: parts.map((c) => asString(c?.text) ?? '').join(''), ...at });
        return;
      }
      case 'task_complete':
      case 'turn_aborted': {
        if (!turnId) return;
        const list = this.terminals.get(turnId) ?? [];
        list.push({ kind: p.type, payload: p, ...at });
        this.terminals.set(turnId, list);
        if (this.currentTurn === turnId) this.currentTurn = null;
        return;
      }
      case 'token_count': {
        this.limits.add(p.rate_limits, this.recordAt);
        // token_count carries no turn id; it belongs to the turn that is running when it is written.
        // One is written per model request (`last_token_usage`): a turn with tool calls has several.
        const last = asObject(asObject(p.info)?.last_token_usage);
        if (!last || !this.currentTurn) return;
        const before = this.usage.get(this.currentTurn);
        // OpenAI's usage counts cached tokens inside input_tokens; Bria keeps them apart.
        const cached = asNumber(last.cached_input_tokens);
        this.usage.set(this.currentTurn, {
          inputTokens: (before?.inputTokens ?? 0) + Math.max(0, asNumber(last.input_tokens) - cached),
          outputTokens: (before?.outputTokens ?? 0) + asNumber(last.output_tokens),
          cacheReadTokens: (before?.cacheReadTokens ?? 0) + cached,
          cacheWriteTokens: (before?.cacheWriteTokens ?? 0) + asNumber(last.cache_write_input_tokens),
          model: this.models.get(this.currentTurn) ?? null,
          ...at,
        });
        return;
      }
      default:
        return;
    }
  }

  promptsFrom(offset: number): NativePrompt[] {
    return this.prompts.filter((p) => p.offset >= offset);
  }

  prompt(turnId: string): NativePrompt | null {
    return this.prompts.find((p) => p.nativeRef === turnId) ?? null;
  }

  usageOf(turnId: string): TokenUsage | null {
    const u = this.usage.get(turnId);
    return u
      ? { inputTokens: u.inputTokens, outputTokens: u.outputTokens, cacheReadTokens: u.cacheReadTokens, cacheWriteTokens: u.cacheWriteTokens, model: u.model }
      : null;
  }

  outcome(turnId: string): TurnOutcome {
    const list = this.terminals.get(turnId) ?? [];
    if (list.length === 0) return { state: 'pending' };
    if (list.length > 1) {
      return { state: 'unknown', reason: `${list.length} terminal records for one turn`, evidence: list.map(({ offset, end }) => ({ offset, end })) };
    }
    const t = list[0]!;
    const evidence = { offset: t.offset, end: t.end, recordIds: [turnId] };
    if (t.kind === 'turn_aborted') {
      return { state: 'interrupted', reason: asString(t.payload.reason) ?? 'aborted', evidence };
    }
    const finalText = asString(t.payload.last_agent_message);
    const error = asObject(t.payload.error);
    if (finalText !== null && !error) return { state: 'completed', finalText, usage: this.usageOf(turnId), evidence };
    if (finalText === null && error) {
      return { state: 'api_error', errorText: asString(error.message) ?? 'unknown error', evidence };
    }
    return {
      state: 'unknown',
      reason: finalText === null ? 'task_complete without a final message or an error' : 'task_complete with both a final message and an error',
      evidence: [{ offset: t.offset, end: t.end }],
    };
  }
}
