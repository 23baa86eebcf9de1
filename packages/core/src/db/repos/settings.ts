import { DEFAULT_LIFETIME, type LifetimeSetting, lifetimeFromHours, lifetimeHours } from '../../domain/index.ts';
import type { DbOrTx } from './sessions.ts';

export interface SettingsDto {
  lifetime: LifetimeSetting;
  resumeRecommendations: boolean;
  allowedTelegramUsers: bigint[];
  updatedAt: Date | null;
}

const select = { lifetimeHours: true, resumeRecommendations: true, allowedTelegramUsers: true, updatedAt: true } as const;

/** The single settings row (id 1); absent means the defaults. */
export async function readSettings(db: DbOrTx): Promise<SettingsDto> {
  const row = await db.settings.findUnique({ where: { id: 1 }, select });
  if (!row) return { lifetime: DEFAULT_LIFETIME, resumeRecommendations: false, allowedTelegramUsers: [], updatedAt: null };
  return {
    lifetime: lifetimeFromHours(row.lifetimeHours) ?? DEFAULT_LIFETIME,
    resumeRecommendations: row.resumeRecommendations,
    allowedTelegramUsers: row.allowedTelegramUsers,
    updatedAt: row.updatedAt,
  };
}

export async function writeSettings(
  db: DbOrTx,
  patch: { lifetime?: LifetimeSetting; resumeRecommendations?: boolean; allowedTelegramUsers?: bigint[] },
): Promise<SettingsDto> {
  const data = {
    ...(patch.lifetime === undefined ? {} : { lifetimeHours: lifetimeHours(patch.lifetime) }),
    ...(patch.resumeRecommendations === undefined ? {} : { resumeRecommendations: patch.resumeRecommendations }),
    ...(patch.allowedTelegramUsers === undefined ? {} : { allowedTelegramUsers: [...new Set(patch.allowedTelegramUsers)] }),
  };
  await db.settings.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
  return readSettings(db);
}
