import { createDecipheriv, createECDH, createPublicKey, type ECDH, hkdfSync, randomBytes, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local push service for tests (issue 32): it stands where a browser's push service (FCM,
 * Mozilla autopush, Apple) would, records every request the hub sends, answers with the status the
 * test asks for, and decrypts the bodies with the subscription's private keys as the browser would
 * (RFC 8291 aes128gcm), so a test checks what the device would really read.
 */

/** A browser's side of a subscription: a P-256 key pair and a 16-byte auth secret. */
export interface BrowserKeys {
  ecdh: ECDH;
  authSecret: Buffer;
  /** What `PushSubscription.toJSON().keys` holds. */
  keys: { p256dh: string; auth: string };
}

export function browserKeys(): BrowserKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const authSecret = randomBytes(16);
  return { ecdh, authSecret, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') } };
}

/**
 * RFC 8291 §3–4 with RFC 8188 aes128gcm: the header (salt, record size, the sender's public key),
 * then one record (a push is at most 4 KiB) of AES-128-GCM ciphertext and tag, padded with a 0x02
 * delimiter and zeros.
 */
export function decryptPush(body: Buffer, browser: BrowserKeys): Buffer {
  if (body.length < 21 + 65 + 17) throw new Error(`push body too short: ${body.length} bytes`);
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20] ?? 0;
  if (idlen !== 65) throw new Error(`keyid must be the sender's 65-byte public key, got ${idlen}`);
  const asPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  if (record.length > rs) throw new Error(`more than one record (${record.length} > rs ${rs})`);
  const ecdhSecret = browser.ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), browser.ecdh.getPublicKey(), asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, browser.authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('the last record must end with the 0x02 delimiter');
  return padded.subarray(0, end);
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

/**
 * Checks an RFC 8292 `Authorization: vapid t=<JWT>, k=<key>` header: the key is `publicKey`, the
 * JWT is ES256-signed by it, and returns its claims (the caller checks `aud` and `exp`).
 */
export function verifyVapid(authorization: string | undefined, publicKey: string): VapidClaims {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!m?.[1] || !m[2]) throw new Error(`not a vapid Authorization header: ${authorization}`);
  if (m[2] !== publicKey) throw new Error('the vapid key is not the server key');
  const [h, p, s] = m[1].split('.');
  if (!h || !p || !s) throw new Error('malformed JWT');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: string; typ?: string };
  if (header.alg !== 'ES256') throw new Error(`JWT alg ${header.alg}`);
  const point = Buffer.from(publicKey, 'base64url');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') },
    format: 'jwk',
  });
  const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  if (!ok) throw new Error('the JWT signature does not verify with the vapid key');
  return JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as VapidClaims;
}

export interface ReceivedPush {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  status: number;
  at: number;
}

/**
 * The local push service: `endpoint(name)` is a subscription's URL; `answer(name, statuses)` queues
 * its answers (default 201). The status `HANG` never answers: the request is held open until the
 * sender gives up (its timeout) or the endpoint stops, as an unreachable push service would.
 */
export const HANG = 0;
export class PushEndpoint {
  readonly received: ReceivedPush[] = [];
  private readonly held = new Set<http.ServerResponse>();
  private readonly answers = new Map<string, number[]>();
  private readonly waiters: { pred: () => boolean; resolve: () => void }[] = [];
  private server: http.Server | undefined;
  private port = 0;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const queue = this.answers.get(path);
        const status = queue && queue.length > 0 ? (queue.shift() as number) : 201;
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks), status, at: Date.now() });
        if (status === HANG) {
          this.held.add(res);
          res.on('close', () => this.held.delete(res));
        } else res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 201 ? '' : `status ${status}`);
        for (const w of [...this.waiters]) {
          if (!w.pred()) continue;
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve();
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  endpoint(name: string): string {
    return `${this.origin}/push/${name}`;
  }

  /** The next answers to pushes for `name`, in order; then 201. */
  answer(name: string, statuses: number[]): void {
    this.answers.set(`/push/${name}`, [...statuses]);
  }

  to(name: string): ReceivedPush[] {
    return this.received.filter((r) => r.path === `/push/${name}`);
  }

  /** Resolves once `name` has received `count` pushes (event-driven: no polling), or fails after `ms`. */
  waitFor(name: string, count: number, ms = 20_000): Promise<ReceivedPush[]> {
    const pred = () => this.to(name).length >= count;
    if (pred()) return Promise.resolve(this.to(name));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${this.to(name).length} of ${count} pushes to ${name}`)), ms);
      this.waiters.push({
        pred,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.to(name));
        },
      });
    });
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
