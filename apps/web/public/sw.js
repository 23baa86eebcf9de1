// Bria's service worker (issue 32): the offline shell, Web Push notifications, Allow / Deny from a
// permission request's notification, and the share target's files. Plain JavaScript served as is from /sw.js (no
// bundling), scoped to the whole dashboard. What it does is written in docs/architecture.md ("The installable dashboard").

const SHELL_CACHE = 'bria-shell-v1';
const OFFLINE_URL = '/offline.html';
const SHELL = [OFFLINE_URL, '/icons/icon-192.png', '/icons/badge-96.png'];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('bria-shell-') && k !== SHELL_CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

// The installed app's share target (manifest.ts) posts what was shared here: text fields and files.
// The files wait in a cache of their own (one share at a time: a new share replaces the last) until
// the share page (/share, share-picker.tsx) reads them, shows them and sends them with the message
// through the composer's own path; the text goes as the page's query, as with a GET share.
const SHARE_ACTION = '/share/receive';
const SHARE_CACHE = 'bria-share';
async function receiveShare(req) {
  let form;
  try {
    form = await req.formData();
  } catch {
    return Response.redirect('/share?error=unreadable', 303);
  }
  const q = new URLSearchParams();
  for (const k of ['title', 'text', 'url']) {
    const v = form.get(k);
    if (typeof v === 'string' && v !== '') q.set(k, v.slice(0, 20000));
  }
  const files = form.getAll('files').filter((f) => typeof f !== 'string' && f.size > 0);
  await caches.delete(SHARE_CACHE);
  if (files.length) {
    const cache = await caches.open(SHARE_CACHE);
    await Promise.all(
      files.map((f, i) =>
        cache.put(
          `/share/file/${i}`,
          new Response(f, { headers: { 'content-type': f.type || 'application/octet-stream', 'x-bria-name': encodeURIComponent(f.name || `file-${i + 1}`) } }),
        ),
      ),
    );
    q.set('files', String(files.length));
  }
  return Response.redirect(`/share?${q}`, 303);
}

// Only page loads are answered here, network first: the dashboard's data is always live and is
// never served from a cache. With the server unreachable the page opens as the offline shell
// ("Reconnecting…"), at the address asked for, and reloads itself when the server answers.
self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method === 'POST' && new URL(req.url).pathname === SHARE_ACTION) return event.respondWith(receiveShare(req));
  if (req.method !== 'GET' || req.mode !== 'navigate') return;
  event.respondWith(fetch(req).catch(async () => (await caches.match(OFFLINE_URL)) || Response.error()));
});

const WORDS = {
  en: {
    prompt_waiting: 'Needs your answer',
    dialog_waiting: 'Waiting to start: a question at the computer',
    turn_completed: 'Turn completed',
    turn_failed: 'Turn failed',
    turn_unknown: 'Turn ended — outcome unknown',
    session_ended_unexpectedly: 'Session ended unexpectedly',
    computer_away: 'Computer went away',
    lifetime_ending: 'Session lifetime ends soon',
    test: 'Test notification: this device gets Bria’s notifications.',
    allow: 'Allow',
    deny: 'Deny',
    answered: 'Answered: {decision} (from the notification)',
    already: 'Already answered',
    outOfDate: 'No longer waiting for an answer',
    failed: 'Could not answer from the notification — open Bria',
  },
  ru: {
    prompt_waiting: 'Нужен ваш ответ',
    dialog_waiting: 'Ждёт запуска: вопрос на компьютере',
    turn_completed: 'Ход завершён',
    turn_failed: 'Ход завершился ошибкой',
    turn_unknown: 'Ход закончился — исход неизвестен',
    session_ended_unexpectedly: 'Сессия неожиданно завершилась',
    computer_away: 'Компьютер пропал из сети',
    lifetime_ending: 'Срок жизни сессии скоро истечёт',
    test: 'Проверка: это устройство получает уведомления Bria.',
    allow: 'Разрешить',
    deny: 'Запретить',
    answered: 'Ответ: {decision} (из уведомления)',
    already: 'Уже отвечено',
    outOfDate: 'Ответ больше не ждут',
    failed: 'Не удалось ответить из уведомления — откройте Bria',
  },
};
const words = () =>
  String(self.navigator.language || 'en')
    .toLowerCase()
    .startsWith('ru')
    ? WORDS.ru
    : WORDS.en;

