// The HTTP side of the server: guest tokens, rooms, games, history.

import { identity } from "./store.js";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, body) {
  const headers = { Accept: "application/json" };
  const id = identity.get();
  if (id && id.token) headers.Authorization = `Bearer ${id.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    // No answer at all: offline (the installed app opens from its cache) or unreachable.
    throw new ApiError(0, navigator.onLine === false ? "offline" : "network");
  }
  const fresh = res.headers.get("X-Tortuga-Token");
  if (fresh && id && id.user) identity.set(fresh, id.user);
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = (data && (data.error || data)) || {};
    throw new ApiError(res.status, err.code, err.message || err.detail || res.statusText);
  }
  return data;
}

export const api = {
  guest: (name) => call("POST", "/api/guest", { name }),
  games: () => call("GET", "/api/games"),
  rooms: () => call("GET", "/api/rooms"),
  room: (code) => call("GET", `/api/rooms/${encodeURIComponent(code)}`),
  myRooms: () => call("GET", "/api/me/rooms"),
  signOutEverywhere: () => call("POST", "/api/me/signout"),
  myBots: () => call("GET", "/api/me/bots"),
  createBot: (name) => call("POST", "/api/me/bots", { name }),
  revokeBot: (id) => call("POST", `/api/me/bots/${encodeURIComponent(id)}/revoke`),
  pushKey: () => call("GET", "/api/push"),
  subscribePush: (body) => call("PUT", "/api/me/push", body),
  unsubscribePush: (endpoint) => call("DELETE", "/api/me/push", { endpoint }),
  myDevices: () => call("GET", "/api/me/devices"),
  makeSignInLink: () => call("POST", "/api/me/signin-link"),
  useSignInLink: (token) => call("POST", "/api/signin/link", { token }),
  passkeyOptions: () => call("POST", "/api/me/passkeys/options"),
  addPasskey: (credential) => call("POST", "/api/me/passkeys", { credential }),
  removePasskey: (id) => call("DELETE", `/api/me/passkeys/${encodeURIComponent(id)}`),
  passkeySignInOptions: () => call("POST", "/api/signin/passkey/options"),
  signInWithPasskey: (credential) => call("POST", "/api/signin/passkey", { credential }),
  createRoom: (spec) => call("POST", "/api/rooms", spec),
  /** `view`: only these fields of each replayed view (e.g. ["round", "scores"]); `wait`:
   * seconds the server may wait for a game whose end is not in the archive yet. */
  replay: (gameId, view = null, { wait = 0 } = {}) => {
    const query = [view ? `view=${view.map(encodeURIComponent).join(",")}` : "", wait ? `wait=${wait}` : ""].filter(Boolean);
    return call("GET", `/api/history/games/${encodeURIComponent(gameId)}/replay${query.length ? `?${query.join("&")}` : ""}`);
  },
  /** `wait`: seconds the server may wait for a game that is not in the archive yet. */
  game: (gameId, { wait = 0 } = {}) =>
    call("GET", `/api/history/games/${encodeURIComponent(gameId)}${wait ? `?wait=${wait}` : ""}`),
  leaderboard: (engine, { limit = 50, offset = 0 } = {}) =>
    call("GET", `/api/history/leaderboard/${encodeURIComponent(engine)}?limit=${limit}&offset=${offset}`),
  ladder: (engine) => call("GET", `/api/history/ladder/${encodeURIComponent(engine)}`),
  userGames: (userId, { limit = 20, offset = 0 } = {}) =>
    call("GET", `/api/history/users/${encodeURIComponent(userId)}/games?limit=${limit}&offset=${offset}`),
};
