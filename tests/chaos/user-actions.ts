import { isAppError } from '../../packages/core/src/domain/index.ts';
import { cancelMessage, createSchedule, editMessage } from '../../packages/core/src/services/index.ts';
import { MappedError } from '../../packages/core/src/trpc/errors.ts';
import type { ChaosSystem, Executor } from './chaos-system.ts';
import { Prng } from './prng.ts';
import { pendingPrompts, PromptUser, type ToolSent, toolText } from './prompt-actions.ts';

export const ACTION_KINDS = [
  'create',
  'create_untrusted',
  'send',
  'send_slow',
  'send_tool',
  'send_bot',
  'answer_web',
  'answer_bot',
  'answer_both',
  'stop',
  'close',
  'resume',
  'switch',
  // Queue control (issue 33), picked by their own stream (`queueControl`) so the seeds' main plans stay as they were.
  'cancel',
  'edit',
  'schedule',
  // A queued message cancelled or edited while its session is being resumed (issue 35), same stream.
  'cancel_handover',
  'edit_handover',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** How a service answered: a clear refusal (AppError), or an error that leaves the outcome unknown. */
export type Outcome = 'accepted' | 'refused' | 'uncertain';
export interface SentText {
  text: string;
  sessionId: string | null;
  via: 'web' | 'bot';
  outcome: Outcome;
  sourceKey?: string;
}
export interface TrackedSession {
  id: string;
  executor: Executor;
  nodeId: string;
  folder: string;
}

/** States a session is resumed from (by the user, or by itself after a lost CLI). */
const HANDOVER = new Set(['Archived', 'ResumeFailed', 'AwaitingRecovery']);
const OPEN = new Set(['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery', 'Closing']);

/** The simulated user: picks actions from the seed and records what each one was answered. */
export class User {
  readonly sessions: TrackedSession[] = [];
  readonly sent: SentText[] = [];
  readonly counts: Record<ActionKind, number> = Object.fromEntries(ACTION_KINDS.map((k) => [k, 0])) as Record<ActionKind, number>;
  readonly refusals: Record<string, number> = {};
  /** Coding turns sent (a tool word with the message's token), for the physical checks. */
  readonly tools: ToolSent[] = [];
  readonly prompts: PromptUser;
  private n = 0;
  /** Queue control's own stream: adding it left every seed's main plan unchanged. */
  private readonly q: Prng;

  constructor(
    private readonly sys: ChaosSystem,
    private readonly rng: Prng,
    private readonly seed: number,
  ) {
    this.prompts = new PromptUser(sys, rng);
    this.q = new Prng((Math.imul(seed, 2654435761) ^ 0x51ed) >>> 0);
  }

  /**
   * Sometimes after an action: a cancel or an edit of a message still waiting (racing the pump's
   * hand-over: either wins entirely or is refused), or a message scheduled a few seconds ahead (fired
   * by the engine across whatever faults come). The invariants read the outcome from the database.
   */
  async queueControl(): Promise<ActionKind | null> {
    if (!this.q.chance(0.3) || this.sessions.length === 0) return null;
    const waiting = await this.sys.db.message
      .findMany({ where: { sessionId: { in: this.sessions.map((s) => s.id) }, status: 'pending', source: 'web' }, select: { id: true }, take: 20 })
      .catch(() => []);
    const states = await this.states().catch(() => new Map<string, string>());
    const closed = this.sessions.filter((s) => HANDOVER.has(states.get(s.id) ?? ''));
    const kind = this.q.weighted<'cancel' | 'edit' | 'schedule' | 'cancel_handover' | 'edit_handover'>({
      // First: a weight of 0 is never the fallback (the last entry).
      cancel_handover: closed.length ? 1 : 0,
      edit_handover: closed.length ? 1 : 0,
      cancel: waiting.length ? 2 : 0,
      edit: waiting.length ? 2 : 0,
      schedule: 1,
    });
    this.counts[kind]++;
    const db = this.sys.db;
    if (kind === 'cancel_handover' || kind === 'edit_handover') {
      await this.raceHandover(kind, this.q.pick(closed));
      return kind;
    }
    if (kind === 'schedule') {
      const s = this.q.pick(this.sessions);
      const text = `sched ${this.text(false)}`;
      const runAt = new Date(Date.now() + this.q.int(1_000, 6_000));
      const outcome = await this.call(kind, () => createSchedule({ db }, { sessionId: s.id, text, kind: 'once', runAt, timeZone: 'UTC', from: 'web' }));
      // Queued by the engine, not now: its outcome is the schedule's (the invariants read it).
      this.sent.push({ text, sessionId: s.id, via: 'web', outcome: outcome === 'accepted' ? 'uncertain' : outcome });
      return kind;
    }
    const m = this.q.pick(waiting);
    if (kind === 'cancel') {
      await this.call(kind, () => cancelMessage({ db }, { messageId: m.id }));
      return kind;
    }
    const text = `edited ${this.text(false)}`;
    const outcome = await this.call(kind, () => editMessage({ db }, { messageId: m.id, text }));
    this.sent.push({ text, sessionId: null, via: 'web', outcome });
    return kind;
  }

  /**
   * Resume pressed on a closed or waiting session, a message sent to it while it resumes, and that
   * message cancelled or edited 0–4 s later: racing the moment the resumed session takes its queue.
   * Either the control wins entirely (never typed, or typed only as edited) or it is refused.
   */
  private async raceHandover(kind: 'cancel_handover' | 'edit_handover', s: TrackedSession): Promise<void> {
    const db = this.sys.db;
    const resumed = this.call(kind, () => this.sys.services.resume(s.id));
    const text = this.text(false);
    const outcome = await this.call(kind, () => this.sys.services.send(s.id, text));
    this.sent.push({ text, sessionId: s.id, via: 'web', outcome });
    await new Promise((r) => setTimeout(r, this.q.int(0, 4000)));
    const m = await db.message.findFirst({ where: { sessionId: s.id, text }, select: { id: true } }).catch(() => null);
    if (m && kind === 'cancel_handover') await this.call(kind, () => cancelMessage({ db }, { messageId: m.id }));
    else if (m) {
      const edited = `edited ${this.text(false)}`;
      const done = await this.call(kind, () => editMessage({ db }, { messageId: m.id, text: edited }));
      this.sent.push({ text: edited, sessionId: null, via: 'web', outcome: done });
    }
    await resumed;
  }

  /** A fresh unique text (for faults that send as the user). */
  nextText(): string {
    return this.text(false);
  }

  private async states(): Promise<Map<string, string>> {
    const rows = await this.sys.db.session.findMany({ where: { id: { in: this.sessions.map((s) => s.id) } }, select: { id: true, state: true } });
    return new Map(rows.map((r) => [r.id, r.state]));
  }

  async act(): Promise<ActionKind> {
    const states = await this.states().catch(() => new Map<string, string>());
    const open = this.sessions.filter((s) => OPEN.has(states.get(s.id) ?? ''));
    const archived = this.sessions.filter((s) => ['Archived', 'ResumeFailed'].includes(states.get(s.id) ?? ''));
    const pending = await pendingPrompts(
      this.sys,
      this.sessions.map((s) => s.id),
    );
    const creatable = this.sessions.length < 5 && open.length < 3;
    const kind = this.rng.weighted<ActionKind>({
      // Picked by queueControl's own stream, never here (first: a weight of 0 is never the fallback).
      cancel: 0,
      edit: 0,
      schedule: 0,
      cancel_handover: 0,
      edit_handover: 0,
      create: creatable ? (open.length === 0 ? 20 : 2) : 0,
      create_untrusted: creatable && open.length > 0 ? 0.7 : 0,
      send: open.length ? 6 : 0,
      send_slow: open.length ? 2 : 0,
      send_tool: open.length ? 5 : 0,
      send_bot: open.length ? 3 : 0,
      answer_web: pending.length ? 3 : 0,
      answer_bot: pending.length ? 3 : 0,
      answer_both: pending.length ? 0.7 : 0,
      stop: open.length ? 2 : 0,
      close: open.length ? 1.5 : 0,
      resume: archived.length ? 1.5 : 0,
      switch: open.length > 1 ? 1 : 0,
    });
    this.counts[kind]++;
    const any = () => this.rng.pick(open.length ? open : this.sessions);
    switch (kind) {
      case 'create':
        await this.create(this.rng.pick(['claude', 'codex'] as const));
        break;
      case 'create_untrusted':
        await this.createUntrusted();
        break;
      case 'send_tool':
        await this.sendTool(any());
        break;
      case 'answer_web': {
        const p = this.rng.pick(pending);
        await this.call(kind, () => this.prompts.answerWeb(p.sessionId));
        break;
      }
      case 'answer_bot':
        await this.prompts.answerBot();
        break;
      case 'answer_both': {
        // Two answers at once from both front ends: exactly one may win.
        const p = this.rng.pick(pending);
        await Promise.all([this.call(kind, () => this.prompts.answerWeb(p.sessionId, p.id)), this.prompts.answerBot(p.id)]);
        break;
      }
      case 'send':
      case 'send_slow': {
        const s = any();
        const text = this.text(kind === 'send_slow');
        const outcome = await this.call(kind, () => this.sys.services.send(s.id, text));
        this.sent.push({ text, sessionId: s.id, via: 'web', outcome });
        break;
      }
      case 'send_bot': {
        // Goes to whatever session the chat has active: the queue row (by its source key) says which.
        const text = this.text(this.rng.chance(0.3));
        const m = this.sys.fake.userSends(text);
        this.sent.push({ text, sessionId: null, via: 'bot', outcome: 'uncertain', sourceKey: `tg:${this.sys.chatId}:${m.message.message_id}` });
        break;
      }
      case 'stop':
        await this.call(kind, () => this.sys.services.stop(any().id));
        break;
      case 'close':
        await this.call(kind, () => this.sys.services.close(any().id));
        break;
      case 'resume':
        await this.call(kind, () => this.sys.services.resume(this.rng.pick(archived).id));
        break;
      case 'switch':
        await this.call(kind, () => this.sys.services.jump(any().id));
        break;
      case 'cancel':
      case 'edit':
      case 'schedule':
      case 'cancel_handover':
      case 'edit_handover':
        break;
      default:
        kind satisfies never;
    }
    return kind;
  }

  /** A new session in a trusted folder of its own (through the Telegram chat, as /new does). */
  async create(executor: Executor): Promise<TrackedSession | null> {
    const folder = this.sys.folder(`s${this.sessions.length}-${executor}`);
    let made: TrackedSession | null = null;
    await this.call('create', async () => {
      const s = await this.sys.services.create(executor, folder);
      made = { id: s.id, executor, nodeId: s.nodeId, folder };
      this.sessions.push(made);
    });
    return made;
  }

  /** One plain message through the dashboard (recorded like every other); its text. */
  async sendOne(s: TrackedSession): Promise<string> {
    const text = this.text(false);
    const outcome = await this.call('send', () => this.sys.services.send(s.id, text));
    this.sent.push({ text, sessionId: s.id, via: 'web', outcome });
    return text;
  }

  /** A Claude session in a folder the CLI does not trust yet: its start waits on the folder-trust dialog. */
  async createUntrusted(): Promise<string | null> {
    const folder = this.sys.untrustedFolder(`u${this.sessions.length}`);
    let id: string | null = null;
    await this.call('create_untrusted', async () => {
      const s = await this.sys.services.create('claude', folder);
      this.sessions.push({ id: s.id, executor: 'claude', nodeId: s.nodeId, folder });
      id = s.id;
    });
    return id;
  }

  /** A coding turn through the dashboard: the model answers with a tool call the CLI asks about. */
  async sendTool(s: TrackedSession): Promise<void> {
    const token = `c${this.seed}m${++this.n}z`;
    const { text, word } = toolText(this.rng, s.executor, token, s.folder);
    const outcome = await this.call('send_tool', () => this.sys.services.send(s.id, text));
    this.sent.push({ text, sessionId: s.id, via: 'web', outcome });
    this.tools.push({ token, word, sessionId: s.id, folder: s.folder, text });
  }

  /** An open session, if any (for a fault that needs a coding turn to provoke a request). */
  async openSession(executor?: Executor): Promise<TrackedSession | null> {
    const states = await this.states().catch(() => new Map<string, string>());
    const open = this.sessions.filter((s) => ['Ready', 'Running'].includes(states.get(s.id) ?? '') && (!executor || s.executor === executor));
    return open.length ? this.rng.pick(open) : null;
  }

  private text(slow: boolean): string {
    const token = `c${this.seed}m${++this.n}z`;
    return slow ? `SLOW chaos ${token}` : `chaos ${token}`;
  }

  async call(kind: ActionKind, fn: () => Promise<unknown>): Promise<Outcome> {
    try {
      await fn();
      return 'accepted';
    } catch (err) {
      // A domain refusal comes as an AppError from a service, or mapped onto a tRPC error by the dashboard's API.
      const code = isAppError(err) ? err.code : err instanceof MappedError ? err.appCode : null;
      const key = code ? `${kind}:${code}` : `${kind}:error`;
      this.refusals[key] = (this.refusals[key] ?? 0) + 1;
      return code && code !== 'PERSIST_FAILED' && code !== 'INTERNAL' ? 'refused' : 'uncertain';
    }
  }
}
