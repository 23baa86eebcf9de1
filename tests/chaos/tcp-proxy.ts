import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 between the agent and the hub, so the suite can cut the WebSocket
 * (both sides see a reset, as after a network drop), delay it, or refuse new connections for a
 * while (a node whose network is away), without touching either program.
 */
export class TcpProxy {
  private server: Server | null = null;
  private pairs = new Set<[Socket, Socket]>();
  /** Extra delay on every chunk in both directions. */
  delayMs = 0;
  /** While true, new connections are closed at once. */
  refusing = false;
  port = 0;

  constructor(private readonly target: () => number) {}

  async start(port = 0): Promise<void> {
    const srv = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = srv;
    this.port = (srv.address() as { port: number }).port;
  }

  private accept(client: Socket): void {
    if (this.refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(this.target(), '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const pipe = (from: Socket, to: Socket) => {
      from.on('data', (chunk) => {
        const d = this.delayMs;
        if (d <= 0) to.write(chunk);
        else {
          // Keep order under delay: pause the reader while the chunk waits.
          from.pause();
          setTimeout(() => {
            if (!to.destroyed) to.write(chunk);
            from.resume();
          }, d);
        }
      });
    };
    pipe(client, upstream);
    pipe(upstream, client);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const s of pair) {
      s.on('error', end);
      s.on('close', end);
    }
  }

  /** Resets every open connection (the peers see ECONNRESET / an abnormal close). */
  cut(): number {
    const n = this.pairs.size;
    for (const [a, b] of this.pairs) {
      a.resetAndDestroy();
      b.resetAndDestroy();
    }
    this.pairs.clear();
    return n;
  }

  get connections(): number {
    return this.pairs.size;
  }

  async stop(): Promise<void> {
    this.cut();
    const srv = this.server;
    this.server = null;
    if (srv) await new Promise<void>((r) => srv.close(() => r()));
  }
}
