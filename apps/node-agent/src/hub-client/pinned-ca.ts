import { createHash, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { connect, type PeerCertificate } from 'node:tls';

/**
 * `--ca-sha256`: the agent pins the hub's certificate authority by the SHA-256 of its certificate,
 * as SSH's known hosts pin a host key (issue 30). Before the WebSocket is opened, one TLS handshake
 * without a byte of data fetches the chain the hub presents; the certificate in it whose SHA-256 is
 * the pin becomes the only CA the WebSocket's TLS trusts (node's `ca` replaces the system's list),
 * so the token is only ever sent over a chain that verifies up to the pinned CA. No certificate in
 * the chain with that hash: refused, with both fingerprints in the message.
 */
export class PinMismatchError extends Error {
  constructor(
    readonly host: string,
    readonly pinned: string,
    readonly presented: string[],
  ) {
    super(
      `The hub at ${host} did not present the certificate authority this agent pins (--ca-sha256 ${pinned}); it presented ${presented.join(', ') || 'no certificate'}. ` +
        `Someone may be intercepting the connection, or the hub's certificates were made anew (then copy a fresh install command from the dashboard). Not connecting.`,
    );
    this.name = 'PinMismatchError';
  }
}

/** Lowercase hex without separators; accepts `AB:CD:…` as browsers and openssl print it. */
export function normalizePin(pin: string): string | null {
  const hex = pin.replace(/[:\s]/g, '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

function chainOf(leaf: PeerCertificate & { issuerCertificate?: PeerCertificate }): PeerCertificate[] {
  const out: PeerCertificate[] = [];
  let c: (PeerCertificate & { issuerCertificate?: PeerCertificate }) | undefined = leaf;
  while (c?.raw && !out.includes(c) && out.length < 10) {
    out.push(c);
    c = c.issuerCertificate as typeof c;
  }
  return out;
}

/** The pinned CA's certificate (PEM) from the chain the hub at `url` presents. */
export function fetchPinnedCa(url: string, pin: string, timeoutMs = 10_000): Promise<string> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || 443);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) });
    const timer = setTimeout(() => socket.destroy(new Error(`no TLS handshake with ${u.host} within ${timeoutMs / 1000} s`)), timeoutMs);
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const chain = chainOf(socket.getPeerCertificate(true));
      socket.destroy();
      const hashes = chain.map((c) => createHash('sha256').update(c.raw).digest('hex'));
      const i = hashes.indexOf(pin);
      if (i < 0) return reject(new PinMismatchError(u.host, pin, hashes.slice(-1)));
      const ca = new X509Certificate(chain[i]!.raw);
      if (!ca.ca) return reject(new PinMismatchError(u.host, pin, hashes.slice(-1)));
      resolve(ca.toString());
    });
  });
}
