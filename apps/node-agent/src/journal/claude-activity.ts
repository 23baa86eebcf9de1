import { ACTIVITY_LIMITS, type ActivityPayload, clip } from '@bria/core/protocol';
import { ActivityTracker, type ActivityKind, type DraftItem, outputHead, replacementDiff, replacementsDiff, subjectOf, timeOf, writeDiff } from './activity.ts';
import type { JournalLine } from './jsonl-tailer.ts';
import { asNumber, asObject, asString } from './types.ts';

const KINDS: Record<string, ActivityKind> = {
  Bash: 'command',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Write: 'write',
  Read: 'read',
  Grep: 'search',
  Glob: 'search',
  WebSearch: 'search',
  AskUserQuestion: 'question',
};
const INTERRUPT_MARKER = '[Request interrupted by user';
/** Claude's window when the model id does not name the 1M context (`[1m]`). */
const DEFAULT_WINDOW = 200_000;

/** What the tool works on, read from its input. */
function toolSubject(name: string, input: Record<string, unknown>): string | undefined {
  if (name === 'Bash') return subjectOf(input.command);
  if (name === 'AskUserQuestion') return subjectOf(asObject(Array.isArray(input.questions) ? input.questions[0] : null)?.question);
  return subjectOf(input.file_path ?? input.notebook_path ?? input.pattern ?? input.query ?? input.url ?? input.description);
}

function toolDiff(name: string, input: Record<string, unknown>): DraftItem['diff'] {
  const file = asString(input.file_path) ?? '';
  if (name === 'Edit') return replacementDiff(file, asString(input.old_string) ?? '', asString(input.new_string) ?? '');
  if (name === 'MultiEdit' && Array.isArray(input.edits)) {
    return replacementsDiff(
      file,
      input.edits.map(asObject).map((e) => ({ oldText: asString(e?.old_string) ?? '', newText: asString(e?.new_string) ?? '' })),
    );
  }
  if (name === 'Write') return writeDiff(file, asString(input.content) ?? '');
  return undefined;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map(asObject)
    .filter((b) => b?.type === 'text')
    .map((b) => asString(b?.text) ?? '')
    .join('\n');
}

interface ToolResult {
  text: string;
  error: boolean;
  time: number;
  at: number;
}

function resultPatch(kind: ActivityKind, r: ToolResult): Partial<DraftItem> {
  // Claude states an exit code only in a failed command's result ("Exit code 2").
  const code = kind === 'command' ? /^(?:Error: )?Exit code (\d+)/.exec(r.text)?.[1] : undefined;
  return {
    status: r.error ? 'error' : 'ok',
    endedAt: r.time,
    outputHead: outputHead(r.text),
    ...(kind === 'command' ? { exitCode: code === undefined ? null : Number(code) } : {}),
  };
}

interface Node {
  parent: string | null;
  prompt: boolean;
  marker: boolean;
}
interface PendingText {
  item: DraftItem;
  messageId: string;
  at: number;
}

/**
 * Activity of a Claude Code journal: tool calls (`tool_use` → its `tool_result`), the assistant's
 * text between them, and context use. A turn is the prompt a record descends from (`parentUuid`
 * links, as Claude does not always write in order). Text is held until it is known not to be the
 * turn's final answer, which the hub gets as `turn_final`: a tool call of the same message, or a
 * later message of the turn, says it is not; the turn ending right after it says it is.
 */
