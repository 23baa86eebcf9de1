import type { SessionEventOut } from '@bria/core/protocol';
import type { HostEvent, SessionHost } from '../executors/index.ts';
import { permissionDialogOnScreen } from '../executors/session-delivery.ts';
import { crashPoint } from '../test-crash.ts';
import { safeIdentity } from './cli-process.ts';
import { mapHostEvent, reportIdentity } from './host-event-map.ts';
import type { SessionRuntime } from './session-runtime.ts';

/** How far back a hook request counts as the one that explains a permission dialog seen on screen. */
export const SCREEN_HOOK_WINDOW_MS = 5_000;
/** How long such a dialog's screen notice waits for the hook's request before it is sent anyway. */
export const SCREEN_HOOK_WAIT_MS = 30_000;
/** The CLIs' permission and question dialogs (docs/cli-facts.md): the ones Bria's hooks report. */
const PERMISSION_DIALOG =
  /Do you want to (proceed|make this edit|create|allow)|Enter to select · ↑\/↓ to navigate|Would you like to run the following command/i;

/**
 * What the hook channel learns from the journal: a tool call whose result is written can ask nothing
 * any more (the typing gate lets follow-ups through again); at a turn's end no tool call is open,
 * and a Claude request still pending without its dialog on the screen was answered at the computer
 * (a turn cannot end while its dialog is open; Claude leaves the hook running then).
 */
function noteToolFacts(rt: SessionRuntime, sessionId: string, host: SessionHost, e: HostEvent): void {
  const hooks = rt.o.hooks;
  if (!hooks) return;
  if (e.type === 'activity') {
    for (const item of e.activity.items) if (item.status !== 'running') hooks.toolEnded(sessionId, item.ref);
    return;
  }
  if (e.type !== 'completed' && e.type !== 'interrupted' && e.type !== 'api_error' && e.type !== 'exited') return;
  hooks.turnEnded(sessionId);
  const open = hooks.pending(sessionId).filter((r) => r.executor === 'claude');
  if (open.length === 0) return;
  const pane = host.identity()?.paneId;
  void (async () => {
    const screen =
      pane && e.type !== 'exited'
        ? await rt
            .tmuxFor(host.identityOrNull())
            .capture(pane)
            .catch(() => null)
        : '';
    if (screen === null || permissionDialogOnScreen(screen)) return;
    for (const r of open) {
      hooks.settleAtComputer(
        r.requestId,
        `the turn ended (${e.type}) with the request's hook still waiting and no dialog on the screen: it was answered at the computer`,
      );
    }
  })();
}

/** Turn facts kept per session for a replay under a newer generation. */
export const RECENT = 24;

/**
 * What a session's CLI host observed (receipt, final, turn end, exit): written to the session's
 * record first, then sent to the hub. Events of a host that was replaced since are dropped.
 */
export function recordHostEvent(rt: SessionRuntime, sessionId: string, host: SessionHost, e: HostEvent, screenChecked = false): void {
  if (rt.hosts.get(sessionId) !== host) return;
  const hooks = rt.o.hooks;
  if (e.type === 'blocked_on_prompt' && hooks && !screenChecked && PERMISSION_DIALOG.test(e.promptText)) {
    // Screen reading is the fallback for dialogs no hook reports. Claude shows its permission dialog
    // while Bria's hook runs, so the screen often sees it before the hook's request lands (later
    // still on a busy machine, where the hook program takes a while to start): the notice waits for
    // that request, and is sent only if none comes within the bound (the hook could not run).
    const seenAt = Date.now();
    hooks
      .waitFor(
        (r) => r.sessionId === sessionId && (r.state === 'pending' || r.state === 'answered' || Date.parse(r.receivedAt) >= seenAt - SCREEN_HOOK_WINDOW_MS),
        SCREEN_HOOK_WAIT_MS,
      )
      .then(
        () => undefined,
        () => recordHostEvent(rt, sessionId, host, e, true),
      );
    return;
  }
  if (hooks) noteToolFacts(rt, sessionId, host, e);
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
  const turnEvents = outs
    .filter((x) => x.event.startsWith('turn_'))
    .map(({ event, payload: { identity: _, ...payload } }) => ({ event, payload }) as SessionEventOut);
  if (turnEvents.length > 0) rec = rt.registry.put(sessionId, { recent: [...(rec.recent ?? []), ...turnEvents].slice(-RECENT) });
  const ended = e.type === 'completed' || e.type === 'interrupted' || e.type === 'api_error' || e.type === 'unknown' ? e.messageId : null;
  if (ended) {
    const turns = rec.turns.filter((t) => t.messageId !== ended);
    // With no turn open, everything read so far is settled: a restart may continue from here.
    rt.registry.put(sessionId, {
      turns,
      unconfirmed: rec.unconfirmed.filter((m) => m !== ended),
      ...(turns.length === 0 ? { journalOffset: host.journalOffset } : {}),
    });
  }
  if (e.type === 'exited' && !e.expected) rt.registry.put(sessionId, { status: 'exited' });
  if (e.type === 'accepted') crashPoint('deliver:accepted');
}
