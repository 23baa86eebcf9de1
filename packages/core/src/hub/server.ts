import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { PgListener } from '../db/pg-listener.ts';
import { markCommandAcked, markCommandsSent, unackedCommands } from '../db/repos/agent-commands.ts';
import { storeAgentEvent } from '../db/repos/agent-events.ts';
import { findNodeByToken, markNodeOffline, markNodeOnline, markStaleNodesOffline } from '../db/repos/nodes.ts';
import {
  CloseCode,
  HUB_FEATURES,
  HUB_READ_LIMIT_BYTES,
  OPTIONAL_COMMANDS,
  nulRefusal,
  parseAgentToHub,
  payloadRefusal,
  type Hello,
  HeartbeatJudge,
} from '../protocol/index.ts';
import { frameText, refuseFrame, sizeRefusal } from './refused-frames.ts';
import { AgentConnection } from './agent-connection.ts';
import { DraftRelay } from './draft-relay.ts';
import { TerminalRelay } from './terminal-relay.ts';
import { TERMINAL_CHANNEL } from '../db/repos/terminal-notices.ts';
import { agentOutdated } from '../domain/agent-version.ts';
import { executorVersions } from '../domain/cli-versions.ts';
import { AgentDownloads } from './agent-download.ts';
import { helloProtocol, protocolMismatch, upgradeProtocol } from './protocol-check.ts';
import { bearerToken } from './tokens.ts';
import type { HubOptions } from './hub-options.ts';
import { closeRevoked, recheckTokens } from './token-revocation.ts';
import { hubBeat } from './heartbeat.ts';

export type { HubOptions } from './hub-options.ts';

/**
 * The hub: accepts node agents' outbound WebSockets on `/agent`, records node liveness, sends
 * durable commands and stores agent events exactly once. Postgres is its only shared state,
 * so it wakes on LISTEN/NOTIFY rather than on in-process calls.
 */
export class Hub {
  private server!: Server;
  private wss!: WebSocketServer;
  private listener: PgListener | undefined;
  private connections = new Map<string, AgentConnection>();
  private timers: NodeJS.Timeout[] = [];
  private closing = false;
  private judge!: HeartbeatJudge;
  /**
   * Per node, the online / offline writes in the order the hub saw them: a closed socket's
   * "offline" written after the next connection's "online" would leave a connected node offline.
   */
  private livenessWrites = new Map<string, Promise<unknown>>();
  private readonly now: () => Date;
  private readonly downloads: AgentDownloads | undefined;
  private readonly drafts: DraftRelay;
  private readonly terminals: TerminalRelay;
  port = 0;

  constructor(private readonly opts: HubOptions) {
    this.now = opts.now ?? (() => new Date());
    this.drafts = new DraftRelay(opts.db, opts.log);
    this.terminals = new TerminalRelay(opts.db, opts.log, (nodeId) => this.connections.get(nodeId));
    this.downloads = opts.agentBundleDir ? new AgentDownloads(opts.agentBundleDir) : undefined;
  }

  get onlineNodeIds(): string[] {
    return [...this.connections.values()].filter((c) => c.helloDone).map((c) => c.nodeId);
  }

