// Shared shapes of what the journal parsers conclude. Every conclusion names the bytes it rests on.

/** Where a record sits in its journal file. */
export type RecordRef = {
  offset: number;
  end: number;
};

/**
 * A turn's tokens as its journal counted them, the kinds billed apart: `inputTokens` without the
 * cached ones, cache reads and cache writes on their own; `model` as the journal names it.
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  model: string | null;
}

/** A prompt as the CLI stored it: the native receipt a delivered message is bound to. */
export interface NativePrompt extends RecordRef {
  /** Claude: the user record's uuid. Codex: the turn id. */
  nativeRef: string;
  text: string;
}

/**
 * What the journal proves about one turn. `pending` = no terminal record yet (it may still come);
 * `unknown` = the evidence is contradictory or malformed and must not be guessed around.
 */
export type TurnOutcome =
  | { state: 'pending' }
  | { state: 'completed'; finalText: string; usage: TokenUsage | null; evidence: RecordRef & { recordIds: string[] } }
  | { state: 'api_error'; errorText: string; evidence: RecordRef & { recordIds: string[] } }
  | { state: 'interrupted'; reason: string; evidence: RecordRef & { recordIds: string[] } }
  | { state: 'unknown'; reason: string; evidence: RecordRef[] };

export interface MalformedLine extends RecordRef {
  error: string;
}

export function asObject(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

export function asString(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

export function asNumber(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
