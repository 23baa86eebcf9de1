import type { Executor } from './types.ts';

// Both CLIs name a session by a UUID: Claude a v4 one (chosen by Bria with --session-id), Codex a
// v7 one (its thread id, which is also the rollout file's suffix). Any other value the hub sends
// for a resume is refused before a CLI is started: it lands on the CLI's command line and in paths.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const NAMES: Record<Executor, string> = { claude: 'Claude', codex: 'Codex' };

/** Null when `id` has the executor's native id format; else the refusal to show the user. */
export function nativeIdRefusal(executor: Executor, id: string): string | null {
  if (UUID.test(id)) return null;
  const shown = JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id);
  return `refused: ${shown} is not a ${NAMES[executor] ?? executor} session id (a UUID such as 01a23651-d848-7b63-9a2f-558796e706b5); no CLI was started`;
}
