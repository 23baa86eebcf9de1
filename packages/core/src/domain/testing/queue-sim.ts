import { applyInterruptOutcome, applyTurnOutcome, failUndelivered, recheckStatus, type StatusUpdate } from '../queue-outcomes.ts';
import { type MessageStatus, nextDeliverable, type QueueMessage, summarizeQueue } from '../queue.ts';
import { checkMove, onPredecessorSaveFailed } from './queue-rules.ts';
import { canAcceptMessage, newSession, transition } from '../session-machine.ts';
import type { SessionEffect, SessionEvent, SessionSnapshot } from '../session-types.ts';
import type { prng } from './prng.ts';

type Rng = ReturnType<typeof prng>;
export const ACTIONS = [
  'arrive',
  'arrive',
  'arrive',
  'dispatch',
  'dispatch',
  'type',
  'type',
  'receipt',
  'receipt',
  'not_delivered',
  'finish',
  'finish',
  'retry_save',
  'stop',
  'confirm_stop',
  'crash',
  'observer_lost',
  'recover',
  'recover',
] as const;
/** Session-ending actions, picked rarely so most runs have a long life first. */
export const RARE_ACTIONS = ['expire', 'close'] as const;
export type Action = (typeof ACTIONS)[number] | (typeof RARE_ACTIONS)[number];
const FINAL: ReadonlySet<MessageStatus> = new Set(['completed', 'terminal_failed']);

/**
 * A session, its durable queue and a fake CLI, driven only through the domain's functions the way
 * services will drive them. It records every violation of the queue invariants it can observe.
 */
export class QueueSim {
  snapshot: SessionSnapshot;
  messages: QueueMessage[] = [];
  history = new Map<string, MessageStatus[]>();
  received: string[] = [];
  violations: string[] = [];
  private cli = { alive: true, turn: null as null | { id: string; mainId: string; members: string[] } };
  private journal = new Map<string, 'complete' | 'aborted'>();
  private wire: string | null = null;
  private typed = new Map<string, string>();
  private sentEpoch = new Map<string, number>();
  private epoch = 0;
  /** Finals received whose outcome write has not succeeded yet (one per finished turn). */
  private pendingWrites: string[] = [];
  private writeFailed = false;
  private failures = 0;
  private stopSent = false;
  private clock = 0;
  private seq = 0;
  private turns = 0;
  private deferred: ((s: SessionSnapshot) => SessionEvent)[] = [];

  constructor(
    private rng: Rng,
    private maxMessages = 10,
  ) {
    this.snapshot = newSession({ now: this.now(), lifetime: '12h', hasNativeId: true }).snapshot;
    this.fire({ type: 'cli_ready', generation: this.snapshot.observerGeneration });
  }

  private now(): Date {
    return new Date(Date.UTC(2026, 8, 2) + this.clock);
  }

  private fire(event: SessionEvent): boolean {
    const r = transition({ ...this.snapshot, queue: summarizeQueue(this.messages) }, event, this.now(), { jitter: this.rng.next() });
    if (!r.ok) return false;
    this.snapshot = r.next;
    // An Esc that arrives after the turn already ended interrupts nothing.
    if (r.next.state === 'Ready') this.stopSent = false;
    for (const e of r.effects) this.effect(e);
    while (this.deferred.length > 0) {
      const make = this.deferred.shift();
      if (make) this.fire(make(this.snapshot));
    }
    return true;
  }

  private effect(e: SessionEffect): void {
    if (e.type === 'send_command' && e.kind === 'close') {
      this.cli = { alive: false, turn: null };
      this.deferred.push((s) => ({ type: 'process_exited_verified', generation: s.observerGeneration }));
    } else if (e.type === 'commit_archive') {
      this.deferred.push(() => ({ type: 'archive_committed' }));
    } else if (e.type === 'queue' && e.op === 'fail_undelivered') {
      this.apply(failUndelivered(this.messages));
    } else if (e.type === 'queue' && e.op === 'recheck_outcomes') {
      this.recheck();
    }
  }

  private apply(updates: StatusUpdate[], proof?: { turnId: string; verified: boolean }): void {
    for (const u of updates) this.move(u.id, u.from, u.to, proof);
  }