function parse(data) {
  try {
    const p = data ? data.json() : null;
    return p && p.v === 1 && typeof p.tag === 'string' ? p : null;
  } catch {
    return null;
  }
}

async function show(p) {
  const w = words();
  const kind = w[p.kind] || p.kind;
  const waits = p.kind === 'prompt_waiting' || p.kind === 'dialog_waiting';
  const live = p.answer && Date.parse(p.answer.expiresAt) > Date.now();
  await self.registration.showNotification(p.title || 'Bria', {
    body: p.body ? `${kind}\n${p.body}` : kind,
    tag: p.tag,
    renotify: waits,
    requireInteraction: waits,
    icon: '/icons/icon-192.png',
    badge: '/icons/badge-96.png',
    data: p,
    actions: live
      ? [
          { action: 'allow', title: w.allow },
          { action: 'deny', title: w.deny },
        ]
      : [],
  });
}

async function closeTag(tag) {
  const open = await self.registration.getNotifications({ tag });
  for (const n of open) n.close();
}

self.addEventListener('push', (event) => {
  const p = parse(event.data);
  if (!p) return;
  event.waitUntil(p.action === 'close' ? closeTag(p.tag) : show(p));
});

async function openPage(url) {
  const target = new URL(url || '/', self.location.origin).href;
  const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const same = open.find((c) => c.url === target);
  if (same) return same.focus();
  return self.clients.openWindow(target);
}

/** Allow / Deny: the token goes back once; the answer's fate replaces the notification, in words. */
async function answer(p, decision) {
  const w = words();
  let r = null;
  try {
    const res = await fetch('/api/push/answer', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: p.answer.token, decision }),
      credentials: 'omit',
      cache: 'no-store',
    });
    r = await res.json();
  } catch {
    r = null;
  }
  const status = r?.status;
  if (status === 'expired' || status === 'unknown' || !status) return openPage(p.url);
  const text =
    status === 'answered'
      ? w.answered.replace('{decision}', w[decision] || decision)
      : status === 'already_answered'
        ? w.already
        : status === 'out_of_date'
          ? w.outOfDate
          : w.failed;
  await self.registration.showNotification(p.title || 'Bria', {
    body: text,
    tag: p.tag,
    silent: true,
    icon: '/icons/icon-192.png',
    badge: '/icons/badge-96.png',
    data: { ...p, answer: undefined, action: 'result', result: status },
  });
}

async function act(notification, action) {
  const p = notification.data || {};
  notification.close();
  if ((action === 'allow' || action === 'deny') && p.answer) return answer(p, action);
  return openPage(p.url);
}

self.addEventListener('notificationclick', (event) => {
  event.waitUntil(act(event.notification, event.action));
});

// The same press, asked by a page of this dashboard (same origin only: the browser delivers a
// client's message to its own origin's worker). Browser tests use it because a system
// notification's button cannot be pressed from a test; a page could post the token itself anyway
// (`getNotifications()` gives it the notification's data), so nothing is opened that was closed.
self.addEventListener('message', (event) => {
  const m = event.data;
  if (m?.type !== 'bria:notification-action' || typeof m.tag !== 'string') return;
  event.waitUntil(
    self.registration.getNotifications({ tag: m.tag }).then(async (list) => {
      const n = list[0];
      const done = n ? await act(n, m.action).then(() => true) : false;
      if (event.source) event.source.postMessage({ type: 'bria:notification-action-done', tag: m.tag, found: done });
    }),
  );
});
