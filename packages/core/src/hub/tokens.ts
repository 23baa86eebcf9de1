import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Agent tokens: 32 random bytes, shown once; only their SHA-256 is stored. */
export function generateAgentToken(): string {
  return `bria_agent_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Reads `Authorization: Bearer <token>`; anything else is no credential. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+([A-Za-z0-9_\-.~+/=]{10,512})$/.exec(header?.trim() ?? '');
  return m?.[1];
}
