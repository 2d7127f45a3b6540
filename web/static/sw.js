// sw.js: the board's service worker, served at /agents-notch/sw.js (scope
// /agents-notch/). It does one thing: shows the host's pushes (host/push,
// webpush.go: {"type":"show"|"close", …}) and answers their buttons. It has
// no fetch handler: the board is live or it shows the unknown state, so
// nothing is served from a cache.
//
//   - "show": a notification with the push's tag (a later one replaces it),
//     its title and body as text, its buttons when it carries them (Allow
//     once / Deny, a question's first two options, a settled row's Reply),
//     and, for a session that needs you, one that stays until acted on;
//   - "close": the notifications with that tag go (answered elsewhere);
//   - a button with a capability: POST {"cap"} to its URL (this origin
//     only), then the notification goes; a refusal (answered in the
//     terminal, expired) is said in its place;
//   - a button without one (Reply): its URL, the board opened on the row's
//     reply box — an open board tab is told (postMessage) and focused,
//     else the URL is opened;
//   - a click elsewhere on it: an open board tab is focused, else the board
//     is opened.
//
// Notifications draw text as text; every string is also bounded here.
'use strict';

const SCOPE = self.registration.scope; // https://host/agents-notch/
const ACT = new URL('act', SCOPE).href;
const MAX_TITLE = 300;
const MAX_BODY = 1000;
const MAX_ACTIONS = 2; // Notification.maxActions where actions are shown at all

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));

const text = (v, max) => (typeof v === 'string' ? v.slice(0, max) : '');

// here is url when it is this origin's (resolved against the scope), else
// fallback: a push never sends a click or a capability anywhere else.
function here(url, fallback) {
  try {
    const u = new URL(url, SCOPE);
    if (u.origin === self.location.origin) return u.href;
  } catch {
    // not a URL
  }
  return fallback;
}

self.addEventListener('push', (e) => {
  let m = null;
  try {
    m = e.data ? e.data.json() : null;
  } catch {
    // not JSON: nothing to show
  }
  e.waitUntil(onPush(m));
});

async function onPush(m) {
  if (!m || typeof m !== 'object') return;
  const tag = text(m.tag, 256);
  if (m.type === 'close') {
    if (tag) await closeTag(tag);
    return;
  }
  if (m.type !== 'show') return;
  const actions = (Array.isArray(m.actions) ? m.actions : [])
    .filter((a) => a && typeof a.action === 'string' && typeof a.cap === 'string' && (a.cap || typeof a.url === 'string'))
    .slice(0, MAX_ACTIONS)
    .map((a) => ({
      action: text(a.action, 32),
      title: text(a.title, 40) || a.action,
      url: a.cap ? here(a.url, ACT) : here(a.url, SCOPE),
      cap: text(a.cap, 128),
    }));
  const opts = {
    body: text(m.body, MAX_BODY),
    icon: new URL('static/icon-192.png', SCOPE).href,
    data: { url: here(m.url, SCOPE), kind: text(m.kind, 32), actions },
    actions: actions.map((a) => ({ action: a.action, title: a.title })),
    requireInteraction: m.kind === 'needs-you',
  };
  if (tag) {
    opts.tag = tag;
    opts.renotify = true; // a replacement is news: it sounds again
  }
  if (Number.isFinite(m.at) && m.at > 0) opts.timestamp = m.at;
  await self.registration.showNotification(text(m.title, MAX_TITLE) || 'notch-web', opts);
}

async function closeTag(tag) {
  for (const n of await self.registration.getNotifications({ tag })) n.close();
}

self.addEventListener('notificationclick', (e) => {
  const n = e.notification;
  const d = n.data ?? {};
  n.close();
  if (e.action) {
    const a = (d.actions ?? []).find((x) => x.action === e.action);
    if (a?.cap) e.waitUntil(act(a, n));
    else if (a) e.waitUntil(openReply(a.url));
    return;
  }
  e.waitUntil(openBoard(d.url ?? SCOPE));
});

// act answers the card with the button's capability. It goes with the
// cookies of this origin (a paired device's) and, as every write, as JSON.
async function act(a, n) {
  let res = null;
  try {
    res = await fetch(a.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ cap: a.cap }),
      credentials: 'same-origin',
    });
  } catch {
    // unreachable: said below
  }
  if (res?.ok) return;
  let why = 'notch-web could not be reached';
  if (res) {
    why = `notch-web answered ${res.status}`;
    try {
      const j = await res.json();
      if (typeof j?.error === 'string' && j.error) why = text(j.error, 200);
    } catch {
      // no JSON: the status says it
    }
  }
  await self.registration.showNotification(n.title, {
    body: `Not answered: ${why}`,
    tag: n.tag || undefined,
    icon: n.icon || undefined,
    data: { url: n.data?.url ?? SCOPE, actions: [] },
  });
}

// openReply opens the board on a row's reply box: an open board tab is
// told which row (notch.js opens its box) and focused; else url (its
// ?reply= says the row) is opened.
async function openReply(url) {
  const id = new URL(url).searchParams.get('reply') ?? '';
  const wins = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const board = new URL(SCOPE).pathname;
  const tab = wins.find((c) => new URL(c.url).pathname === board);
  if (tab && id) {
    tab.postMessage({ type: 'reply', session: text(id, 256) });
    try {
      return await tab.focus();
    } catch {
      // not allowed to focus: open one instead
    }
  }
  return self.clients.openWindow(url);
}

// openBoard focuses an open board tab (the board itself before any other
// page of the scope), else opens url.
async function openBoard(url) {
  const wins = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const board = new URL(SCOPE).pathname;
  const inScope = wins.filter((c) => new URL(c.url).pathname.startsWith(board));
  const best = inScope.find((c) => new URL(c.url).pathname === board) ?? inScope[0];
  if (best) {
    try {
      return await best.focus();
    } catch {
      // not allowed to focus: open one instead
    }
  }
  return self.clients.openWindow(url);
}

// A push service that renews a subscription: subscribe again with the same
// key and tell the host, forgetting the old one.
self.addEventListener('pushsubscriptionchange', (e) => {
  e.waitUntil(
    (async () => {
      const old = e.oldSubscription;
      let sub = e.newSubscription;
      if (!sub) {
        let key = old?.options?.applicationServerKey;
        if (!key) {
          const r = await fetch(new URL('push/key', SCOPE), { credentials: 'same-origin' });
          key = (await r.json()).key;
        }
        sub = await self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
      }
      const post = (route, body) =>
        fetch(new URL(route, SCOPE), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          credentials: 'same-origin',
        });
      await post('push/subscribe', sub.toJSON());
      if (old && old.endpoint !== sub.endpoint) await post('push/unsubscribe', { endpoint: old.endpoint });
    })(),
  );
});