  async start(): Promise<void> {
    const { db, log } = this.opts;
    // A node is online only while some hub holds its socket; after a crash nobody does.
    const stale = await markStaleNodesOffline(db, new Date(this.now().getTime() - 3 * this.opts.heartbeatMs), this.now());
    if (stale > 0) log.info({ nodes: stale }, 'hub.start marked stale nodes offline');

    await this.listen();

    // Frames up to 4 MiB are read so an oversized one is recorded and acknowledged (the agent moves
    // on); larger ones close the socket (1009). The agent itself never sends more than 512 KiB.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: HUB_READ_LIMIT_BYTES });
    const downloads = this.downloads;
    const secure = this.opts.tls !== undefined;
    const onRequest: RequestListener = (req, res) => {
      if (req.url === '/health') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, agents: this.onlineNodeIds.length }));
        return;
      }
      if (downloads?.handle(req, res, secure)) return;
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not found' }));
    };
    this.server = this.opts.tls ? createTlsServer({ cert: this.opts.tls.cert, key: this.opts.tls.key }, onRequest) : createServer(onRequest);
    this.server.on('upgrade', (req, socket, head) => void this.onUpgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'EADDRINUSE' ? new Error(`Port ${this.opts.port} (hub, BRIA_HUB_PORT) is already in use.`) : err),
      );
      this.server.listen(this.opts.port, this.opts.host, () => resolve());
    });
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : this.opts.port;
    this.judge = new HeartbeatJudge(this.opts.heartbeatMs);
    this.timers.push(setInterval(() => this.heartbeat(), this.opts.heartbeatMs));
    log.info({ port: this.port, tls: secure, agentBundle: downloads?.current()?.version ?? null }, 'hub.listening');
  }

  /**
   * The LISTEN connection. After it comes back from a drop (Postgres restart, network), every
   * connected node's unacknowledged commands are flushed, since notifications sent meanwhile were lost.
   */
  private async listen(): Promise<void> {
    this.listener = new PgListener({
      databaseUrl: this.opts.databaseUrl,
      channels: ['bria_agent_commands', 'bria_token_revoked', TERMINAL_CHANNEL],
      onNotify: (channel, payload) => this.onNotify(channel, payload),
      onListening: (reconnected) => {
        if (!reconnected || this.closing) return;
        // A revocation's NOTIFY sent while the connection was down is lost: read the tokens again.
        void this.recheckTokens();
        void this.flushAll();
      },
      onError: (err) => this.opts.log.warn({ err: err.message }, 'hub.listen_lost'),
    });
    await this.listener.start();
  }

  private async flushAll(): Promise<void> {
    for (const nodeId of this.onlineNodeIds) await this.flushCommands(nodeId).catch(() => {});
  }

  private reject(socket: Duplex, status: number, code: string, message: string, retryAfterMs?: number): void {
    const body = JSON.stringify({ code, message, retryAfterMs });
    const text = { 401: 'Unauthorized', 403: 'Forbidden', 426: 'Upgrade Required' }[status] ?? 'Not Found';
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\n` + `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }

  private async onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const { db, log } = this.opts;
    if (this.closing) return this.reject(socket, 403, 'shutting_down', 'The hub is shutting down.', 1000);
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/agent') return this.reject(socket, 404, 'protocol', 'Agents connect to /agent.');
    // An agent of another protocol is refused before its socket opens: never half-working.
    const theirs = upgradeProtocol(req.headers);
    if (theirs !== null && protocolMismatch(theirs)) {
      const m = protocolMismatch(theirs)!;
      log.warn({ remote: req.socket.remoteAddress, agentProtocol: theirs }, 'hub.agent_protocol_mismatch');
      return this.reject(socket, 426, 'protocol_mismatch', m.message, m.retryAfterMs);
    }
    const token = bearerToken(req.headers.authorization);
    const found = token ? await findNodeByToken(db, token).catch(() => undefined) : undefined;
    if (!found || found.revoked) {
      log.warn({ remote: req.socket.remoteAddress, reason: !token ? 'no_token' : found ? 'revoked' : 'unknown_token' }, 'hub.agent_refused');
      // Slow the client down: a wrong token is answered after a pause and told to wait long.
      await new Promise((r) => setTimeout(r, 500));
      return this.reject(
        socket,
        401,
        found?.revoked ? 'revoked' : 'bad_token',
        found?.revoked
          ? 'This agent token was revoked. Create a new one in the dashboard.'
          : 'Unknown agent token. Check the token file (--token-file) or BRIA_AGENT_TOKEN.',
        30_000,
      );
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, found.nodeId, found.tokenId));
  }

  private onConnection(ws: WebSocket, nodeId: string, tokenId: string): void {
    const log = this.opts.log.child({ nodeId });
    const conn = new AgentConnection(ws, nodeId, tokenId, log);
    const previous = this.connections.get(nodeId);
    if (previous) {
      log.info('hub.agent_replaced');
      previous.close(CloseCode.replaced, 'replaced by a newer connection of this node');
    }
    this.connections.set(nodeId, conn);
    const helloTimer = setTimeout(() => {
      if (!conn.helloDone) conn.close(CloseCode.protocolError, 'no hello');
    }, 10_000);
    ws.on('message', (raw) => {
      // Heard when it arrives, not when its turn in the queue comes: a slow write ahead of it (a loaded
      // Postgres, a long replay) is the hub's delay, not the agent's silence.
      conn.lastHeard = Date.now();
      conn.serial(() =>
        this.superseded(conn)
          ? Promise.resolve()
          : this.onMessage(conn, raw).catch((err) => {
              log.error({ err: (err as Error).message }, 'hub.message_failed');
              conn.close(CloseCode.protocolError, 'internal error');
            }),
      );
    });
    ws.on('close', (code) => {
      clearTimeout(helloTimer);
      if (this.connections.get(nodeId) === conn) {
        this.connections.delete(nodeId);
        this.drafts.dropNode(nodeId);
        if (!this.closing) void this.liveness(nodeId, () => markNodeOffline(this.opts.db, nodeId, this.now())).catch(() => {});
      }
      log.info({ code }, 'hub.agent_disconnected');
    });
    ws.on('error', (err) => log.warn({ err: err.message }, 'hub.agent_socket_error'));
  }

  /** Runs a node's liveness write after the ones the hub saw before it (see `livenessWrites`). */
  private liveness<T>(nodeId: string, write: () => Promise<T>): Promise<T> {
    const prev = this.livenessWrites.get(nodeId) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(write);
    this.livenessWrites.set(nodeId, next);
    void next
      .catch(() => {})
      .finally(() => {
        if (this.livenessWrites.get(nodeId) === next) this.livenessWrites.delete(nodeId);
      });
    return next;
  }

  /**
   * A connection whose node has a newer one (this socket may have closed while its frames were still
   * queued) handles nothing more: the newer connection replays from the stored mark.
   */
  private superseded(conn: AgentConnection): boolean {
    const current = this.connections.get(conn.nodeId);
    return current !== undefined && current !== conn;
  }

  private async onMessage(conn: AgentConnection, raw: unknown): Promise<void> {
    const { text, bytes } = frameText(raw);
    const tooBig = sizeRefusal(bytes);
    if (tooBig && conn.helloDone) return refuseFrame(this.opts.db, conn, { reason: tooBig, text, bytes });
    const parsed = parseAgentToHub(text);
    // An agent that sent no protocol header says its protocol in the hello.
    const mismatch = !parsed.ok && !conn.helloDone ? protocolMismatch(helloProtocol(raw)) : null;
    if (mismatch) {
      conn.log.warn({ agentProtocol: helloProtocol(raw) }, 'hub.agent_protocol_mismatch');
      conn.send({ type: 'refused', code: 'protocol', message: mismatch.message, retryAfterMs: mismatch.retryAfterMs });
      conn.close(CloseCode.protocolMismatch, 'protocol mismatch');
      return;
    }
    if (!parsed.ok && conn.helloDone) return refuseFrame(this.opts.db, conn, { reason: parsed.error, text, bytes });
    if (!parsed.ok || tooBig) {
      // Before its hello an agent is not known to speak this protocol at all.
      conn.log.warn({ error: (tooBig ?? (parsed.ok ? '' : parsed.error)).slice(0, 200) }, 'hub.bad_frame');
      conn.close(CloseCode.protocolError, 'malformed message');
      return;
    }
    const msg = parsed.message;
    if (!conn.helloDone && msg.type !== 'hello') {
      conn.close(CloseCode.protocolError, 'hello first');
      return;
    }
    switch (msg.type) {
      case 'hello':
        return this.onHello(conn, msg);
      case 'ping':
        conn.send({ type: 'pong', t: msg.t });
        return;
      case 'pong':
        return;
      case 'draft':
        // Ephemeral: relayed to the dashboards, never stored, never acknowledged.
        this.drafts.relay(conn.nodeId, msg);
        return;
      case 'pane':
        this.terminals.relay(conn.nodeId, msg);
        return;
      case 'command_ack':
        conn.acked(msg.id);
        await markCommandAcked(this.opts.db, conn.nodeId, msg.id, this.now());
        return;
      case 'event': {
        const refusal = nulRefusal(text) ?? payloadRefusal(msg.event, msg.payload);
        if (refusal) return refuseFrame(this.opts.db, conn, { reason: refusal, text, bytes, seq: msg.seq });
        const { ackUpTo, stored, event } = await storeAgentEvent(this.opts.db, conn.nodeId, msg);
        conn.send({ type: 'event_ack', upTo: Number(ackUpTo) });
        if (!stored && BigInt(msg.seq) > ackUpTo) {
          // A gap: reconnecting makes the agent replay everything after ackUpTo, in order.
          conn.log.warn({ seq: msg.seq, stored: Number(ackUpTo) }, 'hub.event_gap');
          conn.close(CloseCode.protocolError, 'event sequence gap');
          return;
        }
        if (stored && event) this.opts.onEvent?.(conn.nodeId, event);
        return;
      }
      default:
        msg satisfies never;
    }
  }

  private async onHello(conn: AgentConnection, hello: Hello): Promise<void> {
    const node = await this.liveness(conn.nodeId, () =>
      markNodeOnline(
        this.opts.db,
        conn.nodeId,
        {
          agentVersion: hello.agentVersion,
          hostname: hello.hostname,
          instanceId: hello.instanceId,
          tokenId: conn.tokenId,
          capabilities: hello.capabilities ?? [],
          // Bria offers a CLI for new sessions only where the agent could run it.
          missingExecutors: hello.executors.filter((e) => !e.available).map((e) => e.executor),
          unavailableModes: hello.unavailableModes ?? [],
          executorVersions: executorVersions(hello.executors),
        },
        this.now(),
      ),
    );
    conn.capabilities = new Set(hello.capabilities ?? []);
    conn.helloDone = true;
    conn.send({
      type: 'welcome',
      nodeId: conn.nodeId,
      nodeName: node.name,
      heartbeatMs: this.opts.heartbeatMs,
      lastEventSeq: Number(node.lastEventSeq),
      features: [...HUB_FEATURES],
    });
    conn.log.info({ agentVersion: hello.agentVersion }, 'hub.agent_online');
    // The dashboard shows it too (nodes.list `agentOutdated`, with the update command).
    const latest = this.downloads?.current()?.version ?? null;
    if (agentOutdated(hello.agentVersion, latest)) conn.log.warn({ agentVersion: hello.agentVersion, latest }, 'hub.agent_outdated');
    await this.flushCommands(conn.nodeId);
  }

  /** Sends every unacknowledged command of a node, oldest first. */
  async flushCommands(nodeId: string): Promise<void> {
    const conn = this.connections.get(nodeId);
    if (!conn?.helloDone) return;
    const cmds = await unackedCommands(this.opts.db, nodeId);
    const sent: string[] = [];
    for (const c of cmds) {
      if (conn.isInFlight(c.id)) continue;
      // An agent that did not list an optional command would refuse it as malformed and reconnect:
      // it stays queued (its sender withdraws it), e.g. after a node's agent was downgraded.
      if ((OPTIONAL_COMMANDS as readonly string[]).includes(c.type) && !conn.capabilities.has(c.type)) continue;
      const ok = conn.sendCommand({
        type: 'command',
        id: c.id,
        command: c.type,
        sessionId: c.sessionId ?? undefined,
        payload: (c.payload ?? {}) as Record<string, unknown>,
        issuedAt: c.createdAt.getTime(),
      });
      if (ok) sent.push(c.id);
    }
    await markCommandsSent(this.opts.db, sent, this.now());
  }

  private onNotify(channel: string, payload: string): void {
    if (channel === TERMINAL_CHANNEL) {
      this.terminals.onNotice(payload);
    } else if (channel === 'bria_agent_commands') {
      void this.flushCommands(payload).catch((err) => this.opts.log.warn({ err: (err as Error).message }, 'hub.flush_failed'));
    } else if (channel === 'bria_token_revoked') {
      closeRevoked(this.connections.values(), new Set([payload]));
    }
  }

  /** Revocation: pushed by NOTIFY and re-read after each LISTEN reconnect and on every heartbeat (token-revocation.ts). */
  private recheckTokens(): Promise<void> {
    return recheckTokens(this.opts.db, this.opts.log, this.connections.values());
  }

  private heartbeat(): void {
    hubBeat({
      judge: this.judge,
      connections: this.connections.values(),
      db: this.opts.db,
      log: this.opts.log,
      now: this.now(),
      heartbeatMs: this.opts.heartbeatMs,
    });
    void this.recheckTokens();
  }

  async stop(): Promise<void> {
    this.closing = true;
    for (const t of this.timers) clearInterval(t);
    const ids = [...this.connections.keys()];
    for (const conn of this.connections.values()) conn.close(CloseCode.normal, 'hub shutting down');
    await Promise.all(ids.map((id) => markNodeOffline(this.opts.db, id, this.now()).catch(() => {})));
    this.connections.clear();
    await new Promise<void>((r) => this.wss?.close(() => r()));
    await new Promise<void>((r) => (this.server?.listening ? this.server.close(() => r()) : r()));
    this.server?.closeAllConnections?.();
    await this.listener?.stop();
  }
}
