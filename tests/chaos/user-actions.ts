import { isAppError } from '../../packages/core/src/domain/index.ts';
import { MappedError } from '../../packages/core/src/trpc/errors.ts';
import type { ChaosSystem, Executor } from './chaos-system.ts';
import type { Prng } from './prng.ts';

export const ACTION_KINDS = ['create', 'send', 'send_slow', 'send_bot', 'stop', 'close', 'resume', 'switch'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** How a service answered: a clear refusal (AppError), or an error that leaves the outcome unknown. */
export type Outcome = 'accepted' | 'refused' | 'uncertain';
export interface SentText { text: string; sessionId: string | null; via: 'web' | 'bot'; outcome: Outcome; sourceKey?: string }
export interface TrackedSession { id: string; executor: Executor; nodeId: string }

const OPEN = new Set(['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery', 'Closing']);

/** The simulated user: picks actions from the seed and records what each one was answered. */
export class User {
  readonly sessions: TrackedSession[] = [];
  readonly sent: SentText[] = [];
  readonly counts: Record<ActionKind, number> = Object.fromEntries(ACTION_KINDS.map((k) => [k, 0])) as Record<ActionKind, number>;
  readonly refusals: Record<string, number> = {};
  private n = 0;

  constructor(private readonly sys: ChaosSystem, private readonly rng: Prng, private readonly seed: number) {}

  private async states(): Promise<Map<string, string>> {
    const rows = await this.sys.db.session.findMany({ where: { id: { in: this.sessions.map((s) => s.id) } }, select: { id: true, state: true } });
    return new Map(rows.map((r) => [r.id, r.state]));
  }

  async act(): Promise<ActionKind> {
    const states = await this.states().catch(() => new Map<string, string>());
    const open = this.sessions.filter((s) => OPEN.has(states.get(s.id) ?? ''));
    const archived = this.sessions.filter((s) => ['Archived', 'ResumeFailed'].includes(states.get(s.id) ?? ''));
    const kind = this.rng.weighted<ActionKind>({
      create: this.sessions.length < 5 && open.length < 3 ? (open.length === 0 ? 20 : 2) : 0,
      send: open.length ? 8 : 0, send_slow: open.length ? 3 : 0, send_bot: open.length ? 3 : 0,
      stop: open.length ? 2 : 0, close: open.length ? 1.5 : 0, resume: archived.length ? 1.5 : 0, switch: open.length > 1 ? 1 : 0,
    });
    this.counts[kind]++;
    const any = () => this.rng.pick(open.length ? open : this.sessions);
    switch (kind) {
      case 'create': {
        const executor = this.rng.pick(['claude', 'codex'] as const);
        const folder = this.sys.folder(`s${this.sessions.length}-${executor}`);
        await this.call(kind, async () => {
          const s = await this.sys.services.create(executor, folder);
          this.sessions.push({ id: s.id, executor, nodeId: s.nodeId });
        });
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
      default:
        kind satisfies never;
    }
    return kind;
  }

  private text(slow: boolean): string {
    const token = `c${this.seed}m${++this.n}z`;
    return slow ? `SLOW chaos ${token}` : `chaos ${token}`;
  }

  private async call(kind: ActionKind, fn: () => Promise<unknown>): Promise<Outcome> {
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
