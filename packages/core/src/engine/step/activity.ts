import { type ActivityReport, type CurrentActivity, currentActivity, supersedes } from '../../domain/index.ts';
import { listTurnSteps, upsertActivity } from '../../db/repos/activity.ts';
import { findTurnMessage } from '../../db/repos/messages.ts';
import { patchSession, type SessionRow } from '../../db/repos/sessions.ts';
import type { ActivityPayload } from '../../protocol/index.ts';
import type { StoredEvent } from '../stored-event.ts';
import type { StepContext } from './step-context.ts';

/**
 * Live progress of a turn (an `activity` event): its rows are stored by ref (a replay updates them),
 * the session's current activity moves on unless the report is older than what it shows, and the
 * context use is kept. Display only: no state, queue outcome or version changes here. The session
 * row's update raises the dashboard's change NOTIFY; the bot's progress edits follow `activityAt`.
 */
export async function recordActivity(ctx: StepContext, row: SessionRow, ev: StoredEvent, report: ActivityReport): Promise<void> {
  const a = report as ActivityPayload;
  const mainOf = new Map<string, string | null>();
  const items = [];
  for (const it of a.items) {
    const turn = it.nativeTurnId;
    if (turn !== undefined && !mainOf.has(turn)) {
      const m = await findTurnMessage(ctx.tx, row.id, { nativeTurnId: turn });
      mainOf.set(turn, m ? (m.mainMessageId ?? m.id) : null);
    }
    items.push({ ...it, messageId: turn === undefined ? null : (mainOf.get(turn) ?? null) });
  }
  await upsertActivity(ctx.tx, row.id, ev.seq, items);

  const patch: Parameters<typeof patchSession>[2] = {};
  const newest = a.items.at(-1);
  if (newest) {
    const turn = newest.nativeTurnId ?? null;
    const now = currentActivity(await listTurnSteps(ctx.tx, row.id, turn), turn);
    const shown = row.activity as CurrentActivity | null;
    // Unchanged (a late detail of an older step): no write, so no card edit is asked for.
    if (now && supersedes(now, shown) && !sameFlat(now, shown)) {
      patch.activity = now as object;
      patch.activityAt = ctx.now;
    }
  }
  if (a.context) {
    // A change of context use or compactions is news for the card too (`activityAt` drives its edits).
    if (a.context.usedTokens !== row.contextUsed || a.context.compactions !== row.compactions) patch.activityAt = ctx.now;
    patch.contextUsed = a.context.usedTokens;
    patch.compactions = a.context.compactions;
    if (a.context.windowTokens !== undefined) {
      patch.contextWindow = a.context.windowTokens;
      patch.contextWindowSource = a.context.windowSource ?? null;
    }
  }
  if (Object.keys(patch).length > 0) await patchSession(ctx.tx, row.id, patch);
}

/** Equal flat records whatever their key order (jsonb stores keys in its own order). */
function sameFlat(a: object, b: object | null): boolean {
  if (!b) return false;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return JSON.stringify(a, keys) === JSON.stringify(b, keys);
}
