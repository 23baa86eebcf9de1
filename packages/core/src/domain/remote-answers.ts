/**
 * "Remote answers are off on this computer" (issue 30): an agent whose hooks channel could not be
 * secured (no private folder short enough for a Unix socket, a folder not its own, or the socket
 * would not open) gives the CLIs no hook settings and says why in its hello, as one of these
 * features. The dashboard shows the reason on the computer's card.
 */
export const REMOTE_ANSWERS_OFF_REASONS = ['no_private_short_path', 'folder_not_private', 'listen_failed'] as const;
export type RemoteAnswersOffReason = (typeof REMOTE_ANSWERS_OFF_REASONS)[number];

export const REMOTE_ANSWERS_OFF_FEATURES = REMOTE_ANSWERS_OFF_REASONS.map((r) => `remote_answers_off:${r}` as const);

/** The reason an agent's hello gave (its capabilities), or null: remote answers are on (or unknown). */
export function remoteAnswersOff(capabilities: readonly string[]): RemoteAnswersOffReason | null {
  for (const r of REMOTE_ANSWERS_OFF_REASONS) if (capabilities.includes(`remote_answers_off:${r}`)) return r;
  return null;
}