export class ClaudeActivity {
  private readonly tracker = new ActivityTracker();
  private readonly nodes = new Map<string, Node>();
  private readonly turns = new Map<string, string>();
  /** Results written before their call (out of order), applied when the call comes. */
  private readonly results = new Map<string, ToolResult>();
  private readonly toolMessages = new Set<string>();
  private pendingTexts: PendingText[] = [];
  /** Per turn: the latest assistant message id and where it was written. */
  private readonly lastMessage = new Map<string, { id: string; at: number }>();
  private compactions = 0;

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
      let raw: Record<string, unknown> | null = null;
      try {
        raw = asObject(JSON.parse(line.text));
      } catch {
        // malformed lines are the journal reader's to report
      }
      if (raw) this.add(raw, line);
    }
  }

  /** One parsed record (the journal reader passes what it already parsed). */
  add(raw: Record<string, unknown>, line: JournalLine): void {
    const uuid = asString(raw.uuid);
    if (!uuid || this.nodes.has(uuid) || raw.isSidechain === true) return;
    const type = asString(raw.type);
    const message = asObject(raw.message) ?? {};
    const content = message.content;
    const blocks = Array.isArray(content) ? content.map(asObject) : [];
    const prompt = type === 'user' && raw.isMeta !== true && (typeof content === 'string' || (blocks.length > 0 && blocks.every((b) => b?.type === 'text')));
    const marker = prompt && blocks.some((b) => (asString(b?.text) ?? '').startsWith(INTERRUPT_MARKER));
    this.nodes.set(uuid, { parent: asString(raw.parentUuid), prompt: prompt && !marker, marker });
    const at = line.offset;
    const time = timeOf(raw.timestamp) ?? 0;
    if (type === 'system' && raw.subtype === 'compact_boundary') {
      this.compactions++;
      const use = this.tracker.currentContext;
      this.tracker.context(
        { usedTokens: use?.usedTokens ?? 0, windowTokens: use?.windowTokens, windowSource: use?.windowSource, compactions: this.compactions },
        at,
      );
    }
    if ((type === 'system' && raw.subtype === 'turn_duration') || marker) this.turnEnded(uuid, marker);
    if (type === 'assistant') this.assistant(uuid, raw, message, blocks, at, time);
    if (type === 'user') this.toolResults(blocks, at, time);
  }

  private assistant(
    uuid: string,
    raw: Record<string, unknown>,
    message: Record<string, unknown>,
    blocks: (Record<string, unknown> | null)[],
    at: number,
    time: number,
  ): void {
    const model = asString(message.model) ?? '';
    if (model === '<synthetic>' || raw.isApiErrorMessage === true) return;
    const messageId = asString(message.id) ?? uuid;
    const usage = asObject(message.usage);
    if (usage) {
      this.tracker.context(
        {
          usedTokens: asNumber(usage.input_tokens) + asNumber(usage.cache_creation_input_tokens) + asNumber(usage.cache_read_input_tokens),
          windowTokens: model.includes('[1m]') ? 1_000_000 : DEFAULT_WINDOW,
          windowSource: 'model',
          compactions: this.compactions,
        },
        at,
      );
    }
    const source = { recordId: uuid, offset: at };
    blocks.forEach((b, i) => {
      if (b?.type === 'text') {
        const text = asString(b.text) ?? '';
        if (text.trim() === '') return;
        const ref = i === 0 ? uuid : `${uuid}:${i}`;
        this.pendingTexts.push({ item: { ref, source, kind: 'text', status: 'ok', text: clip(text, ACTIVITY_LIMITS.text), startedAt: time }, messageId, at });
      } else if (b?.type === 'tool_use') {
        const ref = asString(b.id);
        if (!ref) return;
        const name = asString(b.name) ?? 'tool';
        const input = asObject(b.input) ?? {};
        this.toolMessages.add(messageId);
        this.tracker.put(
          {
            ref,
            source,
            kind: KINDS[name] ?? 'tool',
            toolName: name,
            subject: toolSubject(name, input),
            status: 'running',
            diff: toolDiff(name, input),
            startedAt: time,
          },
          at,
        );
        const early = this.results.get(ref);
        if (early) {
          this.results.delete(ref);
          this.tracker.update(ref, resultPatch(KINDS[name] ?? 'tool', early), early.at);
        }
      }
    });
    const turn = this.turnOf(uuid);
    if (turn) {
      const last = this.lastMessage.get(turn);
      if (!last || last.at < at) this.lastMessage.set(turn, { id: messageId, at });
    }
    this.settleTexts();
  }

  private toolResults(blocks: (Record<string, unknown> | null)[], at: number, time: number): void {
    for (const b of blocks) {
      if (b?.type !== 'tool_result') continue;
      const ref = asString(b.tool_use_id);
      if (!ref) continue;
      const result = { text: resultText(b.content), error: b.is_error === true, time, at };
      const item = this.tracker.get(ref);
      if (item) this.tracker.update(ref, resultPatch(item.kind, result), at);
      else this.results.set(ref, result);
    }
  }

  /** The turn's end decides its held texts: those of the final message were the answer. */
  private turnEnded(uuid: string, interrupted: boolean): void {
    // An interrupt marker belongs to no turn itself; it ends the one it hangs off.
    const from = interrupted ? this.nodes.get(uuid)?.parent : uuid;
    const turn = from ? this.turnOf(from) : undefined;
    if (!turn) return;
    // An interrupted turn has no final answer: all its texts are shown.
    const final = interrupted ? null : this.lastMessage.get(turn)?.id;
    const keep: PendingText[] = [];
    for (const t of this.pendingTexts) {
      if (this.turnOf(t.item.source.recordId) !== turn) keep.push(t);
      else if (t.messageId !== final) this.tracker.put(t.item, t.at);
    }
    this.pendingTexts = keep;
  }

  private settleTexts(): void {
    this.pendingTexts = this.pendingTexts.filter((t) => {
      const turn = this.turnOf(t.item.source.recordId);
      const later = turn ? this.lastMessage.get(turn) : undefined;
      const notFinal = this.toolMessages.has(t.messageId) || (later !== undefined && later.id !== t.messageId && later.at > t.at);
      if (notFinal) this.tracker.put(t.item, t.at);
      return !notFinal;
    });
  }

  /** The prompt record a record descends from; undefined while the chain is incomplete. */
  turnOf(uuid: string): string | undefined {
    const known = this.turns.get(uuid);
    if (known) return known;
    const path: string[] = [];
    let cur: string | null = uuid;
    let found: string | undefined;
    const seen = new Set<string>();
    while (cur && !seen.has(cur)) {
      seen.add(cur);
      const cached = this.turns.get(cur);
      if (cached) {
        found = cached;
        break;
      }
      const node = this.nodes.get(cur);
      if (!node || node.marker) break;
      if (node.prompt) {
        found = cur;
        break;
      }
      path.push(cur);
      cur = node.parent;
    }
    if (found) for (const p of path) this.turns.set(p, found);
    return found;
  }

  /** Items and context changed since the last call, as `activity` payloads. */
  drain(): ActivityPayload[] {
    return this.tracker.drain((item) => this.turnOf(item.source.recordId));
  }
}
