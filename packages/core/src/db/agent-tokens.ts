import { createHash, randomBytes } from 'node:crypto';

/**
 * Agent tokens: 32 random bytes, shown once; only their SHA-256 is stored. Here, beside the
 * repositories that store and look them up (`repos/nodes.ts`); the hub reads the bearer header
 * (`hub/tokens.ts`) and asks the repository.
 */
export function generateAgentToken(): string {
  return `bria_agent_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
