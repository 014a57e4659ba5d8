// Tortuga's service worker (served from the site's root as /sw.js: its scope is the site).
//
// - The app shell: the static files (modules, styles, icons) are kept in a cache named by
//   the server's version (the server writes it and the shell's file list in the two lines
//   below when it serves this file), so a deploy installs a new worker and a new cache, and
//   the old one goes. A shell file is answered from the cache at once and refreshed from the
//   network behind it. A page (a navigation) comes from the network; offline, the cached
//   app page answers and says the page needs the server.
// - Never the game: /api, /ws, /admin and everything else go straight to the network. Live
//   state always comes from the socket, never from a cache.
// - Web Push: a push shows its notification (title and body written by the server: the
//   room and the game, never a card); a click focuses the room's tab or opens it.

const VERSION = "__TORTUGA_VERSION__";
const SHELL = ["__TORTUGA_SHELL__"];
const CACHE = `tortuga-shell-${VERSION}`;
const APP_PAGE = "/";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll([APP_PAGE, ...SHELL]);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("tortuga-shell-") && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

function isShell(url) {
  return url.origin === self.location.origin && url.pathname.startsWith("/static/");
}

async function shellFile(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request);
  const fresh = fetch(request).then((res) => {
    if (res.ok) cache.put(request, res.clone());
    return res;
  });
  if (hit) {
    fresh.catch(() => undefined);
    return hit;
  }
  return fresh;
}

async function page(request) {
  try {
    return await fetch(request);
  } catch (err) {
    // Offline: the app itself, which tells the player this page needs the server.
    const cache = await caches.open(CACHE);
    const hit = await cache.match(APP_PAGE);
    if (hit) return hit;
    throw err;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(request));
  } else if (isShell(url)) {
    event.respondWith(shellFile(request));
  }
  // Anything else (the API, the socket, the console): the network, untouched.
});

// -- Web Push --------------------------------------------------------------------------------

/** What a push carries (the server's JSON): {kind, room, game, title, body, url}. */
function readPush(event) {
  try {
    return event.data ? event.data.json() : null;
  } catch {
    return null;
  }
}

function roomUrl(data) {
  const url = typeof data.url === "string" && data.url.startsWith("/") ? data.url : "/";
  return new URL(url, self.location.origin).href;
}

self.addEventListener("push", (event) => {
  const data = readPush(event);
  if (!data || typeof data.title !== "string") return;
  event.waitUntil(self.registration.showNotification(data.title, {
    body: typeof data.body === "string" ? data.body : "",
    tag: `tortuga-${data.room || "site"}`,
    renotify: true,
    icon: "/static/icons/icon-192.png",
    badge: "/static/icons/icon-192.png",
    data: { url: roomUrl(data), kind: data.kind, room: data.room },
  }));
});

/** Focus a tab already on the room; else take a tab of the site there; else open it. */
async function openRoom(url) {
  const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const same = tabs.find((tab) => tab.url === url);
  if (same) return same.focus();
  const ours = tabs.find((tab) => "navigate" in tab);
  if (ours) {
    try {
      const there = await ours.navigate(url);
      if (there) return there.focus().catch(() => there);
    } catch {
      /* not ours to steer: a new window below */
    }
  }
  return self.clients.openWindow(url);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || self.location.origin + "/";
  event.waitUntil(openRoom(url));
});
