/**
 * Reconnect delays for the agent's outbound connection: exponential backoff with full jitter
 * (docs/reliability.md, "Reconnect backoff"). Attempt n (0 = the first retry after a loss) waits a
 * uniformly random time in [RECONNECT_FLOOR_MS, min(RECONNECT_CAP_MS, RECONNECT_BASE_MS · 2^n)]:
 * 0.25–0.5 s, 0.25–1 s, 0.25–2 s … up to 0.25–30 s. The floor keeps a closing hub from being asked
 * again at once; the full jitter spreads many agents restarted together. The attempt count goes back
 * to 0 only after a connection that stayed online `RECONNECT_HEALTHY_MS`: a hub that accepts and then
 * closes every connection (a frame it cannot take) is asked ever more slowly, never in a loop.
 * A refused credential starts at the slow end so a wrong token never hammers the hub.
 */
export const RECONNECT_BASE_MS = 500;
export const RECONNECT_CAP_MS = 30_000;
export const RECONNECT_FLOOR_MS = 250;
export const RECONNECT_HEALTHY_MS = 10_000;
export const BAD_TOKEN_DELAY_MS = 30_000;
/**
 * A hub of another protocol version will not change by itself soon: the agent says why once and
 * asks again every 10 minutes (the server or the agent gets updated meanwhile), never fast.
 */
export const PROTOCOL_MISMATCH_DELAY_MS = 10 * 60_000;

/** The longest wait of attempt `attempt` (the jitter picks in [floor, this]). */
export function reconnectCeiling(attempt: number): number {
  const n = Math.max(0, Math.min(Math.floor(attempt), 30));
  return Math.min(RECONNECT_CAP_MS, RECONNECT_BASE_MS * 2 ** n);
}

export function reconnectDelay(attempt: number, jitter01: number): number {
  const r = Math.min(Math.max(Number.isFinite(jitter01) ? jitter01 : 1, 0), 1);
  return Math.round(RECONNECT_FLOOR_MS + r * (reconnectCeiling(attempt) - RECONNECT_FLOOR_MS));
}
