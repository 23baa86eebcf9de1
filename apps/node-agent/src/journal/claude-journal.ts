import { ClaudeActivity } from './claude-activity.ts';
import { ClaudeLimits } from './limits.ts';
import type { JournalLine } from './jsonl-tailer.ts';
import { asNumber, asObject, asString, type MalformedLine, type NativePrompt, type RecordRef, type TokenUsage, type TurnOutcome } from './types.ts';

interface Entry extends RecordRef {
  uuid: string;
  parentUuid: string | null;
  type: string;
  raw: Record<string, unknown>;
}

const INTERRUPT_MARKER = '[Request interrupted by user';

/** The text blocks of a typed prompt; image blocks (pasted images) carry no text; anything else is not a prompt. */
function textBlocks(content: unknown): string[] | null {
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const block of content) {
    const b = asObject(block);
    if (b?.type === 'image') continue;
    if (b?.type !== 'text') return null;
    texts.push(asString(b.text) ?? '');
  }
  return texts;
}

function message(e: Entry): Record<string, unknown> {
  return asObject(e.raw.message) ?? {};
}

/** A prompt the user typed or pasted (not a tool result, not a CLI-injected meta record). */
export function promptText(e: Entry): string | null {
  if (e.type !== 'user' || e.raw.isMeta === true || e.raw.isSidechain === true) return null;
  const content = message(e).content;
  if (typeof content === 'string') return content;
  const texts = textBlocks(content);
  if (!texts || texts.length === 0 || texts.some((t) => t.startsWith(INTERRUPT_MARKER))) return null;
  return texts.join('');
}

function isInterruptMarker(e: Entry): boolean {
  if (e.type !== 'user') return false;
  return (textBlocks(message(e).content) ?? []).some((t) => t.startsWith(INTERRUPT_MARKER));
}

function isTurnDuration(e: Entry): boolean {
  return e.type === 'system' && e.raw.subtype === 'turn_duration';
}

/**
 * Reads a Claude Code session journal. Claude does not always write a turn's records in order, so
 * every conclusion walks `uuid`/`parentUuid` links, never line order.
 */
export class ClaudeJournal {
  private readonly byUuid = new Map<string, Entry>();
  private readonly terminals: Entry[] = [];
  readonly prompts: (NativePrompt & { parentUuid: string | null })[] = [];
  readonly malformed: MalformedLine[] = [];
  sessionIds = new Set<string>();
  /** Tool calls, texts and context use, fed from the same parsed records. */
  readonly activity = new ClaudeActivity();
  /** Usage-limit states (limit errors, and a model answering again after one), drained by the host. */
  readonly limits = new ClaudeLimits();

  ingest(lines: readonly JournalLine[]): void {
    for (const line of lines) {
      if (line.text.trim() === '') continue;
      let raw: Record<string, unknown> | null;
      try {
        raw = asObject(JSON.parse(line.text));
      } catch (err) {
        this.malformed.push({ offset: line.offset, end: line.end, error: (err as Error).message });
        continue;
      }
      if (!raw) continue;
      try {
        this.activity.add(raw, line);
      } catch {
        // Display only: a record the activity reader cannot take must not cost the turn outcomes.
      }
      const sid = asString(raw.sessionId);
      if (sid) this.sessionIds.add(sid);
      const uuid = asString(raw.uuid);
      if (!uuid) continue;
      const entry: Entry = {
        uuid,
        parentUuid: asString(raw.parentUuid),
        type: asString(raw.type) ?? '',
        raw,
        offset: line.offset,
        end: line.end,
      };
      if (this.byUuid.has(uuid)) continue;
      this.byUuid.set(uuid, entry);
      try {
        this.limits.add(raw);
      } catch {
        // A limit state is a hint for the queue; a record it cannot read costs nothing else.
      }
      const text = promptText(entry);
      if (text !== null) this.prompts.push({ nativeRef: uuid, text, offset: line.offset, end: line.end, parentUuid: entry.parentUuid });
      if (isTurnDuration(entry) || isInterruptMarker(entry)) this.terminals.push(entry);
    }
  }

  /** Prompt records that start at or after `offset`, in file order. */
  promptsFrom(offset: number): NativePrompt[] {
    return this.prompts.filter((p) => p.offset >= offset);
  }

  prompt(uuid: string): NativePrompt | null {
    return this.prompts.find((p) => p.nativeRef === uuid) ?? null;
  }

  /**
   * A later prompt that hangs off the same parent: Claude dropped this prompt from the conversation
   * (it does so when Esc arrives before the first response byte and the next prompt is typed).
   */
  supersededBy(uuid: string): NativePrompt | null {
    const p = this.prompts.find((x) => x.nativeRef === uuid);
    if (!p) return null;
    return this.prompts.find((x) => x.nativeRef !== uuid && x.offset > p.offset && x.parentUuid === p.parentUuid) ?? null;
  }

