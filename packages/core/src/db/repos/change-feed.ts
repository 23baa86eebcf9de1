import { EventEmitter, on } from 'node:events';
import { PgListener } from '../pg-listener.ts';
import { DRAFT_CHANNEL, type DraftNotice, parseDraftNotice } from './drafts.ts';
import { PANE_CHANNEL, type PaneNotice, parsePaneNotice } from './terminal-notices.ts';

/** What the `bria_changes` triggers announce: only ids, never content. */
export type Change = { kind: 'session'; id: string } | { kind: 'node'; id: string } | { kind: 'resync' };

export const CHANGES_CHANNEL = 'bria_changes';
/** How long a kept draft is offered to a new subscriber. */
const DRAFT_KEEP_MS = 60_000;

export function parseChange(payload: string | undefined): Change | null {
  const m = /^([sn]):([0-9a-f-]{36})$/.exec(payload ?? '');
  if (!m?.[2]) return null;
  return { kind: m[1] === 's' ? 'session' : 'node', id: m[2] };
}

/**
 * One LISTEN connection per process, shared by every subscriber (Prisma's pool cannot LISTEN).
 * Connects on the first subscriber and reconnects with `LISTEN_RETRY_MS`; after a reconnect it
 * emits `resync`, because NOTIFYs sent while it was away are gone and pages must reload. A
 * subscriber arriving while the connection is away waits for it to come back. A first connection
 * that fails is not retried: its subscribers get the error and the next subscriber tries again.
 */
export class ChangeFeed {
  private readonly emitter = new EventEmitter();
  private listener: PgListener | null = null;
  private closed = false;
  /** The newest draft of each session (ephemeral: a new tab starts from it; gone with the process). */
  private readonly latestDrafts = new Map<string, DraftNotice & { at: number }>();

  constructor(
    private readonly databaseUrl: string,
    private readonly onError: (err: Error) => void = () => {},
  ) {
    this.emitter.setMaxListeners(0);
  }

  /** Yields changes until `signal` aborts. The first item is `resync` once the feed listens. */
  async *stream(signal: AbortSignal): AsyncGenerator<Change> {
    const iterator = on(this.emitter, 'change', { signal });
    try {
      await this.ensure();
      yield { kind: 'resync' };
      for await (const [change] of iterator) yield change as Change;
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    }
  }

  /**
   * Yields the drafts of one session (`bria_draft`, db/repos/drafts.ts): the newest one kept (if
   * recent), then each new one, until `signal` aborts.
   */
  async *drafts(sessionId: string, signal: AbortSignal): AsyncGenerator<DraftNotice> {
    const iterator = on(this.emitter, `draft:${sessionId}`, { signal });
    try {
      await this.ensure();
      const kept = this.latestDrafts.get(sessionId);
      if (kept && Date.now() - kept.at < DRAFT_KEEP_MS) yield kept;
      for await (const [d] of iterator) yield d as DraftNotice;
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    }
  }

  /**
   * Yields one session's pane pieces (`bria_pane`, db/repos/terminal-notices.ts) until `signal`
   * aborts; `listening` runs once LISTEN is in place (the caller then asks the hub for a snapshot).
   */
  async *panes(sessionId: string, signal: AbortSignal, listening: () => void): AsyncGenerator<PaneNotice> {
    const iterator = on(this.emitter, `pane:${sessionId}`, { signal });
    try {
      await this.ensure();
      listening();
      for await (const [p] of iterator) yield p as PaneNotice;
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    }
  }

  private onDraft(d: DraftNotice): void {
    const now = Date.now();
    if (this.latestDrafts.size > 1_000) for (const [id, k] of this.latestDrafts) if (now - k.at > DRAFT_KEEP_MS) this.latestDrafts.delete(id);
    this.latestDrafts.set(d.sessionId, { ...d, at: now });
    this.emitter.emit(`draft:${d.sessionId}`, d);
  }

  /** Resolves once LISTEN is in place (tests wait for this before writing). */
  ensure(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (!this.listener) {
      const listener = new PgListener({
        databaseUrl: this.databaseUrl,
        channels: [CHANGES_CHANNEL, DRAFT_CHANNEL, PANE_CHANNEL],
        onNotify: (channel, payload) => {
          if (channel === PANE_CHANNEL) {
            const p = parsePaneNotice(payload);
            if (p) this.emitter.emit(`pane:${p.sessionId}`, p);
            return;
          }
          if (channel === DRAFT_CHANNEL) {
            const d = parseDraftNotice(payload);
            if (d) this.onDraft(d);
            return;
          }
          const change = channel === CHANGES_CHANNEL ? parseChange(payload) : null;
          if (change) this.emitter.emit('change', change);
        },
        onListening: (reconnected) => {
          if (reconnected) this.emitter.emit('change', { kind: 'resync' } satisfies Change);
        },
        onError: (err) => this.onError(err),
      });
      this.listener = listener;
      return listener.start().catch((err: Error) => {
        if (this.listener === listener) this.listener = null;
        throw err;
      });
    }
    return this.listener.ready();
  }

  async close(): Promise<void> {
    this.closed = true;
    const l = this.listener;
    this.listener = null;
    await l?.stop();
  }
}
