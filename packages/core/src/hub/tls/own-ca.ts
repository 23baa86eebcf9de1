// @peculiar/x509's dependency injection (tsyringe) needs the Reflect metadata API.
import 'reflect-metadata';
import { createHash, randomBytes, webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

/**
 * Bria's own certificate authority for the hub's port (issue 30): made with node's WebCrypto and
 * @peculiar/x509, no openssl binary. ECDSA P-256 keys: small certificates (the install command
 * carries the CA's PEM for curl) and fast to make.
 */
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
/** The CA outlives any install: the agents pin it. */
export const CA_DAYS = 20 * 365;
/** The hub's certificate is re-issued (same CA, same pin) long before it ends. */
export const SERVER_DAYS = 2 * 365;
export const RENEW_BEFORE_DAYS = 30;

export interface PemPair {
  cert: string;
  key: string;
}

async function exportKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key as webcrypto.CryptoKey));
  return `-----BEGIN PRIVATE KEY-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return (await webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign'])) as unknown as CryptoKey;
}

const serial = () => `01${randomBytes(15).toString('hex')}`;

/** A new CA: self-signed, may sign end-entity certificates only (path length 0). */
export async function createCa(now: Date, label: string): Promise<PemPair> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=Bria hub CA (${label.replace(/[,=+<>#;"\\]/g, ' ')})`,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + CA_DAYS * DAY_MS),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem'), key: await exportKey(keys.privateKey) };
}

/** The hub's certificate, signed by `ca`, naming `names` (host names and IP addresses). */
export async function issueServerCert(ca: PemPair, names: readonly string[], now: Date): Promise<PemPair> {
  const caCert = new x509.X509Certificate(ca.cert);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=Bria hub',
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + SERVER_DAYS * DAY_MS),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: await importKey(ca.key),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names.map((n) => ({ type: isIP(n) ? ('ip' as const) : ('dns' as const), value: n }))),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { cert: cert.toString('pem'), key: await exportKey(keys.privateKey) };
}

/** SHA-256 of the certificate's DER, lowercase hex without separators: what `--ca-sha256` carries. */
export function certSha256(pem: string): string {
  return createHash('sha256').update(new NodeX509(pem).raw).digest('hex');
}

/** The names a certificate's subjectAltName lists (node's `DNS:a, IP Address:1.2.3.4` text). */
export function certNames(pem: string): string[] {
  const san = new NodeX509(pem).subjectAltName ?? '';
  return san
    .split(', ')
    .map((s) => s.replace(/^(DNS|IP Address):/, ''))
    .filter(Boolean);
}

/** Whether the hub's certificate must be (re-)issued: a name it lacks, or near its end. */
export function needsReissue(pem: string, names: readonly string[], now: Date): boolean {
  const have = new Set(certNames(pem).map(normalName));
  if (names.some((n) => !have.has(normalName(n)))) return true;
  return new Date(new NodeX509(pem).validTo).getTime() - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS;
}

/** IPv6 in its canonical text (node prints SAN IPv6 addresses in full, without brackets). */
function normalName(n: string): string {
  const h = n.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(h) !== 6) return h;
  try {
    return new URL(`http://[${h}]/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return h;
  }
}
