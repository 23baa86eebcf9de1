import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { EVENT_REFUSED, eventRefusal } from '@bria/core/protocol';
import { appendJsonLinesDurably } from '../durable-file.ts';
import type { AgentLog } from '../log.ts';
import { replaceFileDurably } from './replace-file.ts';

/**
 * The agent's durable local ledger: what it must never forget across a crash.
 * - events not yet acknowledged by the hub (with their seq), replayed after a reconnect;
 * - commands received (by id) and their results, so a repeated command id is answered from here
 *   and never executed twice. A command recorded `received` but never `done` was cut short by a
 *   crash of the agent: it is never run again, but it is answered (as interrupted) on the next start.
 * Storage is append-only JSONL with an fsync per record, plus a small state file replaced
 * atomically (write temp, fsync, rename, fsync dir). A torn last line after a crash is ignored.
 *
 * Retention (docs/architecture.md, "Retention"): both files are compacted — rewritten atomically with
 * only what must be kept — at start and whenever they grow past a size. Kept: every unacknowledged
 * event; every command not `done`; a `done` command while its `command_result` event is not yet
 * acknowledged (until then the hub may not know the answer and may send the id again), and after
 * that for `keepDoneMs` (7 days) after it was done, and always the newest `keepLastDone` (1,000).
 * The hub sends a command again only while it has neither its `command_ack` nor its
 * `command_result` (`unackedCommands`; storing a result marks the command acked), so an id whose
 * answer the hub acknowledged is never sent again by the hub; the window covers a flush that read
 * the row just before that, and an older hub. A kept `done` record keeps its result only when it is
 * small (nothing reads it back: a repeated id is only acknowledged).
 *
 * Validation (issue 30): nothing enters that the protocol would refuse (`eventRefusal`: the frame's
 * envelope, its size, a known event's payload); a refused event is logged with its reason and never
 * stored, so it can never be replayed into the hub on every reconnect. A stored record the protocol
 * refuses (written by an older agent) is replaced on load by an `event_refused` marker of the same seq
 * carrying the reason, logged: the seqs stay contiguous (the hub stores only the next seq) and the
 * hub records why (a dead-letter row).
 */
export interface StoredEvent {
  seq: number;
  at: number;
  event: string;
  commandId?: string;
  sessionId?: string;
  generation?: number;
  payload: Record<string, unknown>;
}
export interface CommandRecord {
  id: string;
  command: string;
  receivedAt: number;
  status: 'received' | 'done';
  result?: Record<string, unknown>;
  /** When it was done (set by the ledger; records from before retention use `receivedAt`). */
  doneAt?: number;
  /** The result was larger than `MAX_KEPT_RESULT_BYTES` and dropped by a compaction. */
  resultDropped?: true;
  /** What an interrupted command's answer needs after a crash (the payload itself is not kept). */
  sessionId?: string;
  messageId?: string;
  generation?: number;
}

interface State {
  ackedUpTo: number;
  instanceId: string;
}

export interface LedgerRetention {
  /** A done command (its answer acknowledged) is remembered this long after it was done. */
  keepDoneMs: number;
  /** The newest this many done commands are remembered whatever their age. */
  keepLastDone: number;
  /** A file past this size is compacted (the next threshold is twice what remained, at least this). */
  compactAboveBytes: number;
}

export const DEFAULT_RETENTION: LedgerRetention = { keepDoneMs: 7 * 24 * 3600_000, keepLastDone: 1_000, compactAboveBytes: 4 * 1024 * 1024 };
/** A kept done record keeps its result only up to this size (as JSON). */
export const MAX_KEPT_RESULT_BYTES = 1024;

export interface LedgerOptions {
  /** `false`: never compact (the behaviour before retention; benchmarks compare against it). */
  retention?: Partial<LedgerRetention> | false;
  now?: () => number;
  /** Where refusals are logged (default: nowhere). */
  log?: AgentLog;
  /**
   * Skips the protocol check (`eventRefusal`): only for the synthetic ledgers of the retention tests
   * and benchmarks, whose command ids are short names, not UUIDs. The agent never sets it.
   */
  unchecked?: true;
}

function readJsonl<T>(file: string): { records: T[]; lines: number; bytes: number } {
  if (!existsSync(file)) return { records: [], lines: 0, bytes: 0 };
  const text = readFileSync(file, 'utf8');
  const out: T[] = [];
  let lines = 0;
  for (const line of text.split('\n')) {
    if (!line) continue;
    lines++;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // a torn final line from a crash mid-write: the record was never acknowledged to anyone
    }
  }
  return { records: out, lines, bytes: Buffer.byteLength(text) };
}

