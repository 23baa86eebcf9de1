import { DRAFT_MAX_CHARS, DRAFT_MIN_INTERVAL_MS, type Draft, draftDelta, type Executor } from '@bria/core/protocol';
import type { HostEvent, SessionIdentity } from '../executors/types.ts';
import type { PaneFollower } from '../tmux/pane-follow.ts';
import type { Tmux } from '../tmux/tmux.ts';
import { readDraft } from './screen-draft.ts';

/** Lines of scrollback read with the screen, so a long answer's start (and its prompt) is still found. */
const SCROLLBACK_LINES = 400;
/**
 * A CLI draws a frame in several writes; a screen read between them can miss a line (seen with Codex,
 * which inserts finished lines above its live area). A read waits for this much quiet after the last
 * output (at most `QUIET_TRIES` times), and a draft that does not extend the last one sent is sent
 * only when two reads in a row agree on it.
 */
const QUIET_MS = 15;
const QUIET_TRIES = 4;

export interface DraftWatchOptions {
  executor: Executor;
  tmux: Tmux;
  sessionId: string;
  /** The CLI's pane, once it runs. */
  identity: () => SessionIdentity | null;
  generation: () => number;
  /** Sends an ephemeral frame; false when it went nowhere (offline, or a hub without drafts). */
  send: (frame: Draft) => boolean;
  /** Changes with every hub connection: a new connection starts from a whole draft. */
  connection: () => number;
  onError?: (err: Error) => void;
  minIntervalMs?: number;
  now?: () => number;
}

/**
 * The draft of a session's running turn: from the moment a message is typed until its turn ends,
 * every output tmux pushes for the pane (PaneFollower) schedules one screen read, at most one per
 * `minIntervalMs` (the first at once, the last one never skipped); a changed draft goes out as its
 * changed end. Nothing is stored: a lost frame is replaced by the next, and the journal's final is
 * the answer.
 */
export class DraftWatch {
  private readonly o: DraftWatchOptions;
  /** Typed messages whose turns have not ended, oldest first: the first is the one drawn now. */
  private readonly turns: { messageId: string; prompt: string }[] = [];
  private follower: PaneFollower | null = null;
  private opening = false;
  private last: { messageId: string; v: number; text: string; connection: number } | null = null;
  private lastReadAt = Number.NEGATIVE_INFINITY;
  private lastOutputAt = Number.NEGATIVE_INFINITY;
  private quietTries = 0;
  /** A draft read once that does not extend the last one sent (sent if the next read agrees). */
  private unconfirmed: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading = false;
  private again = false;
  private closed = false;
  /** Frames sent (tests and the benchmark count them). */
  sent = 0;

  constructor(o: DraftWatchOptions) {
    this.o = o;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** A message is about to be typed: its turn's answer is watched until the turn ends. */
  expect(messageId: string, text: string): void {
    if (this.closed || this.turns.some((t) => t.messageId === messageId)) return;
    this.turns.push({ messageId, prompt: text });
    void this.follow();
    this.schedule();
  }

  /** The turn of `messageId` ended (or its message was never typed). */
  forget(messageId: string): void {
    const i = this.turns.findIndex((t) => t.messageId === messageId);
    if (i < 0) return;
    this.turns.splice(i, 1);
    if (this.last?.messageId === messageId) this.last = null;
    if (this.turns.length === 0) this.unfollow();
  }

  onHostEvent(e: HostEvent): void {
    switch (e.type) {
      case 'final':
      case 'completed':
      case 'api_error':
        this.forget(e.messageId);
        return;
      case 'interrupted':
      case 'unknown':
        if (e.messageId) this.forget(e.messageId);
        else for (const t of [...this.turns]) this.forget(t.messageId);
        return;
      case 'exited':
        this.close();
        return;
      default:
        return;
    }
  }

  close(): void {
    this.closed = true;
    this.turns.splice(0);
    this.unfollow();
  }

  private async follow(): Promise<void> {
    if (this.follower || this.opening) return;
    const id = this.o.identity();
    if (!id) return;
    this.opening = true;
    try {
      const f = await this.o.tmux.followPane({
        sessionName: id.tmuxSession,
        paneId: id.paneId,
        onOutput: () => {
          this.lastOutputAt = this.now();
          this.schedule();
        },
      });
      if (f && (this.turns.length === 0 || this.closed)) f.close();
      else this.follower = f;
    } catch (err) {
      this.o.onError?.(err as Error);
    } finally {
      this.opening = false;
    }
  }

  private unfollow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.follower?.close();
    this.follower = null;
  }

  private schedule(): void {
    if (this.timer || this.turns.length === 0) return;
    const wait = Math.max(0, this.lastReadAt + (this.o.minIntervalMs ?? DRAFT_MIN_INTERVAL_MS) - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      const sinceOutput = this.now() - this.lastOutputAt;
      if (sinceOutput < QUIET_MS && this.quietTries < QUIET_TRIES) {
        this.quietTries += 1;
        this.timer = setTimeout(() => {
          this.timer = null;
          this.schedule();
        }, QUIET_MS - sinceOutput);
        return;
      }
      this.quietTries = 0;
      void this.read();
    }, wait);
  }

  private async read(): Promise<void> {
    const turn = this.turns[0];
    const id = this.o.identity();
    if (!turn || !id) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    this.lastReadAt = this.now();
    try {
      const screen = await this.o.tmux.capture(id.paneId, { scrollback: SCROLLBACK_LINES });
      if (this.turns[0] !== turn) return;
      const found = readDraft(this.o.executor, { screen, prompt: turn.prompt });
      if (found === null) return;
      const text = found.slice(-DRAFT_MAX_CHARS);
      const connection = this.o.connection();
      const prev = this.last?.messageId === turn.messageId && this.last.connection === connection ? this.last : null;
      if (prev?.text === text) return;
      if (prev && !text.startsWith(prev.text) && this.unconfirmed !== text) {
        this.unconfirmed = text;
        this.schedule();
        return;
      }
      this.unconfirmed = null;
      const { base, tail } = draftDelta(prev?.text ?? null, text);
      const v = (prev?.v ?? 0) + 1;
      const frame: Draft = { type: 'draft', sessionId: this.o.sessionId, generation: this.o.generation(), messageId: turn.messageId, v, base, tail };
      if (this.o.send(frame)) {
        this.sent += 1;
        this.last = { messageId: turn.messageId, v, text, connection };
      } else this.last = null;
    } catch (err) {
      this.o.onError?.(err as Error);
    } finally {
      this.reading = false;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    }
  }
}
