import type { JournalLine } from '../journal/jsonl-tailer.ts';
import { asObject, asString } from '../journal/types.ts';

type Rec = { uuid: string; parentUuid: string | null; raw: Record<string, unknown> };
export type PrintEnd = { state: 'completed'; final: string } | { state: 'api_error'; detail: string };

const message = (r: Rec) => asObject(r.raw.message) ?? {};
const isPrompt = (r: Rec) => r.raw.type === 'user' && (r.raw.promptSource === 'sdk' || asObject(r.raw.origin)?.kind === 'human');
const text = (r: Rec) =>
  (Array.isArray(message(r).content) ? (message(r).content as unknown[]) : [])
    .map((b) => asObject(b))
    .filter((b) => b?.type === 'text')
    .map((b) => asString(b?.text) ?? '')
    .join('');

/**
 * Print mode (`claude -p`, `promptSource:"sdk"`) journals no `turn_duration`: its turn ends with
 * the model's last assistant record, `stop_reason:"end_turn"` (or a synthetic API-error record).
 * For read-only reading of such a journal, a print-mode prompt whose `uuid`/`parentUuid` chain runs
 * without a fork to that record has ended there. Interactive prompts are left to `ClaudeJournal`,
 * which waits for `turn_duration` (a Stop hook may still continue a turn after `end_turn`).
 */
export function claudePrintEnds(lines: readonly JournalLine[]): (promptUuid: string) => PrintEnd | null {
  const byUuid = new Map<string, Rec>();
  const children = new Map<string, Rec[]>();
  for (const line of lines) {
    let raw: Record<string, unknown> | null;
    try {
      raw = asObject(JSON.parse(line.text));
    } catch {
      continue;
    }
    const uuid = raw && asString(raw.uuid);
    if (!raw || !uuid || byUuid.has(uuid)) continue;
    const rec = { uuid, parentUuid: asString(raw.parentUuid), raw };
    byUuid.set(uuid, rec);
    if (rec.parentUuid) children.set(rec.parentUuid, [...(children.get(rec.parentUuid) ?? []), rec]);
  }
  return (promptUuid) => {
    const prompt = byUuid.get(promptUuid);
    if (prompt?.raw.promptSource !== 'sdk') return null;
    let last = prompt;
    for (;;) {
      const next = (children.get(last.uuid) ?? []).filter((c) => c.raw.isSidechain !== true);
      if (next.length === 0) break;
      if (next.length > 1) return null;
      const only = next[0] as Rec;
      if (isPrompt(only)) break;
      last = only;
    }
    if (last.raw.type !== 'assistant') return null;
    const blocks: Rec[] = [];
    for (
      let cur: Rec | undefined = last;
      cur?.raw.type === 'assistant' && message(cur).id === message(last).id;
      cur = cur.parentUuid ? byUuid.get(cur.parentUuid) : undefined
    ) {
      blocks.unshift(cur);
    }
    const all = blocks.map(text).join('');
    if (last.raw.isApiErrorMessage === true) return { state: 'api_error', detail: all };
    return message(last).stop_reason === 'end_turn' ? { state: 'completed', final: all } : null;
  };
}
