import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ephemeralRange, restartablePort } from './ports.ts';

const open: (Server | Socket)[] = [];
afterEach(() => {
  for (const h of open.splice(0)) 'destroy' in h ? h.destroy() : h.close();
});
const listen = (port: number): Promise<string> =>
  new Promise((resolve) => {
    const srv = createServer();
    open.push(srv);
    srv.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    srv.listen(port, '127.0.0.1', () => resolve('listening'));
  });

describe('ports the chaos suite restarts servers on', () => {
  it('an outgoing connection holds a port of the automatic range, and a listen on it fails meanwhile (why the hub lost its port)', async () => {
    expect(await listen(0)).toBe('listening');
    const target = (open[0] as Server).address() as { port: number };
    const client = connect(target.port, '127.0.0.1');
    open.push(client);
    await new Promise<void>((resolve, reject) => client.once('connect', resolve).once('error', reject));
    const local = client.localPort ?? 0;
    const [lo, hi] = ephemeralRange();
    expect(local).toBeGreaterThanOrEqual(lo);
    expect(local).toBeLessThanOrEqual(hi);
    expect(await listen(local)).toBe('EADDRINUSE');
  });

  it('restartablePort lies below the automatic range and can be listened on', async () => {
    const [lo] = ephemeralRange();
    for (let i = 0; i < 20; i++) {
      const port = await restartablePort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(lo);
      expect(await listen(port)).toBe('listening');
      for (const h of open.splice(0)) 'destroy' in h ? h.destroy() : h.close();
    }
    expect(await restartablePort([20_000, 60_999])).toBeLessThan(20_000);
    await expect(restartablePort([10_500, 60_999])).rejects.toThrow('no room below');
  });

  it('reads the kernel range, and falls back to the Linux default without it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bria-ports-'));
    const file = path.join(dir, 'range');
    writeFileSync(file, '40000\t50000\n');
    expect(ephemeralRange(file)).toEqual([40_000, 50_000]);
    expect(ephemeralRange(path.join(dir, 'missing'))).toEqual([32_768, 60_999]);
  });
});
