/** What folding needs of an evidence row (the timeline's `EvidenceItem` has more). */
export interface FoldableEvidence {
  event: string;
  fromState: string | null;
  toState: string | null;
  evidence?: unknown;
}

/**
 * Technical rows whose repeats tell a person nothing new: one line with a count is enough. A row
 * that changed the session's state is never folded, nor is any row a person caused or must read
 * (requests, answers, finals). `refused:<type>` rows (agent facts set aside, e.g. 128 stale reports
 * replayed after a warm restart) are folded by type and refusal code.
 */
const TECHNICAL = new Set([
  'usage',
  'evidence_unknown',
  'delivery_not_typed',
  'command_interrupted',
  'recovery_retry_due',
  'final_save_retry_due',
  'archive_commit_retry_due',
  'close_retry_due',
  'final_save_failed',
  'archive_commit_failed',
]);

/** Same non-null key ⇒ same kind of technical row; null: never folded. */
export function foldKey(e: FoldableEvidence): string | null {
  if (e.fromState !== e.toState) return null;
  if (e.event.startsWith('refused:')) {
    const code = e.evidence && typeof e.evidence === 'object' && 'code' in e.evidence ? String((e.evidence as { code: unknown }).code) : '';
    return `${e.event}|${code}`;
  }
  return TECHNICAL.has(e.event) ? e.event : null;
}

export interface FoldedRow<T> {
  /** The run's newest row (its words, time and raw record are shown). */
  item: T;
  /** The run's oldest row (the same as `item` when `count` is 1). */
  first: T;
  count: number;
}

/** Consecutive rows (in recorded order) of one technical kind become one row with their count; order is kept. */
export function foldEvidence<T extends FoldableEvidence>(items: readonly T[]): FoldedRow<T>[] {
  const out: FoldedRow<T>[] = [];
  let lastKey: string | null = null;
  for (const item of items) {
    const key = foldKey(item);
    const prev = out.at(-1);
    if (prev && key !== null && key === lastKey) {
      prev.item = item;
      prev.count += 1;
    } else {
      out.push({ item, first: item, count: 1 });
    }
    lastKey = key;
  }
  return out;
}
