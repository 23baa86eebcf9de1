/**
 * The hand-over round's invariants (issue 35), pure: the run reads the rows and logs, these judge
 * them (so each can be fed a recorded violation in `edge-invariants.test.ts`).
 */

/** A schedule the `schedule_outage` fault made due during an outage. */
export interface ScheduleRecord {
  id: string;
  outage: 'hub_kill' | 'pg_restart';
  dueAt: number;
}
/** A schedule as the database holds it after the run, with the messages its firing queued. */
export interface ScheduleRow {
  id: string;
  kind: string;
  status: string;
  nextRunAt: Date | null;
  leaseUntil: Date | null;
  /** Queue rows whose source key is this schedule's (`schedule:<id>:<occurrence>`). */
  queued: number;
}

/**
 * Never twice, never lost: a once schedule queues at most one message; one that says it sent
 * holds exactly one; one still active must not be overdue (unless a firing engine's claim on it is
 * still running, as after a hub killed mid-fire); one the outage fault made must have ended (fired,
 * or ended with its reason) by the time the system is at rest.
 */
export function scheduleViolations(rows: ScheduleRow[], now: number, outaged: ScheduleRecord[] = []): string[] {
  const v: string[] = [];
  for (const sc of rows) {
    const id = sc.id.slice(0, 8);
    if (sc.kind === 'once' && sc.queued > 1) v.push(`schedule ${id} fired ${sc.queued} times`);
    else if (sc.status === 'done' && sc.kind === 'once' && sc.queued !== 1) v.push(`schedule ${id} says sent but ${sc.queued} messages hold it`);
    if (sc.status !== 'done' && sc.queued > 0) v.push(`schedule ${id} (${sc.status}) queued ${sc.queued} messages`);
    const claimed = sc.leaseUntil !== null && sc.leaseUntil.getTime() > now;
    if (sc.status === 'active' && sc.nextRunAt && sc.nextRunAt.getTime() < now - 30_000 && !claimed)
      v.push(`schedule ${id} due at ${sc.nextRunAt.toISOString()} never fired`);
  }
  for (const r of outaged) {
    const sc = rows.find((x) => x.id === r.id);
    if (!sc) v.push(`schedule ${r.id.slice(0, 8)} (due during a ${r.outage}) disappeared`);
    else if (sc.status === 'active') v.push(`schedule ${r.id.slice(0, 8)} due during a ${r.outage} was still waiting at rest`);
  }
  return v;
}

/** One `push_fail` fault: a failing device and a healthy one, sent a test push at the same moment. */
export interface PushRecord {
  mode: 'gone' | 'error' | 'timeout';
  badId: string;
  okId: string;
  /** The devices' endpoint names at the local push service. */
  bad: string;
  ok: string;
  enqueuedAt: number;
  /** Another fault took the hub, Postgres or the network away within 12 s of the send (the timing is not judged). */
  disrupted: boolean;
}
export interface PushOutcome {
  /** The devices still subscribed after the run. */
  subscribed: Set<string>;
  /** Each record's healthy device: when its test push was marked sent (null: never). */
  okSentAt: Map<string, number | null>;
  /** Requests the push service received, per endpoint name. */
  requests: (name: string) => number;
}
/** A healthy device's push must not wait behind a failing one: the sender's timeout is 10 s. */
export const PUSH_NOT_HELD_MS = 8_000;

/**
 * As docs/architecture.md (Web Push) documents it: a 404/410 device is removed with its pushes; a 5xx or a timeout is
 * retried and the device kept; the healthy device's push is sent, and (when nothing else broke in
 * the meantime) without waiting for the failing one.
 */
export function pushViolations(records: PushRecord[], o: PushOutcome): string[] {
  const v: string[] = [];
  for (const r of records) {
    if (o.requests(r.bad) === 0) v.push(`push to the ${r.mode} device ${r.bad} was never tried`);
    if (r.mode === 'gone' && o.subscribed.has(r.badId)) v.push(`device ${r.bad} answered 410 and is still subscribed`);
    if (r.mode !== 'gone' && !o.subscribed.has(r.badId)) v.push(`device ${r.bad} (${r.mode}, transient) was removed`);
    if (!o.subscribed.has(r.okId)) v.push(`healthy device ${r.ok} was removed`);
    const sent = o.okSentAt.get(r.okId) ?? null;
    if (sent === null) v.push(`the test push to healthy device ${r.ok} was never sent (beside a ${r.mode} device)`);
    else if (sent - r.enqueuedAt > PUSH_NOT_HELD_MS && !r.disrupted)
      v.push(`the test push to healthy device ${r.ok} took ${sent - r.enqueuedAt} ms beside a ${r.mode} device`);
  }
  return v;
}

/** One `hook_forge` fault: what was written, what the agent answered, the agent and its connection around it. */
export interface ForgeRecord {
  kind: string;
  token: string;
  sessionId: string;
  /** The agent's answer; null when nothing listened (the agent was down). */
  answer: string | null;
  before: { pid: number | null; connectedAt: number | null; disruptions: number };
  after: { pid: number | null; connectedAt: number | null; disruptions: number };
  /** The hub's warnings in that window (its log), to name the cause of a reconnect. */
  hubSaid?: string[];
}

const REFUSED = /^\{"type":"refused","reason":"[a-z_]+"\}\n$/;

/**
 * Forged input is refused and changes nothing: a refusal line with its reason, no prompt row naming
 * the forged command, the same agent process and the same hub connection (unless another fault
 * restarted the agent or cut the connection in that window). `promptsNaming(token)` counts stored
 * prompts whose input carries the token.
 */
export function forgeViolations(records: ForgeRecord[], promptsNaming: (token: string) => number): string[] {
  const v: string[] = [];
  for (const r of records) {
    if (promptsNaming(r.token) > 0) v.push(`a forged ${r.kind} line for session ${r.sessionId.slice(0, 8)} became a prompt`);
    const quiet = r.before.pid !== null && r.before.pid === r.after.pid && r.before.disruptions === r.after.disruptions;
    if (!quiet || r.answer === null) continue;
    if (!REFUSED.test(r.answer)) v.push(`a forged ${r.kind} line was answered ${JSON.stringify(r.answer.slice(0, 120))}, not refused`);
    if (r.before.connectedAt !== r.after.connectedAt)
      v.push(`a forged ${r.kind} line cut the node off (reconnected${r.hubSaid?.length ? `; the hub: ${r.hubSaid.join(', ').slice(0, 300)}` : ''})`);
  }
  return v;
}
