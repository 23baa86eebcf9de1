import type { Result, SessionRuntime } from './session-runtime.ts';

/** `interrupt`: the CLI's own interrupt key for the running turn; it does not wait behind other commands. */
export async function interruptTurn(rt: SessionRuntime, sessionId: string): Promise<Result> {
  const host = rt.hosts.get(sessionId);
  if (!host) return { ok: false, error: 'no live session here' };
  return { ok: true, ...(await host.interrupt()) };
}
