/**
 * Reconnect delays for the agent's outbound connection, as a fixed table: quick at first (a hub
 * restart takes a few seconds), then settling at 30 s so a long outage costs nearly nothing.
 * A refused credential starts at the slow end so a wrong token never hammers the hub.
 */
export const RECONNECT_DELAYS_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 30_000] as const;
export const BAD_TOKEN_DELAY_MS = 30_000;
/**
 * A hub of another protocol version will not change by itself soon: the agent says why once and
 * asks again every 10 minutes (the server or the agent gets updated meanwhile), never fast.
 */
export const PROTOCOL_MISMATCH_DELAY_MS = 10 * 60_000;

export function reconnectDelay(attempt: number, jitter01: number): number {
  const base = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)] ?? 30_000;
  // ±20 % so many agents restarted together do not reconnect in lock-step.
  return Math.round(base * (0.8 + 0.4 * Math.min(Math.max(jitter01, 0), 1)));
}
