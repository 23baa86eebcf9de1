import { PANE_CHUNK_MAX, type Pane, type Terminal, TERMINAL_BACKLOG_MAX, TERMINAL_IDLE_MS } from '@bria/core/protocol';
import type { SessionIdentity } from '../executors/types.ts';
import type { PaneFollower } from '../tmux/pane-follow.ts';
import type { Tmux } from '../tmux/tmux.ts';

/** Output is sent in batches this far apart (a redraw is many small writes). */
const FLUSH_MS = 25;

export interface TerminalWatchOptions {
  tmux: Tmux;
  /** The session's live CLI pane, or null. */
  identity: (sessionId: string) => SessionIdentity | null;
  /** The server a session's pane lives on when it is not `tmux` (an adopted session: the user's own). */
  tmuxFor?: (identity: SessionIdentity) => Tmux;
  /** Sends an ephemeral frame; false when it went nowhere. */
  send: (frame: Pane) => boolean;
  /** A dialog Bria tracks is open (a permission request or question): typing is refused. */
  dialogOpen: (sessionId: string) => boolean;
  log: (level: 'info' | 'warn', msg: string, fields?: Record<string, unknown>) => void;
}

interface Viewer {
  /** The server of the pane: Bria's, or the user's own for an adopted session. */
  tmux: Tmux;
  follower: PaneFollower | null;
  paneId: string;
  seq: number;
  renewedAt: number;
  buf: string;
  timer: NodeJS.Timeout | null;
  /** Output before the snapshot is in the snapshot: dropped. */
  ready: boolean;
}

/**
 * The live terminal on the agent: while a dashboard watches (the hub renews `open`), the pane's
 * output tmux pushes (PaneFollower) goes out as `pane` frames after one snapshot; nothing is stored,
 * and a viewer not renewed for `TERMINAL_IDLE_MS` is dropped. Typed keys reach the pane literally,
 * never while a dialog Bria tracks is open.
 */
export class TerminalWatch {
  private readonly viewers = new Map<string, Viewer>();
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly o: TerminalWatchOptions) {
    this.sweep = setInterval(() => this.dropIdle(), 5_000);
    this.sweep.unref();
  }

  onFrame(t: Terminal): void {
    if (t.op === 'open') void this.open(t.sessionId, t.data === 'snapshot');
    else void this.input(t.sessionId, t.data ?? '');
  }

  close(): void {
    clearInterval(this.sweep);
    for (const id of [...this.viewers.keys()]) this.drop(id);
  }

  private async open(sessionId: string, snapshot: boolean): Promise<void> {
    const known = this.viewers.get(sessionId);
    if (known) {
      known.renewedAt = Date.now();
      // A new viewer starts from the screen as it is (the others get it too: a snapshot redraws).
      if (snapshot && known.ready) await this.snapshot(sessionId, known).catch(() => this.drop(sessionId));
      return;
    }
    const id = this.o.identity(sessionId);
    if (!id) return;
    const v: Viewer = {
      tmux: this.o.tmuxFor?.(id) ?? this.o.tmux,
      follower: null,
      paneId: id.paneId,
      seq: 0,
      renewedAt: Date.now(),
      buf: '',
      timer: null,
      ready: false,
    };
    this.viewers.set(sessionId, v);
    try {
      v.follower = await v.tmux.followPane({
        sessionName: id.tmuxSession,
        paneId: id.paneId,
        onOutput: (data) => this.output(sessionId, v, data),
        onClose: () => {
          if (this.viewers.get(sessionId) === v) this.drop(sessionId);
        },
      });
      if (!v.follower || this.viewers.get(sessionId) !== v) return this.drop(sessionId);
      await this.snapshot(sessionId, v);
    } catch (err) {
      this.o.log('warn', 'agent.terminal_open_failed', { sessionId, err: (err as Error).message.slice(0, 200) });
      this.drop(sessionId);
    }
  }

  private async snapshot(sessionId: string, v: Viewer): Promise<void> {
    const [size, screen] = await Promise.all([
      v.tmux.run(['display-message', '-p', '-t', v.paneId, '#{pane_width} #{pane_height} #{cursor_x} #{cursor_y}']),
      v.tmux.run(['capture-pane', '-p', '-e', '-t', v.paneId]),
    ]);
    const [cols, rows, cursorX, cursorY] = size.trim().split(' ').map(Number) as [number, number, number, number];
    v.buf = '';
    v.ready = true;
    // Lines end in CRLF for the terminal; the cursor is put where the pane has it.
    const data = `${screen.replace(/\n$/, '').replaceAll('\n', '\r\n')}\u001b[${cursorY + 1};${cursorX + 1}H`;
    this.o.send({ type: 'pane', sessionId, seq: v.seq++, kind: 'snapshot', data: data.slice(-PANE_CHUNK_MAX), cols, rows, cursorX, cursorY });
  }

  private output(sessionId: string, v: Viewer, data: string): void {
    if (!v.ready) return;
    v.buf += data;
    if (v.buf.length > TERMINAL_BACKLOG_MAX) {
      // The hub cannot keep up: start over from the screen as it is.
      v.buf = '';
      v.ready = false;
      void this.snapshot(sessionId, v).catch(() => this.drop(sessionId));
      return;
    }
    v.timer ??= setTimeout(() => this.flush(sessionId, v), FLUSH_MS);
  }

  private flush(sessionId: string, v: Viewer): void {
    v.timer = null;
    while (v.buf.length > 0) {
      const data = v.buf.slice(0, PANE_CHUNK_MAX);
      v.buf = v.buf.slice(data.length);
      this.o.send({ type: 'pane', sessionId, seq: v.seq++, kind: 'output', data });
    }
  }

  private async input(sessionId: string, data: string): Promise<void> {
    const v = this.viewers.get(sessionId);
    const id = this.o.identity(sessionId);
    if (!v || !id || data.length === 0) return;
    if (this.o.dialogOpen(sessionId)) {
      this.o.log('info', 'agent.terminal_input_refused', { sessionId, reason: 'dialog_open' });
      return;
    }
    await (this.o.tmuxFor?.(id) ?? this.o.tmux)
      .run(['send-keys', '-t', id.paneId, '-l', data])
      .catch((err: Error) => this.o.log('warn', 'agent.terminal_input_failed', { sessionId, err: err.message.slice(0, 200) }));
  }

  private dropIdle(): void {
    const now = Date.now();
    for (const [id, v] of this.viewers) if (now - v.renewedAt > TERMINAL_IDLE_MS) this.drop(id);
  }

  private drop(sessionId: string): void {
    const v = this.viewers.get(sessionId);
    if (!v) return;
    this.viewers.delete(sessionId);
    if (v.timer) clearTimeout(v.timer);
    v.follower?.close();
  }
}
