import { crc32, deflateSync } from 'node:zlib';
import type { FakeTelegram } from './index.ts';

/** A real, decodable PNG of the given size (grey pixels), for photo tests. */
export function makePng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface RawAnswer {
  status: number;
  body: { ok: boolean; result?: unknown; error_code?: number; description?: string; parameters?: { retry_after?: number } };
  ms: number;
}

/** A plain JSON POST to the fake, for checks below the level of a bot library. */
export async function callRaw(fake: FakeTelegram, method: string, params: object = {}, token = fake.token): Promise<RawAnswer> {
  const started = performance.now();
  const res = await fetch(`${fake.apiRoot}/bot${token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  const body = (await res.json()) as RawAnswer['body'];
  return { status: res.status, body, ms: performance.now() - started };
}
