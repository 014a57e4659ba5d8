// What this browser remembers (localStorage): who it is, the rooms it sits in, the hands it
// was dealt (to verify the deals when the seed is revealed), the notification opt-in, how
// long the table holds a moment, whether the room's chat is folded.

const ID = "tortuga.identity";
const ROOMS = "tortuga.rooms";
const NOTIFY = "tortuga.notify";
const SEEN = "tortuga.seen.";
const ENDED = "tortuga.ended.";
const HOLD = "tortuga.holdSpeed";
const CHAT_FOLDED = "tortuga.chatFolded";

function read(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : fallback;
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* private mode or full: the game still works, it just forgets */
  }
}

export const identity = {
  get: () => read(ID, null),
  set: (token, user) => write(ID, { token, user }),
  clear: () => localStorage.removeItem(ID),
  /** Forget the identity only if it still holds `token` (another tab may have stored a
   * fresh one meanwhile: signing out everywhere else keeps that one). */
  clearIf(token) {
    const id = read(ID, null);
    if (!id || id.token === token) localStorage.removeItem(ID);
  },
};

export const myRooms = {
  all: () => read(ROOMS, {}),
  get: (code) => read(ROOMS, {})[code] || null,
  /** Merge what we know about a room this browser sits in. */
  put(code, info) {
    const rooms = read(ROOMS, {});
    rooms[code] = { ...(rooms[code] || {}), ...info, code, touched: Date.now() };
    write(ROOMS, rooms);
  },
  remove(code) {
    const rooms = read(ROOMS, {});
    delete rooms[code];
    write(ROOMS, rooms);
  },
};

/** What this browser saw of each round's deal (the module's `dealSeen`: a hand and dealer
 * for Skull King), per room and seat. A round's record grows key by key: the first value seen
 * of each key is kept (a later view may add what an earlier one could not show). */
export const seenDeals = {
  get: (room) => read(SEEN + room, null),
  record(room, { game, players, seat, round, seen, seedDigest }) {
    const prev = read(SEEN + room, null);
    const data = prev && prev.seat === seat && prev.players === players
      ? prev
      : { game, players, seat, rounds: {} };
    if (seedDigest) data.seedDigest = seedDigest;
    const { round: _, ...what } = seen || {};
    data.rounds[round] = { ...JSON.parse(JSON.stringify(what)), ...(data.rounds[round] || {}) };
    write(SEEN + room, data);
    return data;
  },
};

/** Why a room's game was abandoned ("host" or "idle"), as the last event said: snapshots
 * and room summaries carry it too (`reason`); this copy covers an older server. */
export const endings = {
  get: (room) => read(ENDED + room, null),
  set: (room, reason) => write(ENDED + room, reason),
};

export const notifyPref = {
  get: () => read(NOTIFY, false),
  set: (on) => write(NOTIFY, !!on),
};

/** How long the table holds a moment (a won trick, the bids revealed, a beat's "1, 2, 3!"):
 * each choice scales the game's own length; "off" holds nothing. */
export const HOLD_SPEEDS = { off: 0, short: 0.5, normal: 1, long: 2 };
export const holdSpeed = {
  get() {
    const v = read(HOLD, "normal");
    return Object.hasOwn(HOLD_SPEEDS, v) ? v : "normal";
  },
  set: (speed) => write(HOLD, Object.hasOwn(HOLD_SPEEDS, speed) ? speed : "normal"),
  /** The factor a game's hold length is multiplied by. */
  factor: () => HOLD_SPEEDS[holdSpeed.get()],
};

/** The room's chat folded to its heading (on a phone: the table stays clear of it). */
export const chatFolded = {
  get: () => read(CHAT_FOLDED, false),
  set: (on) => write(CHAT_FOLDED, !!on),
  /** Whether the player folded or opened the chat in this browser (else: the default). */
  chosen: () => read(CHAT_FOLDED, null) !== null,
};
