import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomically } from '../durable-file.ts';
import type { Executor, SessionIdentity } from '../executors/index.ts';
import type { SessionEventOut } from '@bria/core/protocol';

/** A delivered message bound to its native turn (Claude user record uuid / Codex turn id). */
export interface TurnRef {
  messageId: string;
  nativeRef: string;
}

/**
 * One paste into the CLI, written (fsync) before the first byte is typed and completed with the
 * native ref once its receipt is bound. After an agent crash it decides the answer of a `deliver`
 * that was cut short: no mark → provably never typed; a mark with a ref → typed and accepted; a
 * mark without one → unknown (typed or not, nobody can prove it; never typed again).
 */
export interface DeliveryMark {
  messageId: string;
  at: number;
  nativeRef?: string;
}
/** Marks kept per session (one delivery at a time per session, so the latest is always there). */
export const DELIVERY_MARKS = 32;

/**
 * What the agent must remember about one Bria session across its own crash: which CLI process it
 * is (identity), how far its journal was read, which turns are still open and which deliveries were
 * typed without a receipt yet. `closed` records stay so a later exact resume can put the archived
 * journal back where the CLI looks for it.
 */
export interface SessionRecord {
  sessionId: string;
  executor: Executor;
  folder: string;
  generation: number;
  identity: SessionIdentity | null;
  /** A journal offset before every open turn (Codex re-reads from here after a restart). */
  journalOffset: number;
  turns: TurnRef[];
  /** Pasted (or about to be) without a receipt yet: never typed again, only re-checked. */
  unconfirmed: string[];
  /** Pastes begun, newest last (absent in records written before marks existed: then nothing is proven). */
  deliveries?: DeliveryMark[];
  /**
   * Messages whose turn was still open when their CLI died. They are reported once as
   * `evidence_unknown` (process not alive) after the session has a CLI again, and kept here until
   * then, so an agent restart in the middle of the resume cannot forget them.
   */
  orphans?: string[];
  status: 'live' | 'exited' | 'closed';
  /**
   * The latest turn events sent. A re-attach under a newer generation sends them again, because the
   * hub refuses what arrived under the older one (its re-check relies on the agent re-reporting).
   */
  recent?: SessionEventOut[];
  archivedJournal?: { path: string; sizeBytes: number; sha256: string } | null;
}

/** Durable map of Bria session id → record, one small JSON file replaced atomically on every change. */
export class SessionRegistry {
  private readonly file: string;
  private readonly records = new Map<string, SessionRecord>();

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = path.join(dir, 'sessions.json');
    if (existsSync(this.file)) {
      const list = JSON.parse(readFileSync(this.file, 'utf8')) as SessionRecord[];
      for (const r of list) this.records.set(r.sessionId, r);
    }
  }

  get(sessionId: string): SessionRecord | undefined {
    const r = this.records.get(sessionId);
    return r ? structuredClone(r) : undefined;
  }

  all(): SessionRecord[] {
    return [...this.records.values()].map((r) => structuredClone(r));
  }

  /** Writes the record (merged over the stored one) to disk before returning. */
  put(sessionId: string, patch: (Partial<SessionRecord> & Pick<SessionRecord, 'executor' | 'folder'>) | Partial<SessionRecord>): SessionRecord {
    const prev = this.records.get(sessionId);
    const next = {
      ...(prev ?? { sessionId, generation: 0, identity: null, journalOffset: 0, turns: [], unconfirmed: [], status: 'live' }),
      ...patch,
      sessionId,
    } as SessionRecord;
    this.records.set(sessionId, next);
    writeFileAtomically(this.file, JSON.stringify([...this.records.values()]));
    return structuredClone(next);
  }
}