const LEDGER_FILES = ['state.json', 'events.jsonl', 'commands.jsonl'];

export class Ledger {
  private state: State;
  private events: StoredEvent[];
  private commands = new Map<string, CommandRecord>();
  private readonly files: { state: string; events: string; commands: string };
  private readonly retention: LedgerRetention | false;
  private readonly now: () => number;
  /** Lines in events.jsonl (acknowledged ones included until the next rewrite). */
  private eventLines = 0;
  /** Size of commands.jsonl and the size past which it is compacted next. */
  private commandBytes = 0;
  private compactCommandsAbove: number;
  private readonly log: AgentLog;
  private readonly refusal: (e: StoredEvent) => string | null;

  constructor(
    readonly dir: string,
    newInstanceId: () => string,
    opts: LedgerOptions = {},
  ) {
    this.retention = opts.retention === false ? false : { ...DEFAULT_RETENTION, ...opts.retention };
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => {});
    this.refusal = opts.unchecked ? () => null : eventRefusal;
    this.compactCommandsAbove = this.retention ? this.retention.compactAboveBytes : Infinity;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.files = { state: path.join(dir, 'state.json'), events: path.join(dir, 'events.jsonl'), commands: path.join(dir, 'commands.jsonl') };
    // A crash mid-rewrite leaves a temp file beside the (intact) old one: it is never read.
    for (const f of readdirSync(dir)) {
      if (LEDGER_FILES.some((name) => f.startsWith(`${name}.tmp-`))) rmSync(path.join(dir, f), { force: true });
    }
    this.state = existsSync(this.files.state) ? (JSON.parse(readFileSync(this.files.state, 'utf8')) as State) : { ackedUpTo: 0, instanceId: newInstanceId() };
    if (!existsSync(this.files.state)) replaceFileDurably(this.files.state, JSON.stringify(this.state));
    const events = readJsonl<StoredEvent>(this.files.events);
    let replaced = 0;
    this.events = events.records
      .filter((e) => typeof e?.seq === 'number' && e.seq > this.state.ackedUpTo)
      .map((e) => {
        const refusal = this.refusal(e);
        if (refusal === null) return e;
        replaced++;
        this.log('warn', 'ledger.stored_event_refused', { seq: e.seq, event: String(e.event).slice(0, 64), reason: refusal.slice(0, 300) });
        return refusedMarker(e, refusal);
      });
    this.eventLines = events.lines;
    if (replaced > 0) this.compactEvents();
    const commands = readJsonl<CommandRecord>(this.files.commands);
    for (const c of commands.records) this.commands.set(c.id, { ...this.commands.get(c.id), ...c });
    this.commandBytes = commands.bytes;
    if (this.retention) {
      if (this.eventLines > this.events.length) this.compactEvents();
      // At start: rewrite when the file holds more lines than the records kept.
      this.compactCommands(commands.lines);
    }
  }

  get instanceId(): string {
    return this.state.instanceId;
  }

  get lastSeq(): number {
    return this.events.at(-1)?.seq ?? this.state.ackedUpTo;
  }

  get ackedUpTo(): number {
    return this.state.ackedUpTo;
  }

  /**
   * Writes an event durably and returns it with its seq; undefined (logged with the reason) when the
   * protocol would refuse it: nothing is stored.
   */
  appendEvent(e: Omit<StoredEvent, 'seq'>): StoredEvent | undefined {
    return this.appendEvents([e])[0];
  }

  /**
   * Writes events with consecutive seqs in one durable append (the parts of a split event), all or
   * none: one the protocol refuses refuses them all (logged), and nothing is stored.
   */
  appendEvents(list: Omit<StoredEvent, 'seq'>[]): StoredEvent[] {
    const first = this.lastSeq + 1;
    const evs: StoredEvent[] = list.map((e, i) => ({ ...e, seq: first + i }));
    for (const ev of evs) {
      const refusal = this.refusal(ev);
      if (refusal !== null) {
        this.log('warn', 'ledger.event_refused', { event: String(ev.event).slice(0, 64), sessionId: ev.sessionId, reason: refusal.slice(0, 300) });
        return [];
      }
    }
    appendJsonLinesDurably(this.files.events, evs);
    this.events.push(...evs);
    this.eventLines += evs.length;
    return evs;
  }

  unacked(after = this.state.ackedUpTo): StoredEvent[] {
    return this.events.filter((e) => e.seq > after);
  }

  /** The hub stored everything up to `upTo`. */
  ack(upTo: number): void {
    if (upTo <= this.state.ackedUpTo) return;
    this.state = { ...this.state, ackedUpTo: Math.min(upTo, this.lastSeq) };
    replaceFileDurably(this.files.state, JSON.stringify(this.state));
    this.events = this.events.filter((e) => e.seq > this.state.ackedUpTo);
    // Rewrite the event file once it holds few unacknowledged records, or mostly acknowledged ones
    // (a steady stream with a lag never drops below 64, and the file would only grow).
    if (this.events.length < 64 || this.eventLines > 2 * this.events.length + 1_000) this.compactEvents();
  }

  /** Rewrites events.jsonl with only the unacknowledged events (the state file already says what was acked). */
  private compactEvents(): void {
    replaceFileDurably(this.files.events, this.events.map((e) => `${JSON.stringify(e)}\n`).join(''), 'ledger:events');
    this.eventLines = this.events.length;
  }

  /** Whether a done command's `command_result` event is still waiting for the hub's acknowledgement. */
  private answerUnacked(): Set<string> {
    const ids = new Set<string>();
    for (const e of this.events) if (e.event === 'command_result' && e.commandId) ids.add(e.commandId);
    return ids;
  }

  /**
   * Forgets done commands the retention rule allows and rewrites commands.jsonl (one line per kept
   * record) when that makes it shorter than `linesInFile`. Returns how many records were dropped.
   */
  compactCommands(linesInFile?: number): number {
    if (!this.retention) return 0;
    const { keepDoneMs, keepLastDone } = this.retention;
    const unacked = this.answerUnacked();
    const cutoff = this.now() - keepDoneMs;
    const done = [...this.commands.values()].filter((c) => c.status === 'done');
    const newest = new Set(
      done
        .map((c) => ({ id: c.id, at: c.doneAt ?? c.receivedAt }))
        .sort((a, b) => b.at - a.at)
        .slice(0, keepLastDone)
        .map((c) => c.id),
    );
    let dropped = 0;
    for (const c of done) {
      if (unacked.has(c.id) || newest.has(c.id) || (c.doneAt ?? c.receivedAt) >= cutoff) continue;
      this.commands.delete(c.id);
      dropped++;
    }
    if (linesInFile !== undefined && dropped === 0 && linesInFile <= this.commands.size) return 0;
    let text = '';
    for (const c of this.commands.values()) {
      const big = c.result !== undefined && JSON.stringify(c.result).length > MAX_KEPT_RESULT_BYTES;
      const kept: CommandRecord = big ? { ...c, result: undefined, resultDropped: true } : c;
      if (big) this.commands.set(c.id, kept);
      text += `${JSON.stringify(kept)}\n`;
    }
    replaceFileDurably(this.files.commands, text, 'ledger:commands');
    this.commandBytes = Buffer.byteLength(text);
    this.compactCommandsAbove = Math.max(this.retention.compactAboveBytes, 2 * this.commandBytes);
    return dropped;
  }

  command(id: string): CommandRecord | undefined {
    return this.commands.get(id);
  }

  /** Commands recorded as received and never finished: an earlier run of the agent died running them. */
  unfinishedCommands(): CommandRecord[] {
    return [...this.commands.values()].filter((c) => c.status === 'received');
  }

  recordCommand(rec: CommandRecord): void {
    const r: CommandRecord = rec.status === 'done' && rec.doneAt === undefined ? { ...rec, doneAt: this.now() } : rec;
    appendJsonLinesDurably(this.files.commands, [r]);
    this.commands.set(r.id, r);
    this.commandBytes += Buffer.byteLength(JSON.stringify(r)) + 1;
    if (this.commandBytes > this.compactCommandsAbove) this.compactCommands();
  }

  /** Sizes for tests, benchmarks and logs. */
  stats(): { commands: number; commandFileBytes: number; events: number; eventLines: number } {
    const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    return { commands: this.commands.size, commandFileBytes: size(this.files.commands), events: this.events.length, eventLines: this.eventLines };
  }
}

/** What replaces a stored event the protocol refuses: same seq and time, the reason for the hub's record. */
function refusedMarker(e: StoredEvent, reason: string): StoredEvent {
  return {
    seq: e.seq,
    at: typeof e.at === 'number' ? e.at : 0,
    event: EVENT_REFUSED,
    payload: { event: String(e.event).slice(0, 64), reason: reason.slice(0, 500) },
  };
}
