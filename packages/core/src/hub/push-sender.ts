import webpush from 'web-push';
import { PgListener } from '../db/pg-listener.ts';
import type { Db } from '../db/client.ts';
import { type VapidKeys, vapidKeys } from '../db/repos/push.ts';
import { type ClaimedPush, claimPushes, dropPush, markPushFailed, markPushSent, nextPushDue, pendingPromptIds } from '../db/repos/push-outbox.ts';
import { removePushSubscription } from '../db/repos/push.ts';
import { pushRetryDelayMs, pushSendOutcome } from '../domain/push-delivery.ts';
import type { Logger } from '../log.ts';

/**
 * The push sender (issue 32), run by the hub process beside the engine: it claims due `PushOutbox`
 * rows (woken by `NOTIFY bria_push`, and by a timer for the next retry), encrypts each for its
 * device and signs the request with the server's VAPID key through `web-push`
 * (`generateRequestDetails`: RFC 8291 aes128gcm, RFC 8292 JWT), and POSTs it itself with Node's
 * fetch: every device is sent on its own (one slow or failing push service never holds another),
 * with a 10 s timeout. Answers are classified by the pure `pushSendOutcome`.
 */
export const PUSH_CHANNEL = 'bria_push';
const BATCH = 50;
const LEASE_MS = 30_000;
const SEND_TIMEOUT_MS = 10_000;
/** Safety poll: a NOTIFY lost with a dropped LISTEN connection costs at most this long. */
const SAFETY_POLL_MS = 30_000;

/** The VAPID subject (RFC 8292 `sub`): a contact for push services; `BRIA_PUSH_SUBJECT` overrides it. */
export const DEFAULT_PUSH_SUBJECT = 'mailto:bria@example.invalid';

export interface PushSenderOptions {
  db: Db;
  databaseUrl: string;
  log: Logger;
  subject?: string;
  now?: () => Date;
}

export class PushSender {
  private listener: PgListener | undefined;
  private keys: VapidKeys | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly o: PushSenderOptions) {}

  private now(): Date {
    return this.o.now ? this.o.now() : new Date();
  }

  /** Makes (or reads) the VAPID keys, listens, and sends what is due. */
  async start(): Promise<void> {
    this.keys = await vapidKeys(this.o.db);
    this.listener = new PgListener({
      databaseUrl: this.o.databaseUrl,
      channels: [PUSH_CHANNEL],
      retryFromStart: true,
      onNotify: () => this.wake(),
      onListening: () => this.wake(),
      onError: (err) => this.o.log.warn({ err: err.message }, 'push.listen_error'),
    });
    await this.listener.start();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.listener?.stop();
    await this.running;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Runs one drain now, or once more after the running one. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err: Error) => this.o.log.error({ err: err.message }, 'push.drain_failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        } else void this.schedule();
      });
  }

  private async schedule(): Promise<void> {
    if (this.stopped) return;
    let wait = SAFETY_POLL_MS;
    try {
      const due = await nextPushDue(this.o.db);
      if (due) wait = Math.min(wait, Math.max(0, due.getTime() - this.now().getTime()));
    } catch {
      // the safety poll tries again
    }
    clearTimeout(this.timer);
    if (!this.stopped) this.timer = setTimeout(() => this.wake(), wait + 5);
  }

  private async drain(): Promise<void> {
    for (;;) {
      const rows = await claimPushes(this.o.db, { limit: BATCH, leaseMs: LEASE_MS, now: this.now() });
      if (rows.length === 0) return;
      // A prompt's push goes only while the prompt still waits: one a hook (or anyone) answered
      // between the write and now is dropped, never shown.
      const waiting = await pendingPromptIds(
        this.o.db,
        rows.filter((r) => r.action === 'show' && r.promptId).map((r) => r.promptId as string),
      );
      for (const r of rows) {
        const p = r.action === 'show' && r.promptId && !waiting.has(r.promptId) ? dropPush(this.o.db, r.id) : this.send(r);
        const tracked = p.catch((err: Error) => this.o.log.error({ err: err.message, pushId: String(r.id) }, 'push.send_crashed'));
        this.inFlight.add(tracked);
        void tracked.finally(() => {
          this.inFlight.delete(tracked);
          // A retry's time is known only now: sleep until the next due push.
          if (!this.running) void this.schedule();
        });
      }
      // Claims continue while earlier sends are in flight; a send never waits for another device.
      if (rows.length < BATCH) return;
    }
  }

  private async send(r: ClaimedPush): Promise<void> {
    this.keys ??= await vapidKeys(this.o.db);
    const keys = this.keys;
    const log = this.o.log.child({ pushId: String(r.id), subscriptionId: r.subscriptionId });
    let status: number | null = null;
    let error = '';
    let retryAfter: number | null = null;
    try {
      const req = webpush.generateRequestDetails({ endpoint: r.endpoint, keys: { p256dh: r.p256dh, auth: r.auth } }, JSON.stringify(r.payload), {
        vapidDetails: { subject: this.o.subject ?? DEFAULT_PUSH_SUBJECT, publicKey: keys.publicKey, privateKey: keys.privateKey },
        TTL: r.ttlSeconds,
        urgency: r.urgency as webpush.Urgency,
        topic: r.topic,
      });
      const res = await fetch(req.endpoint, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: new Uint8Array(req.body),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      status = res.status;
      const ra = Number(res.headers.get('retry-after'));
      retryAfter = Number.isFinite(ra) && ra > 0 ? ra : null;
      if (!res.ok) error = `push service answered ${res.status}: ${(await res.text()).slice(0, 200)}`;
      else await res.arrayBuffer();
    } catch (err) {
      error = `push service not reached: ${(err as Error).message}`;
    }
    const now = this.now();
    const outcome = pushSendOutcome(status, r.attempts);
    switch (outcome) {
      case 'sent':
        await markPushSent(this.o.db, { id: r.id, subscriptionId: r.subscriptionId, now });
        log.debug({ kind: r.eventKind, action: r.action }, 'push.sent');
        return;
      case 'gone':
        // The browser unsubscribed or the push service expired it: the device is removed, its pushes with it.
        await removePushSubscription(this.o.db, { id: r.subscriptionId });
        log.info({ status }, 'push.subscription_gone');
        return;
      case 'retry': {
        const at = new Date(now.getTime() + pushRetryDelayMs(r.attempts, retryAfter));
        await markPushFailed(this.o.db, { id: r.id, subscriptionId: r.subscriptionId, error, retryAt: at });
        log.warn({ status, attempts: r.attempts }, 'push.retry');
        return;
      }
      case 'failed':
        await markPushFailed(this.o.db, { id: r.id, subscriptionId: r.subscriptionId, error, retryAt: null });
        log.warn({ status, attempts: r.attempts }, 'push.failed');
        return;
      default:
        return outcome satisfies never;
    }
  }
}
