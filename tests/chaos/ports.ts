import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The kernel's range of automatic local ports (`net.ipv4.ip_local_port_range`): every outgoing
 * connection without an explicit bind takes one of these, and while it holds one, a listen on that
 * port fails with EADDRINUSE.
 */
export function ephemeralRange(file = '/proc/sys/net/ipv4/ip_local_port_range'): [number, number] {
  try {
    const [lo, hi] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    if (lo && hi && lo <= hi) return [lo, hi];
  } catch {}
  return [32768, 60999];
}

const canListen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/**
 * A free port for a server the chaos suite stops and starts again on the same port (its Postgres
 * on `pg_restart`, the hub on `hub_kill`). It lies below the automatic range, so no other process's
 * outgoing connection can take it while the server is down; only another listener could, and the
 * hub's start handles that by moving (chaos-system.ts). An OS-chosen port (port 0) is always inside
 * the automatic range, which is how batch 290000 most likely lost its hub's.
 */
export async function restartablePort(range = ephemeralRange()): Promise<number> {
  const lo = 10_000;
  const hi = Math.min(range[0], 65_536) - 1;
  if (hi - lo < 1_000) throw new Error(`no room below the automatic port range ${range[0]}–${range[1]}`);
  for (let i = 0; i < 200; i++) {
    const port = lo + Math.floor(Math.random() * (hi - lo + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${lo} and ${hi}`);
}
