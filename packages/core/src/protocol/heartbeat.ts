/**
 * The heartbeat rule both ends of the hub ⇄ agent link follow (docs/architecture.md, "Heartbeats"):
 * each side pings every interval and drops the other after `SILENT_BEATS` intervals without a frame
 * from it, judging only the other side's silence, never its own delays. A frame counts as heard when
 * it arrives; and a beat that itself runs more than 1.5 intervals late means the judging process was
 * stalled (a blocked event loop, a stopped process): the other side's frames of that time are still
 * unread in the socket, because timers run before sockets are read, so that beat judges no one.
 */
export const SILENT_BEATS = 3;

export class HeartbeatJudge {
  private lastBeat: number;

  constructor(
    private readonly intervalMs: number,
    now: number = Date.now(),
  ) {
    this.lastBeat = now;
  }

  /**
   * Called at each beat. `lateMs` is set when this beat came too late to judge anyone; otherwise
   * `silent(lastHeard)` says whether a peer last heard at that time is to be dropped.
   */
  beat(now: number = Date.now()): { lateMs: number | null; silent: (lastHeard: number) => boolean } {
    const gap = now - this.lastBeat;
    this.lastBeat = now;
    const lateMs = gap > 1.5 * this.intervalMs ? gap - this.intervalMs : null;
    return { lateMs, silent: (lastHeard) => lateMs === null && now - lastHeard > SILENT_BEATS * this.intervalMs };
  }
}
