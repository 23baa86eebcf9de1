import { z } from 'zod';
import {
  getPushSettings,
  getSessionPushMuted,
  listPushDevices,
  pushVapidKey,
  removePushDevice,
  renamePushDevice,
  reportPageVisibility,
  sendTestPush,
  setSessionPushMuted,
  subscribePush,
  updatePushSettings,
} from '../../../services/push/index.ts';
import { authedProcedure, router } from '../../init.ts';
import {
  ZDeviceRef,
  ZMuteRequest,
  ZPushDevice,
  ZPushDevices,
  ZPushSettings,
  ZRenameRequest,
  ZSubscribeRequest,
  ZTestResult,
  ZUpdatePushSettings,
  ZVisibilityRequest,
} from './push.types.ts';

/**
 * Web Push for the dashboard (issue 32). Signed-in users only (mutations with the CSRF header, as
 * every router). The service worker and Settings page use: `vapidKey` → `PushManager.subscribe` →
 * `subscribe`; `list` / `rename` / `remove` / `test`; `settings` / `updateSettings`; `mute` per
 * session; `visibility` every 20 s while a session page is visible (and `null` when hidden).
 */
export const pushRouter = router({
  vapidKey: authedProcedure.output(z.object({ publicKey: z.string().nullable() })).query(({ ctx }) => pushVapidKey({ db: ctx.db })),
  subscribe: authedProcedure
    .input(ZSubscribeRequest)
    .output(ZPushDevice)
    .mutation(({ ctx, input }) =>
      subscribePush({ db: ctx.db }, { userId: ctx.user.id, subscription: input.subscription, name: input.name, userAgent: input.userAgent ?? null }),
    ),
  list: authedProcedure.output(ZPushDevices).query(async ({ ctx }) => ({ devices: await listPushDevices({ db: ctx.db }, ctx.user.id) })),
  remove: authedProcedure
    .input(ZDeviceRef)
    .output(ZDeviceRef)
    .mutation(({ ctx, input }) => removePushDevice({ db: ctx.db }, { userId: ctx.user.id, id: input.id })),
  rename: authedProcedure
    .input(ZRenameRequest)
    .output(ZPushDevice)
    .mutation(({ ctx, input }) => renamePushDevice({ db: ctx.db }, { userId: ctx.user.id, id: input.id, name: input.name })),
  test: authedProcedure
    .input(ZDeviceRef)
    .output(ZTestResult)
    .mutation(({ ctx, input }) => sendTestPush({ db: ctx.db }, { userId: ctx.user.id, id: input.id })),
  settings: authedProcedure.output(ZPushSettings).query(({ ctx }) => getPushSettings({ db: ctx.db })),
  updateSettings: authedProcedure
    .input(ZUpdatePushSettings)
    .output(ZPushSettings)
    .mutation(({ ctx, input }) => updatePushSettings({ db: ctx.db }, input)),
  muted: authedProcedure
    .input(z.object({ sessionId: ZMuteRequest.shape.sessionId }))
    .output(ZMuteRequest)
    .query(({ ctx, input }) => getSessionPushMuted({ db: ctx.db }, input.sessionId)),
  mute: authedProcedure
    .input(ZMuteRequest)
    .output(ZMuteRequest)
    .mutation(({ ctx, input }) => setSessionPushMuted({ db: ctx.db }, input)),
  visibility: authedProcedure
    .input(ZVisibilityRequest)
    .output(z.object({ ok: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await reportPageVisibility({ db: ctx.db }, { webSessionId: ctx.session.id, sessionId: input.sessionId });
      return { ok: true as const };
    }),
});
