import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../../../../testkit/src/scratch.ts';
import { ensureHubTls, hubTlsNames } from './hub-tls-files.ts';
import { certNames, certSha256, needsReissue } from './own-ca.ts';

const lo = { lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '', mac: '', cidr: null }] } as unknown as Parameters<
  typeof hubTlsNames
>[0]['interfaces'];

describe("the hub's own CA (no openssl)", () => {
  it('makes a CA and a hub certificate signed by it, keys 0600 in a 0700 folder, and keeps the CA across starts', async () => {
    const dir = path.join(scratchDir('bria-own-ca-'), 'tls');
    const now = new Date('2026-12-06T12:00:00Z');
    const names = hubTlsNames({ hostname: 'Desk', extra: ['bria.example.net', '0.0.0.0'], interfaces: lo });
    expect(names).toEqual(['localhost', '127.0.0.1', '::1', 'desk', 'bria.example.net']);
    const first = await ensureHubTls({ dir, names, label: 'desk', now });
    expect(first.made).toBe('ca');
    for (const f of [first.keyFile, path.join(dir, 'ca-key.pem')]) expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const ca = new X509Certificate(readFileSync(first.caFile));
    const chain = readFileSync(first.certFile, 'utf8');
    const leaf = new X509Certificate(chain);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(chain).toContain(first.caPem.trim());
    expect(certNames(chain).sort()).toEqual(['0:0:0:0:0:0:0:1', '127.0.0.1', 'bria.example.net', 'desk', 'localhost']);
    expect(first.caSha256).toBe(certSha256(first.caPem));
    expect(first.caSha256).toMatch(/^[0-9a-f]{64}$/);

    // Same names: nothing made. A new address: the hub's certificate again, from the same CA (same pin).
    expect((await ensureHubTls({ dir, names, label: 'desk', now })).made).toBe('none');
    const more = await ensureHubTls({ dir, names: [...names, '192.0.2.7'], label: 'desk', now });
    expect(more.made).toBe('cert');
    expect(more.caSha256).toBe(first.caSha256);
    expect(certNames(readFileSync(more.certFile, 'utf8'))).toContain('192.0.2.7');
  });

  it('re-issues the hub certificate for a missing name or near its end, not otherwise', async () => {
    const dir = scratchDir('bria-own-ca-renew-');
    const now = new Date('2026-12-06T12:00:00Z');
    const t = await ensureHubTls({ dir, names: ['localhost', '::1'], label: 'x', now });
    const pem = readFileSync(t.certFile, 'utf8');
    expect(needsReissue(pem, ['localhost', '::1'], now)).toBe(false);
    expect(needsReissue(pem, ['localhost', 'other'], now)).toBe(true);
    expect(needsReissue(pem, ['localhost'], new Date(now.getTime() + 720 * 86_400_000))).toBe(true);
  });
});
