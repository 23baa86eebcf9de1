import { AppError } from '../../domain/index.ts';
import type { PushEventKind, PushMode, QuietHours } from '../../domain/push-routing.ts';
import type { Db } from '../../db/client.ts';
import { type PushSettingsDto, readPushSettings, sessionPushMuted, writePushSettings, writeSessionPushMuted } from '../../db/repos/push.ts';

export type { PushSettingsDto };

/** The push switches of Settings (issue 32): mode, kinds off, quiet hours and their time zone, first line. */
export function getPushSettings(deps: { db: Db }): Promise<PushSettingsDto> {
  return readPushSettings(deps.db);
}

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export async function updatePushSettings(
  deps: { db: Db },
  patch: { mode?: PushMode; kindsOff?: PushEventKind[]; quietHours?: QuietHours | null; timeZone?: string; firstLine?: boolean },
): Promise<PushSettingsDto> {
  if (patch.timeZone !== undefined && !validTimeZone(patch.timeZone))
    throw new AppError('INVALID_INPUT', { message: `unknown time zone ${patch.timeZone}`, userMessage: 'push.invalid_time_zone' });
  const q = patch.quietHours;
  if (q && ![q.start, q.end].every((m) => Number.isInteger(m) && m >= 0 && m < 1440))
    throw new AppError('INVALID_INPUT', { message: 'quiet hours are minutes of the day (0–1439)' });
  return writePushSettings(deps.db, patch);
}

/** Mutes (or unmutes) push for one session; Telegram still gets everything. */
export async function setSessionPushMuted(deps: { db: Db }, o: { sessionId: string; muted: boolean }): Promise<{ sessionId: string; muted: boolean }> {
  if (!(await writeSessionPushMuted(deps.db, o.sessionId, o.muted))) throw new AppError('NOT_FOUND', { message: 'session not found' });
  return o;
}

/** Whether push is muted for one session (false for a session that does not exist). */
export async function getSessionPushMuted(deps: { db: Db }, sessionId: string): Promise<{ sessionId: string; muted: boolean }> {
  return { sessionId, muted: await sessionPushMuted(deps.db, sessionId) };
}
