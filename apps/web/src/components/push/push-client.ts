/**
 * The browser half of subscribing to Web Push (issue 32). Each step that can fail says which,
 * so the page can put it in words: no support, notifications blocked, the hub's key not made yet,
 * or the browser's own push service unreachable (a browser without Google's or Mozilla's push
 * service, a network that blocks it, headless browsers) — Telegram stays the channel then.
 */
export type PushSupport = 'supported' | 'no_service_worker' | 'no_push' | 'insecure';

export function pushSupport(): PushSupport {
  if (typeof window === 'undefined') return 'no_push';
  if (!window.isSecureContext) return 'insecure';
  if (!('serviceWorker' in navigator)) return 'no_service_worker';
  if (!('PushManager' in window) || typeof Notification === 'undefined') return 'no_push';
  return 'supported';
}

export type SubscribeFailure =
  | { step: 'permission'; permission: NotificationPermission }
  | { step: 'no_key' }
  | { step: 'service_worker'; detail: string }
  | { step: 'push_service'; detail: string };

export type SubscribeOutcome = { ok: true; subscription: PushSubscriptionJSON } | { ok: false; failure: SubscribeFailure };

const bytesOf = (b64url: string): Uint8Array<ArrayBuffer> => {
  const s = atob(b64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64url.length % 4)) % 4));
  const out = new Uint8Array(new ArrayBuffer(s.length));
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
};

/** The worker's registration, waiting at most `ms` for it to become active. */
async function readyRegistration(ms = 15_000): Promise<ServiceWorkerRegistration> {
  const existing = await navigator.serviceWorker.getRegistration('/');
  if (!existing) await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      navigator.serviceWorker.ready,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the service worker did not start')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** This browser's current subscription, if any. */
export async function currentSubscription(): Promise<PushSubscriptionJSON | null> {
  if (pushSupport() !== 'supported') return null;
  const reg = await navigator.serviceWorker.getRegistration('/');
  const sub = await reg?.pushManager.getSubscription();
  return sub ? sub.toJSON() : null;
}

/** Asks for permission, then subscribes with the hub's VAPID key (`publicKey` null: not made yet). */
export async function subscribeThisBrowser(publicKey: string | null): Promise<SubscribeOutcome> {
  const permission = Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
  if (permission !== 'granted') return { ok: false, failure: { step: 'permission', permission } };
  if (!publicKey) return { ok: false, failure: { step: 'no_key' } };
  let reg: ServiceWorkerRegistration;
  try {
    reg = await readyRegistration();
  } catch (err) {
    return { ok: false, failure: { step: 'service_worker', detail: (err as Error).message } };
  }
  try {
    const old = await reg.pushManager.getSubscription();
    // A subscription made with another server key cannot be used; it is replaced.
    const key = bytesOf(publicKey);
    const same =
      old?.options.applicationServerKey &&
      new Uint8Array(old.options.applicationServerKey).every((b, i) => b === key[i]) &&
      old.options.applicationServerKey.byteLength === key.byteLength;
    if (old && !same) await old.unsubscribe();
    const sub = same && old ? old : await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    return { ok: true, subscription: sub.toJSON() };
  } catch (err) {
    const e = err as Error;
    return { ok: false, failure: { step: 'push_service', detail: `${e.name}: ${e.message}` } };
  }
}

/** Ends this browser's subscription (the server row is removed by the caller). */
export async function unsubscribeThisBrowser(): Promise<void> {
  const reg = await navigator.serviceWorker.getRegistration('/');
  const sub = await reg?.pushManager.getSubscription();
  await sub?.unsubscribe();
}

/** A name for this device the user can change: "Chrome on Android". */
export function defaultDeviceName(ua: string = navigator.userAgent): string {
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : 'Browser';
  const os = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Mac OS X/.test(ua)
        ? 'macOS'
        : /Windows/.test(ua)
          ? 'Windows'
          : /Linux/.test(ua)
            ? 'Linux'
            : '';
  return os ? `${browser} on ${os}` : browser;
}
