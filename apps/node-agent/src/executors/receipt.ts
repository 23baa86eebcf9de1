import type { NativePrompt } from '../journal/types.ts';

/**
 * How a delivered message is bound to its native receipt (Claude: user record uuid; Codex: turn id).
 *
 * A journal prompt P is the receipt of delivery D only if all of these hold:
 *  1. P starts at or after `baseline`, the journal's byte length read just before D's paste, so no
 *     prompt that existed before the paste (history, earlier turns) can be taken;
 *  2. P's text is exactly what was pasted, up to the one fixed rewrite the CLI is known to apply
 *     (`matches`: Claude turns tabs into four spaces, Codex trims the leading space Bria adds);
 *  3. P (this very record) is not already bound to another delivery;
 *  4. D is the only delivery waiting for a receipt: SessionHost pastes the next message only after
 *     this one was bound or given up as unknown, so two of Bria's messages never compete for P.
 * The first P in file order that satisfies 1–3 is taken. Its native ref may be a turn that already
 * has a message: Codex folds a message typed during a running turn into that turn (a follow-up). What this cannot tell apart is a person
 * typing the identical text into the same pane in the same instant; the bytes and the turn would
 * then be the same either way.
 */
export function findReceipt(o: {
  prompts: readonly NativePrompt[];
  baseline: number;
  /** Offsets of prompts already bound (a Codex turn id can carry several prompts, so not ids). */
  bound: ReadonlySet<number>;
  sent: string;
  matches: (stored: string, sent: string) => boolean;
}): NativePrompt | null {
  return o.prompts.find((p) => p.offset >= o.baseline && !o.bound.has(p.offset) && o.matches(p.text, o.sent)) ?? null;
}
