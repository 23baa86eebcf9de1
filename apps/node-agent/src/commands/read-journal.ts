import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type JournalTurn,
  parseSessionCommand,
  READ_JOURNAL_MAX_BYTES,
  READ_JOURNAL_MAX_TEXT,
  type ReadJournalRequest,
  type ReadJournalResult,
} from '@bria/core/protocol';
import { archivePath } from '../archive/index.ts';
import { classifyJournal } from '../discovery/list-journals.ts';
import { ClaudeJournal } from '../journal/claude-journal.ts';
import { claudePrintEnds } from './claude-print-end.ts';
import { CodexJournal } from '../journal/codex-journal.ts';
import type { JournalLine } from '../journal/jsonl-tailer.ts';
import type { NativePrompt, TurnOutcome } from '../journal/types.ts';

/**
 * `read_journal`: a session's conversation as the CLI recorded it, for the dashboard. The journal
 * parsers are the ones the agent binds receipts and outcomes with (Claude: `uuid`/`parentUuid`
 * chains, never line order; Codex: turn ids), so the page and the queue cannot disagree.
 *
 * Only journals of the asked native id are read: the CLI's own file (the hub's path hint is used
 * only if it is that id's journal inside the CLI's folder), else Bria's archive copy. Nothing is
 * written. Decision: Claude prompts that are CLI-generated wrappers (`<command-name>…`,
 * `<local-command-stdout>…`) are not user turns and are left out.
 */
export interface ReadJournalDirs {
  claudeHome: string | null;
  codexHome: string | null;
  /** Where the agent keeps archive copies (`archiveJournal`'s dataDir). */
  archiveDir: string;
}

const UUID_LIKE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const DEFAULT_LIMIT = 30;

export async function readJournal(req: ReadJournalRequest, dirs: ReadJournalDirs): Promise<ReadJournalResult> {
  const nativeId = req.nativeSessionId.toLowerCase();
  if (!UUID_LIKE.test(nativeId)) return { ok: false, code: 'invalid', error: 'native session id is not a plain id' };
  const found = locate(req, nativeId, dirs);
  if (!found) return { ok: false, code: 'not_found', error: 'neither the CLI journal nor an archive copy of this session is on this computer' };
  let lines: JournalLine[];
  try {
    lines = splitLines(await readFile(found.file));
  } catch (err) {
    return { ok: false, code: 'failed', error: `journal could not be read: ${(err as Error).message}`.slice(0, 500) };
  }
  const all = req.executor === 'claude' ? claudeTurns(lines) : codexTurns(lines);
  return page(all, req, found);
}

function locate(req: ReadJournalRequest, nativeId: string, dirs: ReadJournalDirs): { file: string; source: 'native' | 'archive' } | null {
  if (req.journalPath) {
    const c = classifyJournal(dirs.claudeHome, dirs.codexHome, req.journalPath);
    if (c && c.executor === req.executor && c.nativeId === nativeId && existsSync(req.journalPath)) return { file: req.journalPath, source: 'native' };
  }
  const native = req.executor === 'claude' ? findClaude(dirs.claudeHome, nativeId) : findCodex(dirs.codexHome, nativeId);
  if (native) return { file: native, source: 'native' };
  const archived = archivePath(dirs.archiveDir, req.executor, nativeId);
  return existsSync(archived) ? { file: archived, source: 'archive' } : null;
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function findClaude(home: string | null, id: string): string | null {
  if (!home) return null;
  const projects = path.join(home, 'projects');
  for (const d of list(projects)) {
    const f = path.join(projects, d, `${id}.jsonl`);
    if (existsSync(f)) return f;
  }
  return null;
}

/** Newest day folders first: the session asked about is usually recent. */
function findCodex(home: string | null, id: string): string | null {
  if (!home) return null;
  const root = path.join(home, 'sessions');
  const desc = (dir: string, re: RegExp) =>
    list(dir)
      .filter((n) => re.test(n))
      .sort()
      .reverse()
      .map((n) => path.join(dir, n));
  for (const y of desc(root, /^\d{4}$/)) {
    for (const m of desc(y, /^\d{2}$/)) {
      for (const d of desc(m, /^\d{2}$/)) {
        const hit = list(d).find((n) => n.startsWith('rollout-') && n.toLowerCase().endsWith(`-${id}.jsonl`));
        if (hit) return path.join(d, hit);
      }
    }
  }
  return null;
}

/** Complete lines with their byte offsets; a half-written last line is left out. */
export function splitLines(buf: Buffer): JournalLine[] {
  const out: JournalLine[] = [];
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) break;
    out.push({ offset: start, end: nl + 1, text: buf.toString('utf8', start, nl) });
    start = nl + 1;
  }
  return out;
}

