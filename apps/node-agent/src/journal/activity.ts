import { ACTIVITY_LIMITS, type ActivityItem, type ActivityKind, type ActivityPayload, clip, type ContextUse } from '@bria/core/protocol';

/** Lines of a tool's output the hub shows as its head. */
export const OUTPUT_HEAD_LINES = 10;
/**
 * JSON budget of one `activity` event: well under the 1 MiB frame limit, since a frame also carries
 * the envelope and JSON escaping can grow the texts.
 */
export const ACTIVITY_EVENT_BYTES = 512 * 1024;

/** An item as a parser keeps it: the turn may only be known later (Claude records can come out of order). */
export type DraftItem = Omit<ActivityItem, 'nativeTurnId'> & { nativeTurnId?: string };

/** The first lines of a tool's output, bounded. */
export function outputHead(text: string): string | undefined {
  const lines = text.replace(/\s+$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return undefined;
  const head = lines.slice(0, OUTPUT_HEAD_LINES).join('\n') + (lines.length > OUTPUT_HEAD_LINES ? '\n…' : '');
  return clip(head, ACTIVITY_LIMITS.outputHead);
}

function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * A string replacement (Claude Edit) as a diff: the lines both sides share at the start and the end
 * are left out, so one changed line in a large `old_string` counts as one line, not all of them.
 */
export function replacementDiff(file: string, oldText: string, newText: string): NonNullable<ActivityItem['diff']> {
  const before = linesOf(oldText);
  const after = linesOf(newText);
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const removed = before.slice(head, before.length - tail);
  const added = after.slice(head, after.length - tail);
  const text = [`--- ${file}`, `+++ ${file}`, ...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)].join('\n');
  return { added: added.length, removed: removed.length, text: clip(text, ACTIVITY_LIMITS.diff) };
}

/** Several replacements in one file (Claude MultiEdit), counted together. */
export function replacementsDiff(file: string, edits: { oldText: string; newText: string }[]): NonNullable<ActivityItem['diff']> {
  const parts = edits.map((e) => replacementDiff(file, e.oldText, e.newText));
  const body = parts.map((p) => p.text.split('\n').slice(2).join('\n')).filter((t) => t !== '');
  return {
    added: parts.reduce((n, p) => n + p.added, 0),
    removed: parts.reduce((n, p) => n + p.removed, 0),
    text: clip([`--- ${file}`, `+++ ${file}`, ...body].join('\n'), ACTIVITY_LIMITS.diff),
  };
}

/** A whole file written (Claude Write): every line counts as added; the old content is not in the call. */
export function writeDiff(file: string, content: string): NonNullable<ActivityItem['diff']> {
  const lines = linesOf(content);
  return { added: lines.length, removed: 0, text: clip([`+++ ${file}`, ...lines.map((l) => `+${l}`)].join('\n'), ACTIVITY_LIMITS.diff) };
}

/** A Codex `apply_patch` envelope: its own `+`/`-` lines, the `***` headers left out. */
export function patchDiff(patch: string): NonNullable<ActivityItem['diff']> {
  let added = 0;
  let removed = 0;
  for (const line of patch.split('\n')) {
    if (line.startsWith('***')) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed, text: clip(patch.replace(/\s+$/, ''), ACTIVITY_LIMITS.diff) };
}

/** A record's ISO timestamp in ms, or null when it has none. */
export function timeOf(iso: unknown): number | null {
  if (typeof iso !== 'string') return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

export const subjectOf = (s: unknown): string | undefined => (typeof s === 'string' && s !== '' ? clip(s, ACTIVITY_LIMITS.subject) : undefined);

export type { ActivityKind };

/**
 * The items and context use a journal parser has concluded, and which of them changed since the
 * last `drain`. A change counts only when the record that caused it starts at or after `floor`:
 * after a re-attach the host reads history it already reported, and re-sending all of it would
 * only repeat what the hub has (the hub upserts by ref, so a repeat is harmless, just wasteful).
 */
export class ActivityTracker {
  private readonly items = new Map<string, DraftItem>();
  private readonly changed = new Set<string>();
  private contextUse: ContextUse | null = null;
  private contextChanged = false;
  floor = 0;

  get(ref: string): DraftItem | undefined {
    return this.items.get(ref);
  }

  /** A new item, or new facts about a known one; `at` is the offset of the record that says so. */
  put(item: DraftItem, at: number): void {
    const prev = this.items.get(item.ref);
    this.keep(prev ? { ...prev, ...item, source: prev.source, startedAt: prev.startedAt } : item, at);
  }

  update(ref: string, patch: Partial<DraftItem>, at: number): boolean {
    const prev = this.items.get(ref);
    if (!prev) return false;
    this.keep({ ...prev, ...patch }, at);
    return true;
  }

  private keep(item: DraftItem, at: number): void {
    if (at >= this.floor) {
      this.items.set(item.ref, item);
      this.changed.add(item.ref);
    } else if (item.status === 'running') {
      // History before the floor: only a call still running can change (and be sent) again.
      this.items.set(item.ref, item);
    } else this.items.delete(item.ref);
  }

  context(use: ContextUse, at: number): void {
    const prev = this.contextUse;
    this.contextUse = use;
    const same = prev && prev.usedTokens === use.usedTokens && prev.windowTokens === use.windowTokens && prev.compactions === use.compactions;
    if (!same && at >= this.floor) this.contextChanged = true;
  }

  get currentContext(): ContextUse | null {
    return this.contextUse;
  }

  /**
   * The changed items, each event within the protocol's item count and the frame budget, context
   * with the last one; `turnOf` fills in turns that became known since. Settled items are forgotten
   * once sent: nothing in a journal changes them again.
   */
  drain(turnOf: (item: DraftItem) => string | undefined): ActivityPayload[] {
    const out: ActivityPayload[] = [];
    let batch: ActivityItem[] = [];
    let bytes = 0;
    // In journal order: a text held until a later call showed it was not the answer goes before that call.
    const drafts = [...this.changed].map((ref) => this.items.get(ref)).filter((d) => d !== undefined);
    drafts.sort((a, b) => a.source.offset - b.source.offset);
    for (const draft of drafts) {
      const ref = draft.ref;
      const turn = draft.nativeTurnId ?? turnOf(draft);
      const item: ActivityItem = turn ? { ...draft, nativeTurnId: turn } : draft;
      // Bytes, not characters: a non-ASCII output line takes up to three bytes per character on the wire.
      const size = Buffer.byteLength(JSON.stringify(item));
      if (batch.length > 0 && (batch.length >= ACTIVITY_LIMITS.items || bytes + size > ACTIVITY_EVENT_BYTES)) {
        out.push({ items: batch });
        batch = [];
        bytes = 0;
      }
      batch.push(item);
      bytes += size;
      if (item.status !== 'running') this.items.delete(ref);
    }
    this.changed.clear();
    if (batch.length > 0 || this.contextChanged) {
      out.push({ items: batch, ...(this.contextChanged && this.contextUse ? { context: this.contextUse } : {}) });
    }
    this.contextChanged = false;
    return out;
  }
}
