import type { LineSink } from './line-scanner.ts';
import { clip, contentText, LineWindows, marker, nextType, obj, parseOrSkim, str, stringField, touchTimes, valueIs } from './line-bytes.ts';

// Fields discovery keeps for one Claude journal (`projects/<dir>/<uuid>.jsonl`). They are folded
// line by line so an appended tail updates them without re-reading the file. Records can be out
// of file order (first-turn assistant before its user record), so "first" and "last" go by
// timestamp, never by position.

export const PROMPT_MAX = 240;

export interface ClaudeFields {
  kind: 'claude';
  cwd: string | null;
  cwdAt: string | null;
  startedAt: string | null;
  lastActivityAt: string | null;
  customTitle: string | null;
  aiTitle: string | null;
  firstPrompt: string | null;
  firstPromptAt: string | null;
  lastPrompt: string | null;
  lastPromptAt: string | null;
  exitPrompt: string | null;
  userTurns: number;
  cliVersion: string | null;
  entrypoint: string | null;
  sawMain: boolean;
  sawSidechain: boolean;
}

export function emptyClaudeFields(): ClaudeFields {
  return {
    kind: 'claude',
    cwd: null,
    cwdAt: null,
    startedAt: null,
    lastActivityAt: null,
    customTitle: null,
    aiTitle: null,
    firstPrompt: null,
    firstPromptAt: null,
    lastPrompt: null,
    lastPromptAt: null,
    exitPrompt: null,
    userTurns: 0,
    cliVersion: null,
    entrypoint: null,
    sawMain: false,
    sawSidechain: false,
  };
}

const USER = marker('"type":"user"');
const HUMAN = marker('"kind":"human"');
const SDK = marker('"promptSource":"sdk"');
const ORIGIN = marker('"origin":');
const TOOL_RESULT = marker('"type":"tool_result"');
const CWD = marker('"cwd":"');
const V_USER = marker('user');
const V_AI_TITLE = marker('ai-title');
const V_CUSTOM_TITLE = marker('custom-title');
const V_LAST_PROMPT = marker('last-prompt');
const TIMESTAMP = marker('"timestamp":"');

export function claudeLineSink(f: ClaudeFields, onMalformed: () => void): LineSink {
  const w = new LineWindows();
  const apply = (record: Record<string, unknown>) => applyRecord(f, record);
  return {
    line(buf, start, end) {
      w.set(buf, start, end);
      // The first `"type"` of a line is the record's own for the records read here (user records
      // and title records put it before any payload); others may show a nested type, which is
      // never one of these.
      const type = nextType(w.head, 0);
      const parse =
        (valueIs(w.head, type, V_USER) && (w.has(HUMAN) || w.has(SDK) || (!w.long && !w.has(ORIGIN) && !w.has(TOOL_RESULT)))) ||
        valueIs(w.head, type, V_AI_TITLE) ||
        valueIs(w.head, type, V_CUSTOM_TITLE) ||
        valueIs(w.head, type, V_LAST_PROMPT) ||
        (f.cwd === null && !w.long && w.has(CWD));
      // The top-level timestamp follows the large `message` payload, so look for it from the end.
      if (parseOrSkim(buf, start, end, parse, apply, onMalformed)) touchTimes(f, stringField(w.tail, TIMESTAMP, true));
    },
    hugeLine(head, tail) {
      touchTimes(f, stringField(tail, TIMESTAMP, true));
      const human = head.includes(USER) && (head.includes(HUMAN) || tail.includes(HUMAN) || head.includes(SDK) || tail.includes(SDK));
      if (human) f.userTurns++;
    },
  };
}

function applyRecord(f: ClaudeFields, r: Record<string, unknown>): void {
  const ts = str(r.timestamp);
  touchTimes(f, ts);
  const cwd = str(r.cwd);
  if (cwd !== null && (f.cwd === null || (ts !== null && f.cwdAt !== null && ts < f.cwdAt))) {
    f.cwd = cwd;
    f.cwdAt = ts;
  }
  const version = str(r.version);
  if (version !== null) f.cliVersion = version;
  if (f.entrypoint === null) f.entrypoint = str(r.entrypoint);
  switch (r.type) {
    case 'user':
      applyUser(f, r, ts);
      return;
    case 'ai-title':
      f.aiTitle = clip(str(r.aiTitle), PROMPT_MAX) ?? f.aiTitle;
      return;
    case 'custom-title':
      f.customTitle = clip(str(r.customTitle), PROMPT_MAX) ?? f.customTitle;
      return;
    case 'last-prompt':
      f.exitPrompt = clip(str(r.lastPrompt), PROMPT_MAX) ?? f.exitPrompt;
      return;
    default:
      return;
  }
}

function applyUser(f: ClaudeFields, r: Record<string, unknown>, ts: string | null): void {
  if (r.isSidechain === true) {
    f.sawSidechain = true;
    return;
  }
  f.sawMain = true;
  if (!isHumanPrompt(r)) return;
  const text = clip(contentText(obj(r.message)?.content), PROMPT_MAX);
  f.userTurns++;
  if (text === null) return;
  // Without a timestamp, file order is the only evidence left.
  if (f.firstPrompt === null || (ts !== null && f.firstPromptAt !== null && ts < f.firstPromptAt)) {
    f.firstPrompt = text;
    f.firstPromptAt = ts;
  }
  if (f.lastPrompt === null || ts === null || f.lastPromptAt === null || ts >= f.lastPromptAt) {
    f.lastPrompt = text;
    f.lastPromptAt = ts;
  }
}

function isHumanPrompt(r: Record<string, unknown>): boolean {
  if (r.origin !== undefined || r.promptSource !== undefined) {
    return obj(r.origin)?.kind === 'human' || r.promptSource === 'sdk';
  }
  // Journals from CLI versions before `origin` existed: a plain-string prompt that is not a
  // meta/command record.
  if (r.isMeta === true || r.toolUseResult !== undefined) return false;
  const content = obj(r.message)?.content;
  return typeof content === 'string' && !content.startsWith('<');
}

export function claudeTitle(f: ClaudeFields): string | null {
  return f.customTitle ?? f.aiTitle;
}