type Turn = Omit<JournalTurn, 'index' | 'clipped'>;

function fromOutcome(p: NativePrompt, o: TurnOutcome): Turn {
  const base = { nativeRef: p.nativeRef, prompt: p.text };
  switch (o.state) {
    case 'completed':
      return { ...base, state: 'completed', final: o.finalText };
    case 'api_error':
      return { ...base, state: 'api_error', detail: o.errorText.slice(0, 2000) };
    case 'interrupted':
      return { ...base, state: 'interrupted', detail: o.reason.slice(0, 2000) };
    case 'unknown':
      return { ...base, state: 'unknown', detail: o.reason.slice(0, 2000) };
    default:
      return { ...base, state: 'pending' };
  }
}

const CLI_WRAPPER = /^<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat)>/;

export function claudeTurns(lines: JournalLine[]): Turn[] {
  const j = new ClaudeJournal();
  j.ingest(lines);
  const printEnd = claudePrintEnds(lines);
  return j.prompts
    .filter((p) => !CLI_WRAPPER.test(p.text.trimStart()))
    .map((p) => {
      const o = j.outcome(p.nativeRef);
      // Claude drops a prompt that a later one replaced before any response (same parent).
      if (o.state === 'pending' && j.supersededBy(p.nativeRef)) return { nativeRef: p.nativeRef, prompt: p.text, state: 'dropped' as const };
      const end = o.state === 'pending' ? printEnd(p.nativeRef) : null;
      if (end) return { nativeRef: p.nativeRef, prompt: p.text, ...end };
      return fromOutcome(p, o);
    });
}

export function codexTurns(lines: JournalLine[]): Turn[] {
  const j = new CodexJournal();
  j.ingest(lines);
  return j.prompts.map((p) => fromOutcome(p, j.outcome(p.nativeRef)));
}

function clip(s: string): { text: string; clipped: boolean } {
  return s.length > READ_JOURNAL_MAX_TEXT ? { text: `${s.slice(0, READ_JOURNAL_MAX_TEXT)}…`, clipped: true } : { text: s, clipped: false };
}

export function page(all: Turn[], req: Pick<ReadJournalRequest, 'offset' | 'limit'>, found: { file: string; source: 'native' | 'archive' }): ReadJournalResult {
  const limit = req.limit ?? DEFAULT_LIMIT;
  const offset = Math.min(req.offset ?? Math.max(0, all.length - limit), all.length);
  const turns: JournalTurn[] = [];
  let bytes = 0;
  let nextOffset: number | undefined;
  for (let i = offset; i < Math.min(all.length, offset + limit); i++) {
    const t = all[i]!;
    const prompt = clip(t.prompt);
    const final = t.final === undefined ? undefined : clip(t.final);
    const size = Buffer.byteLength(prompt.text) + (final ? Buffer.byteLength(final.text) : 0) + 200;
    // The first turn always goes (it is clipped small enough); later ones only within the budget.
    if (turns.length > 0 && bytes + size > READ_JOURNAL_MAX_BYTES) {
      nextOffset = i;
      break;
    }
    bytes += size;
    turns.push({
      index: i,
      nativeRef: t.nativeRef,
      prompt: prompt.text,
      state: t.state,
      ...(final ? { final: final.text } : {}),
      ...(t.detail !== undefined ? { detail: t.detail } : {}),
      ...(prompt.clipped || final?.clipped ? { clipped: true } : {}),
    });
  }
  return {
    ok: true,
    source: found.source,
    journalPath: found.file,
    totalTurns: all.length,
    offset,
    turns,
    ...(nextOffset !== undefined ? { nextOffset } : {}),
  };
}

/** The command entry point: validates the payload, answers as a `command_result`. */
export async function readJournalCommand(payload: unknown, dirs: ReadJournalDirs): Promise<Record<string, unknown>> {
  const parsed = parseSessionCommand('read_journal', payload);
  if (!parsed.ok) return { ok: false, code: 'invalid', error: `invalid payload: ${parsed.error.slice(0, 300)}` };
  return { ...(await readJournal(parsed.payload, dirs)) };
}
