/**
 * What a turn's tokens cost, as an estimate: list prices per million tokens in US dollars, kept in
 * the repository and overridable in Settings (`UsageSettings.priceOverrides`). A model that is in
 * neither has an unknown cost: Bria never guesses a price.
 *
 * Source: the providers' public price pages (anthropic.com/pricing "API" and
 * platform.openai.com/docs/pricing, "Standard" tier) as published around 2025-11-25; not re-checked
 * since (the repository was written offline): check them, or set your prices, before relying on a
 * figure. Newer models (Claude Code 2.1.197's default `claude-opus-4-8`) are not in it. Claude's cache write is the
 * 5-minute write (1.25 × input), which is what Claude Code uses; Claude prices are those of prompts
 * up to 200k tokens. OpenAI bills no cache write (0). Subscription users (Claude Pro/Max, ChatGPT
 * plans) pay no per-token price: the figure is what the same tokens would cost over the API.
 */
export const PRICES_AS_OF = '2025-11-25';
export const PRICES_SOURCE = 'anthropic.com/pricing, platform.openai.com/docs/pricing (standard tier)';

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const PRICE_TABLE: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
  'gpt-5-codex': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
  'gpt-5.1': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
  'gpt-5.1-codex': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
  'gpt-5.1-codex-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
};

/** Tokens of one turn (or a sum), the four kinds billed apart. `input` never includes cached tokens. */
export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const ZERO_TOKENS: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export const addTokens = (a: TokenCounts, b: TokenCounts): TokenCounts => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cacheRead: a.cacheRead + b.cacheRead,
  cacheWrite: a.cacheWrite + b.cacheWrite,
});

/** A dated snapshot name (`claude-sonnet-4-5-20250929`) is priced as its family; nothing else is. */
const DATED = /^(.+)-\d{8}$/;

/**
 * The price of `model`: an override first, then the table, each by exact name or by the name
 * without a `-YYYYMMDD` snapshot suffix. Null when unknown (no model, or one in neither).
 */
export function priceFor(model: string | null, overrides: Readonly<Record<string, ModelPrice>> = {}): ModelPrice | null {
  if (!model) return null;
  const family = DATED.exec(model)?.[1];
  for (const name of family ? [model, family] : [model]) {
    const p = overrides[name] ?? PRICE_TABLE[name];
    if (p) return p;
  }
  return null;
}

/** US dollars for `tokens` at `price`; null when the price is unknown. */
export function costOf(tokens: TokenCounts, price: ModelPrice | null): number | null {
  if (!price) return null;
  return (tokens.input * price.input + tokens.output * price.output + tokens.cacheRead * price.cacheRead + tokens.cacheWrite * price.cacheWrite) / 1_000_000;
}

/**
 * The estimated cost of token sums per model. `unpricedTokens` counts what could not be priced, so a
 * total is shown as "at least" when some of it has no price.
 */
export function estimateCost(
  byModel: readonly { model: string | null; tokens: TokenCounts }[],
  overrides: Readonly<Record<string, ModelPrice>> = {},
): { usd: number; unpricedTokens: number; unpricedModels: string[] } {
  let usd = 0;
  let unpricedTokens = 0;
  const unpriced = new Set<string>();
  for (const m of byModel) {
    const c = costOf(m.tokens, priceFor(m.model, overrides));
    if (c === null) {
      unpricedTokens += m.tokens.input + m.tokens.output + m.tokens.cacheRead + m.tokens.cacheWrite;
      unpriced.add(m.model ?? '');
    } else usd += c;
  }
  return { usd, unpricedTokens, unpricedModels: [...unpriced].sort() };
}

/** Bounds of an override: a model name as the CLIs report it, a price per million tokens. */
export const MAX_PRICE_PER_MTOK = 10_000;
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;

/** Checks the Settings' overrides (parsed JSON); a list of problems, empty when fine. */
export function priceOverrideProblems(v: unknown): string[] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return ['prices must be an object of model → prices'];
  const problems: string[] = [];
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > 200) problems.push('at most 200 models');
  for (const [model, p] of entries) {
    if (!MODEL_NAME.test(model)) problems.push(`${model.slice(0, 40)}: not a model name`);
    const o = typeof p === 'object' && p !== null ? (p as Record<string, unknown>) : null;
    for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
      const n = o?.[k];
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > MAX_PRICE_PER_MTOK)
        problems.push(`${model.slice(0, 40)}.${k}: a price from 0 to ${MAX_PRICE_PER_MTOK}`);
    }
    if (o && Object.keys(o).some((k) => !['input', 'output', 'cacheRead', 'cacheWrite'].includes(k))) problems.push(`${model.slice(0, 40)}: unknown field`);
  }
  return problems;
}

/**
 * A `usage` report's tokens, the four kinds apart. An agent of this version sends `cacheReadTokens`
 * and `cacheWriteTokens` beside an `inputTokens` without them; an older agent sent `inputTokens`
 * (Claude: with the cache writes in it) and `cachedInputTokens`, taken as input and cache reads.
 */
export function reportedTokens(p: Record<string, unknown>): TokenCounts {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
  if (p.cacheReadTokens !== undefined || p.cacheWriteTokens !== undefined) {
    return { input: n(p.inputTokens), output: n(p.outputTokens), cacheRead: n(p.cacheReadTokens), cacheWrite: n(p.cacheWriteTokens) };
  }
  return { input: n(p.inputTokens), output: n(p.outputTokens), cacheRead: n(p.cachedInputTokens), cacheWrite: 0 };
}
