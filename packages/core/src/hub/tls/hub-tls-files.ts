import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { certSha256, createCa, issueServerCert, needsReissue } from './own-ca.ts';

export interface HubTlsFiles {
  dir: string;
  /** The CA's certificate (PEM): this computer's agent and the dashboard's health check trust it. */
  caFile: string;
  /** The hub's certificate followed by the CA's (the whole chain: the agent finds its pin in it). */
  certFile: string;
  keyFile: string;
  caPem: string;
  /** SHA-256 of the CA certificate (hex): the install command's `--ca-sha256`. */
  caSha256: string;
  /** What this start did: made the CA, re-issued the hub's certificate, or used both as they were. */
  made: 'ca' | 'cert' | 'none';
}

/**
 * The names the hub's certificate lists: loopback, this computer's host name and every address
 * of its network interfaces, and the hosts the configuration names (public URLs, BRIA_TLS_NAMES).
 * Pure but for `interfaces` (os.networkInterfaces() by default).
 */
export function hubTlsNames(o: { hostname: string; extra: readonly (string | undefined)[]; interfaces?: ReturnType<typeof networkInterfaces> }): string[] {
  const names = new Set<string>(['localhost', '127.0.0.1', '::1']);
  if (o.hostname) names.add(o.hostname.toLowerCase());
  for (const list of Object.values(o.interfaces ?? networkInterfaces())) {
    for (const a of list ?? []) if (!a.address.startsWith('fe80:')) names.add(a.address.toLowerCase());
  }
  for (const e of o.extra) {
    const h = e
      ?.trim()
      .replace(/^\[|\]$/g, '')
      .toLowerCase();
    if (h && h !== '0.0.0.0' && h !== '::' && /^[a-z0-9.:-]+$/.test(h)) names.add(h);
  }
  return [...names];
}

function writePrivate(file: string, text: string): void {
  // Written aside and renamed: a crash never leaves half a key; 0600 from the first byte.
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/**
 * The hub's TLS material in `dir` (Bria's data folder's `tls/`, 0700): the CA is made once and kept
 * (the agents pin it); the hub's certificate is re-issued by it when a name is missing (a new
 * address) or its end is near. Keys are 0600. Called by the launcher before the hub starts, and by
 * `npm run nodes` for the pin.
 */
export async function ensureHubTls(o: { dir: string; names: readonly string[]; label: string; now?: Date }): Promise<HubTlsFiles> {
  const now = o.now ?? new Date();
  mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  chmodSync(o.dir, 0o700);
  const caFile = path.join(o.dir, 'ca.pem');
  const caKeyFile = path.join(o.dir, 'ca-key.pem');
  const certFile = path.join(o.dir, 'hub.pem');
  const keyFile = path.join(o.dir, 'hub-key.pem');
  let made: HubTlsFiles['made'] = 'none';
  if (!existsSync(caFile) || !existsSync(caKeyFile)) {
    const ca = await createCa(now, o.label);
    writePrivate(caKeyFile, ca.key);
    writeFileSync(caFile, ca.cert, { mode: 0o644 });
    made = 'ca';
  }
  const ca = { cert: readFileSync(caFile, 'utf8'), key: readFileSync(caKeyFile, 'utf8') };
  const current = existsSync(certFile) && existsSync(keyFile) ? readFileSync(certFile, 'utf8') : null;
  if (made === 'ca' || !current || !current.includes(ca.cert.trim()) || needsReissue(current, o.names, now)) {
    const server = await issueServerCert(ca, o.names, now);
    writePrivate(keyFile, server.key);
    writeFileSync(`${certFile}.tmp`, `${server.cert.trim()}\n${ca.cert.trim()}\n`, { mode: 0o644 });
    renameSync(`${certFile}.tmp`, certFile);
    if (made === 'none') made = 'cert';
  }
  return { dir: o.dir, caFile, certFile, keyFile, caPem: ca.cert, caSha256: certSha256(ca.cert), made };
}

/** The pin of an existing CA file, or null (no own CA made yet). */
export function readCaSha256(dir: string): string | null {
  const caFile = path.join(dir, 'ca.pem');
  return existsSync(caFile) ? certSha256(readFileSync(caFile, 'utf8')) : null;
}
