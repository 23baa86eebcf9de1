import { watch, type FSWatcher } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

/** One complete line of a journal and where its bytes sit in the file. */
export interface JournalLine {
  /** Byte offset of the first byte of the line. */
  offset: number;
  /** Byte offset just past the terminating newline. */
  end: number;
  text: string;
}

export interface TailerOptions {
  path: string;
  /** Byte offset to start from; must be at a line start (0 or the `end` of an earlier line). */
  offset?: number;
  onLines: (lines: JournalLine[]) => void;
  /** Reading errors never end the CLI; they are reported and the tailer keeps trying. */
  onError?: (err: Error) => void;
  /** Safety net for missed watch events (and for files that do not exist yet). */
  pollMs?: number;
}

const CHUNK = 1 << 20;

export class JournalShrankError extends Error {
  constructor(
    readonly path: string,
    readonly offset: number,
    readonly size: number,
  ) {
    super(`journal is ${size} bytes, shorter than the ${offset} bytes already read`);
  }
}

/**
 * Follows an append-only JSONL file by byte offset. Only complete lines are delivered; a partial
 * last line waits for its newline. Wakes on `fs.watch` events of the file's folder, plus a slow poll.
 */
export class JsonlTailer {
  readonly path: string;
  private offsetValue: number;
  private readonly opts: TailerOptions;
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private shrinkReported = false;

  constructor(opts: TailerOptions) {
    this.opts = opts;
    this.path = opts.path;
    this.offsetValue = opts.offset ?? 0;
  }

  /** Offset just past the last delivered line. */
  get offset(): number {
    return this.offsetValue;
  }

  start(): void {
    this.stopped = false;
    this.tryWatch();
    this.schedule();
    this.kick();
  }

  // Until the folder can be watched (it may not exist yet) the poll is the only wake-up, so it runs
  // faster; once the watch is in place it is only a slow safety net.
  private schedule(): void {
    if (this.stopped) return;
    const slow = this.opts.pollMs ?? 1000;
    this.timer = setTimeout(
      () => {
        if (!this.watcher) this.tryWatch();
        this.kick();
        this.schedule();
      },
      this.watcher ? slow : Math.min(slow, 200),
    );
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    this.watcher = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Reads everything available now; resolves when the read (and any queued re-read) is done. */
  async readNow(): Promise<void> {
    this.kick();
    while (this.reading) await this.reading;
  }

  private tryWatch(): void {
    try {
      // The folder, not the file: the file may not exist yet, and some writers replace it.
      const name = basename(this.path);
      this.watcher = watch(dirname(this.path), (_event, file) => {
        if (file === null || file === name) this.kick();
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = null;
      });
    } catch {
      this.watcher = null;
    }
  }

  private kick(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.readAvailable()
      .catch((err: unknown) => this.opts.onError?.(err instanceof Error ? err : new Error(String(err))))
      .finally(() => {
        this.reading = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async readAvailable(): Promise<void> {
    const info = await stat(this.path).catch(() => null);
    if (info && info.size < this.offsetValue && !this.shrinkReported) {
      // An append-only journal never shrinks; whatever happened, later bytes cannot be trusted as-is.
      this.shrinkReported = true;
      throw new JournalShrankError(this.path, this.offsetValue, info.size);
    }
    if (!info || info.size <= this.offsetValue) return;
    const handle = await open(this.path, 'r');
    try {
      let pending = Buffer.alloc(0);
      let pos = this.offsetValue;
      while (pos < info.size) {
        const buf = Buffer.alloc(Math.min(CHUNK, info.size - pos));
        const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        pending = Buffer.concat([pending, buf.subarray(0, bytesRead)]);
        const lines: JournalLine[] = [];
        let start = 0;
        for (let nl = pending.indexOf(10, start); nl !== -1; nl = pending.indexOf(10, start)) {
          lines.push({ offset: this.offsetValue + start, end: this.offsetValue + nl + 1, text: pending.subarray(start, nl).toString('utf8') });
          start = nl + 1;
        }
        if (lines.length > 0) {
          this.offsetValue += start;
          pending = pending.subarray(start);
          this.opts.onLines(lines);
        }
      }
    } finally {
      await handle.close();
    }
  }
}
