import type { SessionEventOut } from '@bria/core/protocol';
import type { HostEvent, SessionHost } from '../executors/index.ts';
import { crashPoint } from '../test-crash.ts';
import { safeIdentity } from './cli-process.ts';
import { mapHostEvent, reportIdentity } from './host-event-map.ts';
import type { SessionRuntime } from './session-runtime.ts';

/** How long a dialog seen on screen waits for a hook request that explains it (and how far back one counts). */
export const SCREEN_HOOK_WINDOW_MS = 2_500;

/** Turn facts kept per session for a replay under a newer generation. */
export const RECENT = 24;

/**
 * What a session's CLI host observed (receipt, final, turn end, exit): written to the session's
 * record first, then sent to the hub. Events of a host that was replaced since are dropped.
 */
export function recordHostEvent(rt: SessionRuntime, sessionId: string, host: SessionHost, e: HostEvent, screenChecked = false): void {
  if (rt.hosts.get(sessionId) !== host) return;
  const hooks = rt.o.hooks;
  if (e.type === 'blocked_on_prompt' && hooks && !screenChecked) {
    // Screen reading is the fallback for dialogs no hook reports. Claude shows its permission dialog
    // while Bria's hook runs, so the screen often sees it a moment before the hook's request lands:
    // decide a little later, and stay silent when a hook reported a request around that time.
    const seenAt = Date.now();
    setTimeout(() => {
      if (!hooks.reportedSince(sessionId, seenAt - SCREEN_HOOK_WINDOW_MS)) recordHostEvent(rt, sessionId, host, e, true);
    }, SCREEN_HOOK_WINDOW_MS).unref();
    return;
  }
  let rec = rt.registry.get(sessionId);
  if (!rec) return;
  const journalBefore = rec.identity?.journalPath ?? null;
  if (e.type === 'accepted') {
    crashPoint('deliver:receipt');
    rec = rt.registry.put(sessionId, {
      turns: [...rec.turns.filter((t) => t.messageId !== e.messageId), { messageId: e.messageId, nativeRef: e.nativeRef }],
      unconfirmed: rec.unconfirmed.filter((m) => m !== e.messageId),
      deliveries: rec.deliveries?.map((d) => (d.messageId === e.messageId ? { ...d, nativeRef: e.nativeRef } : d)),
      identity: safeIdentity(host) ?? rec.identity,
    });
  }
  const outs = mapHostEvent(rec, e);
  // A Codex rollout path is known only once the first prompt created the file (and a Claude journal
  // path left out at a re-attach before it existed): the hub's stored identity learns it here.
  if (e.type === 'accepted' && rec.identity?.journalPath && rec.identity.journalPath !== journalBefore) {
    for (const out of outs) if (out.event === 'turn_accepted') out.payload.identity = reportIdentity(rec.identity);
  }
  for (const out of outs) rt.emitEvent(sessionId, out);
  // Kept for a replay under a newer generation, without the identity: by then it may name a dead process.
  const turnEvents = outs.filter((x) => x.event.startsWith('turn_')).map(({ event, payload: { identity: _, ...payload } }) => ({ event, payload }) as SessionEventOut);
  if (turnEvents.length > 0) rec = rt.registry.put(sessionId, { recent: [...(rec.recent ?? []), ...turnEvents].slice(-RECENT) });
  const ended = (e.type === 'completed' || e.type === 'interrupted' || e.type === 'api_error' || e.type === 'unknown') ? e.messageId : null;
  if (ended) {
    const turns = rec.turns.filter((t) => t.messageId !== ended);
    // With no turn open, everything read so far is settled: a restart may continue from here.
    rt.registry.put(sessionId, { turns, unconfirmed: rec.unconfirmed.filter((m) => m !== ended), ...(turns.length === 0 ? { journalOffset: host.journalOffset } : {}) });
  }
  if (e.type === 'exited' && !e.expected) rt.registry.put(sessionId, { status: 'exited' });
  if (e.type === 'accepted') crashPoint('deliver:accepted');
}
