import type { Db } from '../db/client.ts';
import { deadTokenIds } from '../db/repos/nodes.ts';
import type { Logger } from '../log.ts';
import { CloseCode } from '../protocol/index.ts';
import type { AgentConnection } from './agent-connection.ts';

/** Closes every socket whose agent token is in `tokenIds`, telling the agent why. */
export function closeRevoked(connections: Iterable<AgentConnection>, tokenIds: ReadonlySet<string>): void {
  for (const conn of connections) {
    if (!tokenIds.has(conn.tokenId)) continue;
    conn.log.warn({ tokenId: conn.tokenId }, 'hub.agent_token_revoked');
    conn.send({ type: 'refused', code: 'revoked', message: 'This agent token was revoked.', retryAfterMs: 30_000 });
    conn.close(CloseCode.revoked, 'token revoked');
  }
}

/**
 * Revocation is pushed by NOTIFY, which a dropped LISTEN connection misses (and a socket upgraded
 * just as its token was revoked never hears): every socket's token is read again after each LISTEN
 * reconnect and on every heartbeat, in one query (issue 30).
 */
export async function recheckTokens(db: Db, log: Logger, connections: Iterable<AgentConnection>): Promise<void> {
  const open = [...connections];
  const ids = [...new Set(open.map((c) => c.tokenId))];
  const dead = await deadTokenIds(db, ids).catch((err: Error) => {
    log.warn({ err: err.message }, 'hub.token_recheck_failed');
    return [];
  });
  if (dead.length) closeRevoked(open, new Set(dead));
}
