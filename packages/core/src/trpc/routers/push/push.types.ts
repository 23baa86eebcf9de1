import { z } from 'zod';
import { PUSH_EVENT_KINDS, PUSH_MODES } from '../../../domain/push-routing.ts';
import { zId, zIsoDate, zIsoDateOrNull } from '../zod-shared.ts';

/** A base64url string of bounded length (the browser's keys). */
const zB64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'base64url');

/** The browser's `PushSubscription.toJSON()`; the service checks the endpoint's scheme and the keys' lengths. */
export const ZPushSubscriptionJson = z.object({
  endpoint: z.url().max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: zB64url(128), auth: zB64url(64) }),
});
const zName = z.string().trim().min(1).max(60);

export const ZSubscribeRequest = z.object({ subscription: ZPushSubscriptionJson, name: zName, userAgent: z.string().max(300).optional() });
export const ZRenameRequest = z.object({ id: zId, name: zName });
export const ZDeviceRef = z.object({ id: zId });

export const ZPushDevice = z.object({
  id: z.string(),
  name: z.string(),
  userAgent: z.string().nullable(),
  service: z.string(),
  createdAt: zIsoDate,
  lastPushAt: zIsoDateOrNull,
  lastError: z.string().nullable(),
  failureCount: z.number().int(),
});
export const ZPushDevices = z.object({ devices: z.array(ZPushDevice) });
export const ZTestResult = z.object({ status: z.enum(['sent', 'failed', 'removed', 'pending']), error: z.string().nullable() });

const zKind = z.enum(PUSH_EVENT_KINDS);
const zMinute = z.number().int().min(0).max(1439);
export const ZPushSettings = z.object({
  mode: z.enum(PUSH_MODES),
  kindsOff: z.array(zKind).readonly(),
  quietHours: z.object({ start: zMinute, end: zMinute }).nullable(),
  timeZone: z.string(),
  firstLine: z.boolean(),
});
export const ZUpdatePushSettings = z.object({
  mode: z.enum(PUSH_MODES).optional(),
  kindsOff: z.array(zKind).max(PUSH_EVENT_KINDS.length).optional(),
  quietHours: z.object({ start: zMinute, end: zMinute }).nullable().optional(),
  timeZone: z.string().min(1).max(64).optional(),
  firstLine: z.boolean().optional(),
});
export const ZMuteRequest = z.object({ sessionId: zId, muted: z.boolean() });
/** The session page the browser shows while visible; null when hidden or elsewhere. */
export const ZVisibilityRequest = z.object({ sessionId: zId.nullable() });
