import { getSessionRow } from '../db/repos/sessions.ts';
import type { EngineDeps } from './session-work.ts';
import { pushEvent } from './step/push-notices.ts';

/** How long before a session's lifetime ends its devices are told (issue 32: "a lifetime about to end"). */
export const LIFETIME_NOTICE_MS = 15 * 60_000;

/**
 * Pushes `lifetime_ending` for each open session whose lifetime ends within `LIFETIME_NOTICE_MS`.
 * Level-triggered (a minute's scan, not a timer of its own): the push's key holds the deadline, so a
 * rescan, a second engine or a restart sends it once per deadline, and a resume that moves the
 * deadline gets its own. Returns how many sessions were looked at.
 */
export async function pushLifetimesEnding(d: EngineDeps): Promise<number> {
  const now = d.clock.now();
  const due = await d.db.session.findMany({
    where: {
      lifetimeExpired: false,
      lifetimeDeadline: { gt: now, lte: new Date(now.getTime() + LIFETIME_NOTICE_MS) },
      state: { notIn: ['Archived', 'ResumeFailed'] },
    },
    select: { id: true },
    take: 200,
  });
  for (const { id } of due) {
    await d.db.$transaction(async (tx) => {
      const row = await getSessionRow(tx, id);
      if (!row?.lifetimeDeadline || row.lifetimeExpired) return;
      await pushEvent(tx, row, { event: 'lifetime_ending', key: `lifetime_ending:${row.id}:${row.lifetimeDeadline.getTime()}`, now });
    });
  }
  return due.length;
}
