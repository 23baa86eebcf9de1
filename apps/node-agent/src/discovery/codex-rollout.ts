import type { LineSink } from './line-scanner.ts';
import { PROMPT_MAX } from './claude-journal.ts';
import { clip, contentText, earlier, LineWindows, marker, nextType, obj, parseOrSkim, str, stringField, touchTimes, valueIs } from './line-bytes.ts';

// Fields discovery keeps for one Codex rollout (`sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`).
// Every line is `{"timestamp","ordinal","type","payload"}`; the first is `session_meta`. User
// prompts are `event_msg/item_completed` items of type `UserMessage` (older CLIs wrote
// `event_msg/user_message`, which is counted only when no `UserMessage` item exists).

export interface CodexFields {
  kind: 'codex';
  metaId: string | null;
  cwd: string | null;
  startedAt: string | null;
  lastActivityAt: string | null;
  originator: string | null;
  source: string | null;
  cliVersion: string | null;
  firstPrompt: string | null;
  lastPrompt: string | null;
  itemTurns: number;
  legacyTurns: number;
  legacyFirst: string | null;
  legacyLast: string | null;
}

export function emptyCodexFields(): CodexFields {
  return {
    kind: 'codex',
    metaId: null,
    cwd: null,
    startedAt: null,
    lastActivityAt: null,
    originator: null,
    source: null,
    cliVersion: null,
    firstPrompt: null,
    lastPrompt: null,
    itemTurns: 0,
    legacyTurns: 0,
    legacyFirst: null,
    legacyLast: null,
  };
}

const USER_ITEM = marker('"type":"UserMessage"');
const ITEM_COMPLETED = marker('"type":"item_completed"');
const V_SESSION_META = marker('session_meta');
const V_EVENT_MSG = marker('event_msg');
const V_ITEM_COMPLETED = marker('item_completed');
const V_USER_ITEM = marker('UserMessage');
const V_LEGACY_USER = marker('user_message');
const TIMESTAMP = marker('"timestamp":"');

export function codexLineSink(f: CodexFields, onMalformed: () => void): LineSink {
  const w = new LineWindows();
  const apply = (record: Record<string, unknown>) => applyRecord(f, record);
  return {
    line(buf, start, end, fileOffset) {
      w.set(buf, start, end);
      const parse = (f.metaId === null && fileOffset === 0) || wanted(w.head, f.metaId === null);
      // `timestamp` is the first key of every rollout line.
      if (parseOrSkim(buf, start, end, parse, apply, onMalformed)) touchTimes(f, stringField(w.head, TIMESTAMP, false));
    },
    hugeLine(head) {
      touchTimes(f, stringField(head, TIMESTAMP, false));
      if (head.includes(USER_ITEM) && head.includes(ITEM_COMPLETED)) f.itemTurns++;
    },
  };
}

/** `{"timestamp","ordinal","type","payload":{"type",…,"item":{"type"…` — walk the types in order. */
function wanted(head: Buffer, needMeta: boolean): boolean {
  const type = nextType(head, 0);
  if (valueIs(head, type, V_SESSION_META)) return needMeta;
  if (!valueIs(head, type, V_EVENT_MSG)) return false;
  const inner = nextType(head, type);
  if (valueIs(head, inner, V_LEGACY_USER)) return true;
  return valueIs(head, inner, V_ITEM_COMPLETED) && valueIs(head, nextType(head, inner), V_USER_ITEM);
}

function applyRecord(f: CodexFields, r: Record<string, unknown>): void {
  touchTimes(f, str(r.timestamp));
  const payload = obj(r.payload);
  if (payload === null) return;
  if (r.type === 'session_meta') {
    if (f.metaId !== null) return;
    f.metaId = str(payload.id);
    f.cwd = str(payload.cwd);
    f.originator = str(payload.originator);
    f.source = typeof payload.source === 'string' ? payload.source : payload.source === undefined ? null : JSON.stringify(payload.source);
    f.cliVersion = str(payload.cli_version);
    f.startedAt = earlier(f.startedAt, str(payload.timestamp));
    return;
  }
  if (r.type !== 'event_msg') return;
  if (payload.type === 'item_completed') {
    const item = obj(payload.item);
    if (item?.type !== 'UserMessage') return;
    f.itemTurns++;
    const text = clip(contentText(item.content), PROMPT_MAX);
    if (text === null) return;
    f.firstPrompt ??= text;
    f.lastPrompt = text;
  } else if (payload.type === 'user_message') {
    f.legacyTurns++;
    const text = clip(str(payload.message), PROMPT_MAX);
    if (text === null) return;
    f.legacyFirst ??= text;
    f.legacyLast = text;
  }
}

export function codexPrompts(f: CodexFields): { firstPrompt: string | null; lastPrompt: string | null; userTurns: number } {
  if (f.itemTurns > 0 || f.legacyTurns === 0) return { firstPrompt: f.firstPrompt, lastPrompt: f.lastPrompt, userTurns: f.itemTurns };
  return { firstPrompt: f.legacyFirst, lastPrompt: f.legacyLast, userTurns: f.legacyTurns };
}