  private move(id: string, from: MessageStatus, to: MessageStatus, proof?: { turnId: string; verified: boolean }, turnId?: string): void {
    const m = this.messages.find((x) => x.id === id);
    if (!m || m.status !== from) return void this.violations.push(`${id}: update from ${from} but is ${m?.status}`);
    if (FINAL.has(m.status)) this.violations.push(`${id}: final outcome ${m.status} changed to ${to}`);
    const check = checkMove(m, to, proof);
    if (!check.ok) return void this.violations.push(`${id}: ${from}→${to} ${check.reason}`);
    m.status = to;
    if (turnId !== undefined) m.nativeTurnId = turnId;
    if (to !== 'leased') m.claimedBy = null;
    if (this.wire === id && to !== 'leased') this.wire = null;
    this.history.get(id)?.push(to);
  }

  private drained(): void {
    if (!summarizeQueue(this.messages).inFlight) this.fire({ type: 'work_drained' });
  }

  step(action: Action): void {
    this.clock += 1 + this.rng.int(5000);
    const gen = this.snapshot.observerGeneration;
    const turn = this.cli.turn;
    switch (action) {
      case 'arrive': {
        if (this.seq >= this.maxMessages || !canAcceptMessage(this.snapshot).ok) return;
        const id = `m${++this.seq}`;
        this.messages.push({ id, seq: this.seq, status: 'pending', mainMessageId: null, nativeTurnId: null, claimedBy: null });
        this.history.set(id, ['pending']);
        return;
      }
      case 'dispatch': {
        const d = nextDeliverable(this.messages, {
          state: this.snapshot.state,
          outcomeWriteFailed: this.writeFailed,
          finalReceived: this.pendingWrites.length > 0,
          dispatcherId: 'd1',
        });
        if (!d.ok) return;
        const h = this.history.get(d.message.id) ?? [];
        if (d.message.status !== 'pending' || h.includes('unknown') || this.received.includes(d.message.id)) {
          this.violations.push(`${d.message.id}: offered for delivery after ${h.join('>')}`);
        }
        if (this.wire !== null) this.violations.push(`${d.message.id}: second hand-over while ${this.wire} in transit`);
        this.move(d.message.id, 'pending', 'leased');
        d.message.mainMessageId = d.mode === 'follow_up' ? d.mainMessageId : null;
        this.wire = d.message.id;
        this.sentEpoch.set(d.message.id, this.epoch);
        return;
      }
      case 'type': {
        const id = this.wire;
        if (id === null || !this.cli.alive || this.snapshot.state === 'AwaitingRecovery') return;
        const m = this.messages.find((x) => x.id === id);
        if (!m) return;
        const last = this.messages.find((x) => x.id === this.received[this.received.length - 1]);
        if (this.received.includes(id)) this.violations.push(`${id}: delivered twice`);
        if (last && last.seq > m.seq) this.violations.push(`${id}: delivered after ${last.id}`);
        this.received.push(id);
        this.wire = null;
        if (!turn) {
          this.cli.turn = { id: `t${++this.turns}`, mainId: id, members: [id] };
          this.fire({ type: 'turn_started', generation: gen });
        } else {
          turn.members.push(id);
        }
        this.typed.set(id, this.cli.turn?.id ?? '');
        return;
      }
      case 'receipt': {
        for (const [id, turnId] of this.typed) {
          this.typed.delete(id);
          if (this.messages.find((m) => m.id === id)?.status === 'leased') return void this.move(id, 'leased', 'accepted', undefined, turnId);
        }
        return;
      }
      case 'not_delivered':
        if (this.wire !== null) this.move(this.wire, 'leased', 'pending');
        return;
      case 'finish': {
        if (!turn || !this.cli.alive || turn.members.some((id) => this.typed.has(id))) return;
        this.journal.set(turn.id, 'complete');
        this.cli.turn = null;
        if (this.snapshot.state === 'AwaitingRecovery') return; // unobserved: found by the re-check
        this.pendingWrites.push(turn.mainId);
        const head = this.messages.find((m) => m.status === 'pending');
        if (head) head.claimedBy = 'd1';
        if (this.rng.chance(0.3)) {
          this.writeFailed = true;
          this.fire({ type: 'final_save_failed', attempt: ++this.failures });
          for (const id of onPredecessorSaveFailed(this.messages, turn.mainId).releaseClaims) {
            const m = this.messages.find((x) => x.id === id);
            if (m) m.claimedBy = null;
          }
        } else {
          this.saved();
        }
        return;
      }
      case 'retry_save':
        if (this.writeFailed && this.pendingWrites.length > 0 && this.snapshot.state !== 'AwaitingRecovery') this.saved();
        return;
      case 'stop':
        if (this.fire({ type: 'stop_requested' })) this.stopSent = true;
        return;
      case 'confirm_stop': {
        // The CLI only interrupts when it was asked to (Esc sent by the interrupt command).
        if (!turn || !this.cli.alive || !this.stopSent || this.snapshot.state === 'AwaitingRecovery') return;
        this.stopSent = false;
        this.journal.set(turn.id, 'aborted');
        this.cli.turn = null;
        // The journal holds the members' prompts before the abort, so their receipts are read first;
        // the abort then ends exactly this turn's messages. A message still on the wire is not part
        // of it: the CLI may run it as a turn of its own after the interrupt.
        for (const id of turn.members) {
          if (this.typed.has(id) && this.messages.find((m) => m.id === id)?.status === 'leased') this.move(id, 'leased', 'accepted', undefined, turn.id);
          this.typed.delete(id);
        }
        this.apply(applyInterruptOutcome(this.messages, { messageId: turn.mainId, nativeTurnId: turn.id }));
        if (this.fire({ type: 'interrupt_confirmed', generation: gen })) this.drained();
        return;
      }
      case 'crash':
        if (!this.cli.alive) return;
        this.cli = { alive: false, turn: null };
        this.epoch += 1;
        this.wire = null;
        this.fire({ type: 'process_exited_verified', generation: gen });
        return;
      case 'observer_lost':
        this.fire({ type: 'observer_lost', generation: gen });
        return;
      case 'recover': {
        if (this.snapshot.state !== 'AwaitingRecovery') return;
        const mode = this.cli.alive ? 'observer' : 'exact_resume';
        this.cli.alive = true;
        if (this.fire({ type: 'reattached', generation: gen, mode })) this.drained();
        return;
      }
      case 'expire':
        if (this.snapshot.lifetimeDeadline === null || this.snapshot.lifetimeExpired) return;
        this.snapshot = { ...this.snapshot, lifetimeDeadline: this.now() };
        this.fire({ type: 'lifetime_expired' });
        this.drained();
        return;
      case 'close':
        this.fire({ type: 'close_requested' });
        return;
      default:
        action satisfies never;
    }
  }

