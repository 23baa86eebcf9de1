import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appendJsonLineDurably, writeFileAtomically } from '../durable-file.ts';

/**
 * The agent's durable local ledger: what it must never forget across a crash.
 * - events not yet acknowledged by the hub (with their seq), replayed after a reconnect;
 * - commands received (by id) and their results, so a repeated command id is answered from here
 *   and never executed twice. A command recorded `received` but never `done` was cut short by a
 *   crash of the agent: it is never run again, but it is answered (as interrupted) on the next start.
 * Storage is append-only JSONL with an fsync per record, plus a small state file replaced
 * atomically (write temp, fsync, rename). A torn last line after a crash is ignored.
 */
export interface StoredEvent { seq: number; at: number; event: string; commandId?: string; sessionId?: string; generation?: number; payload: Record<string, unknown> }
export interface CommandRecord {
  id: string;
  command: string;
  receivedAt: number;
  status: 'received' | 'done';
  result?: Record<string, unknown>;
  /** What an interrupted command's answer needs after a crash (the payload itself is not kept). */
  sessionId?: string;
  messageId?: string;
  generation?: number;
}

interface State { ackedUpTo: number; instanceId: string }

function readJsonl<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  const out: T[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // a torn final line from a crash mid-write: the record was never acknowledged to anyone
    }
  }
  return out;
}

export class Ledger {
  private state: State;
  private events: StoredEvent[];
  private commands = new Map<string, CommandRecord>();
  private readonly files: { state: string; events: string; commands: string };

  constructor(readonly dir: string, newInstanceId: () => string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.files = { state: path.join(dir, 'state.json'), events: path.join(dir, 'events.jsonl'), commands: path.join(dir, 'commands.jsonl') };
    this.state = existsSync(this.files.state)
      ? (JSON.parse(readFileSync(this.files.state, 'utf8')) as State)
      : { ackedUpTo: 0, instanceId: newInstanceId() };
    if (!existsSync(this.files.state)) writeFileAtomically(this.files.state, JSON.stringify(this.state));
    this.events = readJsonl<StoredEvent>(this.files.events).filter((e) => e.seq > this.state.ackedUpTo);
    for (const c of readJsonl<CommandRecord>(this.files.commands)) this.commands.set(c.id, { ...this.commands.get(c.id), ...c });
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

  /** Writes an event durably and returns it with its seq. */
  appendEvent(e: Omit<StoredEvent, 'seq'>): StoredEvent {
    const ev: StoredEvent = { ...e, seq: this.lastSeq + 1 };
    appendJsonLineDurably(this.files.events, ev);
    this.events.push(ev);
    return ev;
  }

  unacked(after = this.state.ackedUpTo): StoredEvent[] {
    return this.events.filter((e) => e.seq > after);
  }

  /** The hub stored everything up to `upTo`. */
  ack(upTo: number): void {
    if (upTo <= this.state.ackedUpTo) return;
    this.state = { ...this.state, ackedUpTo: Math.min(upTo, this.lastSeq) };
    writeFileAtomically(this.files.state, JSON.stringify(this.state));
    this.events = this.events.filter((e) => e.seq > this.state.ackedUpTo);
    // Rewrite the event file once it holds mostly acknowledged records.
    if (this.events.length === 0 || this.events.length < 64) this.compact();
  }

  private compact(): void {
    writeFileAtomically(this.files.events, this.events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }

  command(id: string): CommandRecord | undefined {
    return this.commands.get(id);
  }

  /** Commands recorded as received and never finished: an earlier run of the agent died running them. */
  unfinishedCommands(): CommandRecord[] {
    return [...this.commands.values()].filter((c) => c.status === 'received');
  }

  recordCommand(rec: CommandRecord): void {
    appendJsonLineDurably(this.files.commands, rec);
    this.commands.set(rec.id, rec);
  }
}
