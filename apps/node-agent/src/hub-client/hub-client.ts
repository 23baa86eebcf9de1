import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import {
  BAD_TOKEN_DELAY_MS,
  CloseCode,
  MAX_FRAME_BYTES,
  HeartbeatJudge,
  PROTOCOL_HEADER,
  PROTOCOL_MISMATCH_DELAY_MS,
  PROTOCOL_VERSION,
  RECONNECT_HEALTHY_MS,
  parseHubToAgent,
  payloadRefusal,
  splitEvent,
  storableJson,
  reconnectDelay,
  unknownCommand,
  type AgentToHub,
  type Draft,
  type Pane,
  type Welcome,
} from '@bria/core/protocol';
import type { StoredEvent } from '../ledger/ledger.ts';
import { CommandRunner } from './commands.ts';
import { type AgentEventOut, type ConnectionState, type HubClientOptions, isLoopbackUrl, STOP_GRACE_MS } from './options.ts';
import { fetchPinnedCa, PinMismatchError } from './pinned-ca.ts';

export type { AgentEventOut, ConnectionState, HubClientOptions } from './options.ts';

/**
 * The agent's outbound connection to the hub, as an explicit loop: connect → hello → welcome →
 * replay unacked events → live; on any loss, wait per the backoff table and start again.
 * Losing the hub never touches the CLIs (they live in tmux on their own).
 */
export class HubClient extends EventEmitter {
  private ws?: WebSocket;
  private attempt = 0;
  /** When the current connection got its welcome (the backoff resets only after a healthy one). */
  private onlineSince = 0;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private watchdog?: NodeJS.Timeout;
  private heartbeatMs = 10_000;
  private lastHeard = 0;
  private readonly commands: CommandRunner;
  /** Set once `stop` has returned: the ledger may be gone, so nothing is written any more. */
  private closed = false;
  state: ConnectionState = 'offline';
  nodeId?: string;
  /** The wait before the next attempt, as last scheduled (observable: a refusal waits long). */
  retryDelayMs: number | undefined;
  /** The CA certificate `caSha256` names, once fetched from the hub's chain. */
  private pinnedCa: string | undefined;

  constructor(private readonly opts: HubClientOptions) {
    super();
    this.commands = new CommandRunner({
      ledger: opts.ledger,
      log: opts.log,
      run: opts.onCommand,
      onInterrupted: opts.onInterrupted,
      ack: (id) => this.send({ type: 'command_ack', id }),
      emit: (e) => this.emitEvent(e),
      closed: () => this.closed,
    });
  }

  /**
   * Answers every command an earlier run of the agent recorded as received and never finished. Run
   * once at start, before the connection, so the answers precede anything the hub could send again.
   */
  answerAllInterrupted(): Promise<number> {
    return this.commands.answerAllInterrupted();
  }

  start(): void {
    this.stopped = false;
    this.closed = false;
    this.connect();
  }

  private setState(s: ConnectionState): void {
    if (this.state === s) return;
    this.state = s;
    this.emit('state', s);
  }

