import { AppError, isLifetimeSetting, type LifetimeSetting } from '../../domain/index.ts';
import type { Db } from '../../db/client.ts';
import { readSettings, type SettingsDto, writeSettings } from '../../db/repos/settings.ts';

export type { SettingsDto };

/** Global settings: lifetime (never/6/12/24/48 h, default 12 h), resume recommendations (default off), allowed Telegram users. */
export async function getSettings(deps: { db: Db }): Promise<SettingsDto> {
  return readSettings(deps.db);
}

/** A changed lifetime applies to sessions created or resumed afterwards; running deadlines stay. */
export async function updateSettings(
  deps: { db: Db },
  patch: { lifetime?: LifetimeSetting | string; resumeRecommendations?: boolean; allowedTelegramUsers?: (bigint | number | string)[] },
): Promise<SettingsDto> {
  if (patch.lifetime !== undefined && !isLifetimeSetting(patch.lifetime))
    throw new AppError('INVALID_INPUT', { message: 'lifetime must be never, 6h, 12h, 24h or 48h' });
  let users: bigint[] | undefined;
  if (patch.allowedTelegramUsers !== undefined) {
    try {
      users = patch.allowedTelegramUsers.map((u) => BigInt(u));
    } catch (cause) {
      throw new AppError('INVALID_INPUT', { message: 'Telegram user ids must be integers', cause });
    }
    if (users.some((u) => u <= 0n)) throw new AppError('INVALID_INPUT', { message: 'Telegram user ids must be positive' });
  }
  return writeSettings(deps.db, {
    ...(patch.lifetime !== undefined ? { lifetime: patch.lifetime as LifetimeSetting } : {}),
    ...(patch.resumeRecommendations !== undefined ? { resumeRecommendations: patch.resumeRecommendations } : {}),
    ...(users ? { allowedTelegramUsers: users } : {}),
  });
}
