import type { Result, SessionRuntime } from './session-runtime.ts';

/**
 * `compact_context`: the CLI's own `/compact`, after the session's earlier commands (the command
 * chain) and only while its CLI is idle and no permission request is open (a typed command would
 * answer that dialog). The answer carries the CLI's own words from its journal.
 */
export async function compactContext(rt: SessionRuntime, sessionId: string): Promise<Result> {
  const host = rt.hosts.get(sessionId);
  const rec = rt.registry.get(sessionId);
  if (!host || !rec || rec.status !== 'live') return { ok: false, code: 'not_found', error: 'no live session here' };
  if ((rt.o.hooks?.pending(sessionId).length ?? 0) > 0) return { ok: false, code: 'blocked', error: 'a permission request is waiting for an answer' };
  const r = await host.compact();
  if (r.ok) return { ok: true, detail: r.detail };
  return { ok: false, code: 'failed', error: r.reason, ...(r.typed ? { unconfirmed: true } : {}) };
}