  private connect(): void {
    if (this.stopped) return;
    this.setState('connecting');
    if (this.opts.caSha256 && !this.pinnedCa) {
      this.pinFirst(this.opts.caSha256);
      return;
    }
    const ws = new WebSocket(this.opts.url, {
      headers: { authorization: `Bearer ${this.opts.token}`, [PROTOCOL_HEADER]: String(PROTOCOL_VERSION) },
      maxPayload: MAX_FRAME_BYTES,
      handshakeTimeout: 10_000,
      ...(this.pinnedCa ? { ca: this.pinnedCa, checkServerIdentity: () => undefined } : {}),
      ...(!this.pinnedCa && this.opts.ca ? { ca: this.opts.ca } : {}),
      ...(isLoopbackUrl(this.opts.url) ? { checkServerIdentity: () => undefined } : {}),
    });
    this.ws = ws;
    let refusedDelay: number | undefined;
    let answeredOverHttp = false;
    ws.on('unexpected-response', (_req, res) => {
      answeredOverHttp = true;
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => {
        let message = `HTTP ${res.statusCode}`;
        try {
          const parsed = JSON.parse(body) as { message?: string; retryAfterMs?: number };
          message = parsed.message ?? message;
          refusedDelay = parsed.retryAfterMs;
        } catch {}
        if (res.statusCode === 426) {
          this.refusedForProtocol(message);
          refusedDelay = Math.max(refusedDelay ?? 0, PROTOCOL_MISMATCH_DELAY_MS);
        } else if (res.statusCode === 401 || res.statusCode === 403) {
          this.setState('refused');
          this.opts.log('error', `The hub refused this agent: ${message}`);
          this.emit('refused', message);
          refusedDelay ??= BAD_TOKEN_DELAY_MS;
        } else {
          this.opts.log('warn', `The hub answered ${res.statusCode}: ${message}`);
        }
        ws.terminate();
        this.scheduleReconnect(refusedDelay);
      });
    });
    ws.on('open', () => {
      this.lastHeard = Date.now();
      this.send({
        type: 'hello',
        protocol: PROTOCOL_VERSION,
        instanceId: this.opts.ledger.instanceId,
        lastEventSeq: this.opts.ledger.lastSeq,
        ...this.opts.hello(),
      });
    });
    ws.on('message', (raw) => void this.onMessage(raw));
    ws.on('close', (code, reason) => {
      if (this.ws !== ws) return;
      this.clearWatchdog();
      // An HTTP refusal schedules its own (slower) retry once its body is read.
      if (answeredOverHttp) return;
      const wasOnline = this.state === 'online';
      // Only a connection that stayed up resets the backoff: one closed right after its welcome (a
      // frame the hub cannot take) keeps growing the wait, so the agent never loops on the hub.
      if (wasOnline && Date.now() - this.onlineSince >= RECONNECT_HEALTHY_MS) this.attempt = 0;
      if (this.state !== 'refused') this.setState('offline');
      if (this.stopped) return;
      if (wasOnline) this.opts.log('warn', 'Lost the connection to the hub; retrying.', { code, reason: reason.toString().slice(0, 100) });
      if (code === CloseCode.revoked) {
        this.setState('refused');
        this.scheduleReconnect(BAD_TOKEN_DELAY_MS);
      } else if (code === CloseCode.protocolMismatch) {
        // The refusal frame before it said why (logged); the hub will not change by itself soon.
        this.setState('refused');
        this.scheduleReconnect(PROTOCOL_MISMATCH_DELAY_MS);
      } else {
        this.scheduleReconnect();
      }
    });
    ws.on('error', (err) => {
      // A chain that no longer verifies up to the pinned CA: the next attempt looks at the chain
      // again, so the refusal names what the hub (or someone in between) presents.
      if (this.opts.caSha256 && /CERT|SIGNATURE|ISSUER/.test((err as NodeJS.ErrnoException).code ?? '')) this.pinnedCa = undefined;
      if (this.state === 'connecting' && this.attempt === 0) this.opts.log('warn', `Cannot reach the hub at ${this.opts.url}: ${err.message}`);
    });
  }

  /** Fetches the pinned CA from the hub's chain (nothing is sent), then connects trusting only it. */
  private pinFirst(pin: string): void {
    fetchPinnedCa(this.opts.url, pin).then(
      (pem) => {
        this.pinnedCa = pem;
        this.connect();
      },
      (err: Error) => {
        if (err instanceof PinMismatchError) {
          this.setState('refused');
          this.opts.log('error', err.message);
          this.emit('refused', err.message);
          this.scheduleReconnect(BAD_TOKEN_DELAY_MS);
          return;
        }
        if (this.attempt === 0) this.opts.log('warn', `Cannot reach the hub at ${this.opts.url}: ${err.message}`);
        this.setState('offline');
        this.scheduleReconnect();
      },
    );
  }

  /** Another protocol version: said once per refusal, plainly, with when the agent asks again. */
  private refusedForProtocol(message: string): void {
    this.setState('refused');
    this.opts.log(
      'error',
      `The hub refused this agent's protocol version ${PROTOCOL_VERSION}: ${message} Trying again in ${PROTOCOL_MISMATCH_DELAY_MS / 60_000} minutes.`,
    );
    this.emit('refused', message);
  }

  private scheduleReconnect(forcedDelay?: number): void {
    if (this.stopped || this.retryTimer) return;
    const delay = forcedDelay ?? reconnectDelay(this.attempt, (this.opts.random ?? Math.random)());
    this.retryDelayMs = delay;
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect();
    }, delay);
  }

  private hubFeatures: ReadonlySet<string> = new Set();
  private liveConnectionNo = 0;

  /** Changes with every welcome: ephemeral frames start over on a new connection. */
  get liveConnection(): number {
    return this.liveConnectionNo;
  }

  /**
   * Sends an ephemeral frame (protocol/live-frames.ts: never in the ledger, never replayed) when
   * online to a hub that lists its feature; false when it was dropped.
   */
  sendLive(frame: Draft | Pane): boolean {
    if (this.state !== 'online' || !this.hubFeatures.has(frame.type) || this.ws?.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  private send(msg: AgentToHub): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  private async onMessage(raw: WebSocket.RawData): Promise<void> {
    this.lastHeard = Date.now();
    const parsed = parseHubToAgent(raw);
    if (!parsed.ok) {
      const unknown = unknownCommand(raw);
      if (unknown) return this.commands.unknown(unknown);
      this.opts.log('warn', 'Malformed message from the hub; reconnecting.', { error: parsed.error.slice(0, 200) });
      this.ws?.close(CloseCode.protocolError, 'malformed');
      return;
    }
    const msg = parsed.message;
    switch (msg.type) {
      case 'welcome':
        return this.onWelcome(msg);
      case 'ping':
        this.send({ type: 'pong', t: msg.t });
        return;
      case 'pong':
        return;
      case 'event_ack':
        this.opts.ledger.ack(msg.upTo);
        return;
      case 'command':
        return this.commands.handle(msg);
      case 'terminal':
        this.opts.onTerminal?.(msg);
        return;
      case 'refused':
        if (msg.code === 'protocol') this.refusedForProtocol(msg.message);
        else this.opts.log('error', `The hub refused this agent: ${msg.message}`);
        this.setState('refused');
        return;
      default:
        msg satisfies never;
    }
  }

  private onWelcome(w: Welcome): void {
    this.onlineSince = Date.now();
    this.hubFeatures = new Set(w.features ?? []);
    this.liveConnectionNo += 1;
    this.nodeId = w.nodeId;
    this.heartbeatMs = w.heartbeatMs;
    // The hub stored everything up to its lastEventSeq; drop those and replay the rest in order.
    this.opts.ledger.ack(w.lastEventSeq);
    this.setState('online');
    this.emit('welcome', w);
    for (const ev of this.opts.ledger.unacked(w.lastEventSeq)) this.sendEvent(ev);
    this.armWatchdog();
  }

  private armWatchdog(): void {
    this.clearWatchdog();
    // The same rule as the hub's (protocol/heartbeat.ts): a beat that comes late judges no one.
    const judge = new HeartbeatJudge(this.heartbeatMs);
    this.watchdog = setInterval(() => {
      if (judge.beat().silent(this.lastHeard)) {
        this.opts.log('warn', 'No heartbeat from the hub; reconnecting.');
        this.ws?.terminate();
        return;
      }
      this.send({ type: 'ping', t: Date.now() });
    }, this.heartbeatMs);
  }

  private clearWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  /**
   * Records an event durably, then sends it if the hub is reachable (otherwise it waits). An event
   * whose frame would exceed the bound is recorded as its parts (`splitEvent`), all in one append.
   * Returns the last record, or undefined when the protocol refuses the event (the ledger logged why).
   */
  emitEvent(e: AgentEventOut): StoredEvent | undefined {
    return this.emitUnchecked(e);
  }

  /**
   * `emitEvent` without the compiler's check of name and payload, for tests' marker events that the
   * hub stores without interpreting (the ledger and the hub still validate every frame). Product
   * code uses `emitEvent`.
   */
  emitUnchecked(e: Omit<StoredEvent, 'seq' | 'at'> & { at?: number }): StoredEvent | undefined {
    const whole = { ...e, at: e.at ?? Date.now(), payload: storableJson(e.payload) };
    const refusal = payloadRefusal(whole.event, whole.payload);
    if (refusal !== null) {
      this.opts.log('warn', 'ledger.event_refused', { event: whole.event.slice(0, 64), sessionId: whole.sessionId, reason: refusal.slice(0, 300) });
      return undefined;
    }
    const evs = this.opts.ledger.appendEvents(splitEvent(whole, randomUUID()));
    if (this.state === 'online') for (const ev of evs) this.sendEvent(ev);
    return evs.at(-1);
  }

  private sendEvent(ev: StoredEvent): void {
    this.send({
      type: 'event',
      seq: ev.seq,
      at: ev.at,
      event: ev.event,
      commandId: ev.commandId,
      sessionId: ev.sessionId,
      generation: ev.generation,
      payload: ev.payload,
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.clearWatchdog();
    await this.commands.waitForRunning(this.opts.stopGraceMs ?? STOP_GRACE_MS);
    this.closed = true;
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close(CloseCode.normal, 'agent stopping');
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2_000).unref();
    });
  }
}