  private saved(): void {
    for (const mainId of this.pendingWrites.splice(0)) this.apply(applyTurnOutcome(this.messages, mainId, 'completed'));
    this.writeFailed = false;
    if (this.failures > 0) this.fire({ type: 'final_save_recovered' });
    this.failures = 0;
    this.drained();
  }

  private recheck(): void {
    for (const m of this.messages) {
      const turnId = m.nativeTurnId ?? '';
      const found = this.journal.get(turnId);
      const finding =
        found === 'complete'
          ? ({ kind: 'final_complete', turnId } as const)
          : found === 'aborted'
            ? ({ kind: 'aborted', turnId } as const)
            : this.cli.turn?.id === turnId
              ? ({ kind: 'still_running' } as const)
              : ({ kind: 'no_evidence' } as const);
      const to = recheckStatus(m, finding, this.sentEpoch.get(m.id) === this.epoch);
      if (to !== null && to !== m.status) this.move(m.id, m.status, to, found ? { turnId, verified: true } : undefined);
      if (m.status === 'unknown') this.typed.delete(m.id);
    }
    // Finals the re-check stored need no separate write any more.
    this.pendingWrites = this.pendingWrites.filter((id) => this.messages.some((m) => m.id === id && m.status === 'accepted'));
    if (this.pendingWrites.length === 0) this.writeFailed = false;
  }

  /** Runs only the healthy actions until nothing changes: a healthy session must drain. */
  quiesce(): void {
    const healthy: Action[] = ['recover', 'retry_save', 'receipt', 'type', 'finish', 'confirm_stop', 'dispatch'];
    for (let i = 0; i < 400; i++) {
      const before = JSON.stringify([this.snapshot.state, this.messages, this.received.length, this.wire, this.cli.turn, this.pendingWrites]);
      for (const a of healthy) {
        this.step(a);
        // A failed final save is retried until it succeeds, as the retry schedule does.
        if (this.writeFailed) this.step('retry_save');
      }
      this.drained();
      if (JSON.stringify([this.snapshot.state, this.messages, this.received.length, this.wire, this.cli.turn, this.pendingWrites]) === before) return;
    }
  }
}