  /**
   * The prompt an interrupt marker really ends when Claude wrote it out of place: a queued prompt
   * dequeued on the Esc can be journaled first, right after the interrupted answer's synthetic
   * partial, and the marker then hangs off that queued prompt. A marker whose parent is a prompt
   * that itself follows a synthetic partial ends the partial's prompt; null when not so placed.
   */
  private displacedOwner(marker: Entry): Entry | null {
    const queued = marker.parentUuid ? this.byUuid.get(marker.parentUuid) : undefined;
    if (!queued || promptText(queued) === null || !queued.parentUuid) return null;
    const partial = this.byUuid.get(queued.parentUuid);
    if (partial?.type !== 'assistant' || message(partial).model !== '<synthetic>' || partial.raw.isApiErrorMessage === true) return null;
    const seen = new Set<string>();
    let cur: Entry | undefined = partial;
    while (cur && !seen.has(cur.uuid)) {
      seen.add(cur.uuid);
      if (cur !== partial && (promptText(cur) !== null || isInterruptMarker(cur))) return promptText(cur) !== null ? cur : null;
      cur = cur.parentUuid ? this.byUuid.get(cur.parentUuid) : undefined;
    }
    return null;
  }

  /** Walks up from a terminal record to the prompt that owns it; null if the chain is incomplete. */
  private owner(terminal: Entry): { prompt: Entry | null; path: Entry[] } | null {
    if (isInterruptMarker(terminal)) {
      const displaced = this.displacedOwner(terminal);
      if (displaced) return { prompt: displaced, path: [terminal] };
    }
    const path: Entry[] = [];
    let cur: Entry | undefined = terminal;
    const seen = new Set<string>();
    while (cur) {
      if (seen.has(cur.uuid)) return { prompt: null, path };
      seen.add(cur.uuid);
      path.push(cur);
      if (cur !== terminal && promptText(cur) !== null) return { prompt: cur, path };
      // Records after an interrupt marker belong to no prompt (e.g. "No response requested." on
      // resume), unless the marker was displaced after a queued prompt: they then belong to that one.
      if (cur !== terminal && isInterruptMarker(cur) && !this.displacedOwner(cur)) return { prompt: null, path };
      if (cur.parentUuid === null) return { prompt: null, path };
      cur = this.byUuid.get(cur.parentUuid);
    }
    return null;
  }

  outcome(promptUuid: string): TurnOutcome {
    const found: { terminal: Entry; path: Entry[] }[] = [];
    for (const t of this.terminals) {
      const o = this.owner(t);
      if (o?.prompt?.uuid === promptUuid) found.push({ terminal: t, path: o.path });
    }
    if (found.length === 0) return { state: 'pending' };
    const kinds = new Set(found.map((f) => (isTurnDuration(f.terminal) ? 'duration' : 'interrupt')));
    if (found.length > 1 || kinds.size > 1) {
      return { state: 'unknown', reason: `${found.length} terminal records for one prompt`, evidence: found.map((f) => ref(f.terminal)) };
    }
    const { terminal, path } = found[0]!;
    if (isInterruptMarker(terminal)) {
      return { state: 'interrupted', reason: 'interrupted by user', evidence: { ...ref(terminal), recordIds: [terminal.uuid] } };
    }
    const last = terminal.parentUuid ? this.byUuid.get(terminal.parentUuid) : undefined;
    if (last?.type !== 'assistant') {
      return { state: 'unknown', reason: 'turn_duration does not follow an assistant record', evidence: [ref(terminal)] };
    }
    const blocks = this.finalMessage(last);
    const recordIds = [...blocks.map((b) => b.uuid), terminal.uuid];
    if (last.raw.isApiErrorMessage === true) {
      return { state: 'api_error', errorText: blocks.map(textOf).join(''), evidence: { ...ref(terminal), recordIds } };
    }
    return {
      state: 'completed',
      finalText: blocks.map(textOf).join(''),
      usage: sumUsage(path),
      evidence: { ...ref(terminal), recordIds },
    };
  }

  /** The assistant records of one message (one record per content block), oldest first. */
  private finalMessage(last: Entry): Entry[] {
    const id = message(last).id;
    const out: Entry[] = [];
    let cur: Entry | undefined = last;
    while (cur && cur.type === 'assistant' && message(cur).id === id) {
      out.unshift(cur);
      cur = cur.parentUuid ? this.byUuid.get(cur.parentUuid) : undefined;
    }
    return out;
  }
}

function ref(e: Entry): RecordRef {
  return { offset: e.offset, end: e.end };
}

function textOf(e: Entry): string {
  return (asObject(e.raw.message) ? (message(e).content as unknown[]) : [])
    .map((b) => asObject(b))
    .filter((b) => b?.type === 'text')
    .map((b) => asString(b?.text) ?? '')
    .join('');
}

/** Sum over the distinct model responses of the turn; each block record repeats its message's usage. */
function sumUsage(path: Entry[]): TokenUsage | null {
  const perMessage = new Map<string, Record<string, unknown>>();
  for (const e of path) {
    const m = message(e);
    const usage = asObject(m.usage);
    if (e.type !== 'assistant' || !usage || m.model === '<synthetic>') continue;
    const id = asString(m.id) ?? e.uuid;
    if (!perMessage.has(id)) perMessage.set(id, usage);
  }
  if (perMessage.size === 0) return null;
  const total: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, model: null };
  for (const u of perMessage.values()) {
    // Anthropic's usage: input_tokens excludes both cache reads and cache writes.
    total.inputTokens += asNumber(u.input_tokens);
    total.cacheWriteTokens += asNumber(u.cache_creation_input_tokens);
    total.cacheReadTokens += asNumber(u.cache_read_input_tokens);
    total.outputTokens += asNumber(u.output_tokens);
  }
  // The path runs from the turn's end back to its prompt: its first model is the turn's last answer's.
  total.model = path.map((e) => asString(message(e).model)).find((m) => m !== null && m !== '<synthetic>') ?? null;
  return total;
}
