// The move chain and this device's key (docs/PROTOCOL.md, "The move chain"): the browser's
// twin of server/table/chain.py, tested on the same vectors (tests/server/chain_vectors.json).
//
// - This device's key pair is made once with WebCrypto (ECDSA P-256, the private key
//   non-extractable) and kept in IndexedDB; its public key is registered with the user
//   (POST /api/me/keys) and named in the socket's auth; every move is signed with it.
// - Every head the server sends (event, snapshot, resumed) is kept per room in IndexedDB.
// - Once the game is over, `checkRecord` checks the archived record end to end -- each
//   head is the hash of its link on the one before, every signature verifies with the key
//   registered for it -- and against the heads this browser kept.

import { canonicalJson, digest as commitment } from "./seal.js";
import { sha256, toHex, utf8 } from "./sha256.js";

export const CHAIN = "tortuga-chain/1";
export const SIG = "tortuga-sig/1";
export const GENESIS = "0".repeat(64);
export { commitment };

/** The bytes (as text) a device signs for one move: `c` is its commitment. */
export function sigMessage(kind, room, version, seat, c) {
  return canonicalJson({ c, kind, room, seat, tortuga: SIG, version });
}

export function atMs(iso) {
  return Date.parse(iso);
}

/** An event's link (`moves`: seat -> its proof without the salt). */
export function linkOf({ prev, version, at, digest, moves, defaults, proxies, takeback, game }) {
  const link = {
    at: typeof at === "number" ? at : atMs(at), chain: CHAIN, defaults: [...(defaults || [])].sort((a, b) => a - b),
    digest, moves, prev, proxies: [...(proxies || [])].sort((a, b) => a - b), takeback: takeback ?? null, version,
  };
  if (game) link.game = game;
  return link;
}

export async function headOf(link) {
  return toHex(await sha256(utf8(canonicalJson(link))));
}

function b64url(bytes) {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(text) {
  const raw = atob(String(text).replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
}

// -- IndexedDB: this device's key and the heads it saw -------------------------------------
let opened = null;
function idb() {
  if (!opened) {
    opened = new Promise((resolve, reject) => {
      const req = indexedDB.open("tortuga", 1);
      req.onupgradeneeded = () => {
        req.result.createObjectStore("keys");
        req.result.createObjectStore("heads");
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }
  return opened;
}

async function idbDo(store, mode, fn) {
  const db = await idb();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(store, mode);
    const req = fn(tx.objectStore(store));
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = () => reject(tx.error);
  });
}

const mine = new Map(); // user -> Promise<key | null>
let current = ""; // the user whose key signs: the one the page signed in as (registeredKid)

/** The user a token names (its payload's `u`, docs/PROTOCOL.md), or "" when it names none. */
function userOf(token) {
  try {
    const part = String(token).split(".")[0].replace(/-/g, "+").replace(/_/g, "/");
    return String(JSON.parse(atob(part + "=".repeat((4 - (part.length % 4)) % 4))).u || "");
  } catch {
    return "";
  }
}

/** This device's key for `user`: {kid, public (base64url point), privateKey}, made on first
 * use; null without WebCrypto or IndexedDB (the moves then go unsigned, and are shown so).
 * One key per user of the browser: a key is registered with one identity (the archive names
 * each key's user), so two people who take turns on one browser sign with two keys. */
export function device(user = current) {
  if (!mine.has(user)) {
    mine.set(user, (async () => {
      if (!globalThis.crypto || !crypto.subtle || !globalThis.indexedDB) return null;
      const name = `device:${user}`;
      let kept = await idbDo("keys", "readonly", (s) => s.get(name));
      if (!kept) {
        const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
        const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
        kept = { kid: toHex(await sha256(raw)), public: b64url(raw), privateKey: pair.privateKey };
        await idbDo("keys", "readwrite", (s) => s.put(kept, name));
      }
      return kept;
    })().catch(() => null));
  }
  return mine.get(user);
}

const registered = new Map(); // token -> Promise<kid | null>
/** This device's key for the token's user, registered with that user: its kid, or null
 * (unsigned play). From then on that key signs this page's moves. */
export function registeredKid(token, { again = false } = {}) {
  current = userOf(token);
  if (again) registered.delete(token);
  if (!registered.has(token)) {
    const user = current;
    registered.set(token, (async () => {
      const dev = await device(user);
      if (!dev) return null;
      const res = await fetch("/api/me/keys", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ key: dev.public }),
      });
      return res.ok ? dev.kid : null;
    })().catch(() => null));
  }
  return registered.get(token);
}

/** This device's signature (r || s, base64url) of one move's message. */
export async function sign(kind, room, version, seat, c) {
  const dev = await device();
  if (!dev) return null;
  const sig = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, dev.privateKey, utf8(sigMessage(kind, room, version, seat, c)));
  return b64url(new Uint8Array(sig));
}

const imported = new Map();
/** Whether `sig` is the signature of `message` (text) by the public key `publicB64`. */
export async function verifySig(publicB64, message, sig) {
  try {
    if (!imported.has(publicB64)) {
      imported.set(publicB64, await crypto.subtle.importKey("raw", unb64url(publicB64), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]));
    }
    return await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, imported.get(publicB64), unb64url(sig), utf8(message));
  } catch {
    return false;
  }
}

export const heads = {
  /** Keep the head of `version` this browser was sent for the room's game (the first kept). */
  async put(room, version, head) {
    if (!room || !head || !globalThis.indexedDB) return;
    try {
      const db = await idb();
      await new Promise((resolve) => {
        const tx = db.transaction("heads", "readwrite");  // read and write at once: none lost
        const store = tx.objectStore("heads");
        const req = store.get(room);
        req.onsuccess = () => {
          const kept = req.result || {};
          if (!kept[version]) {
            kept[version] = head;
            store.put(kept, room);
          }
        };
        tx.oncomplete = resolve;
        tx.onerror = resolve;
      });
    } catch { /* private mode: the game goes on, the check will have less to compare */ }
  },
  async get(room) {
    try {
      return (await idbDo("heads", "readonly", (s) => s.get(room))) || {};
    } catch {
      return {};
    }
  },
};

// -- the check of an archived record ----------------------------------------------------------
const PROOF_KEYS = ["by", "c", "key", "l", "open", "sig"];

/** The archived record (GET /api/history/games/{id}) against itself and the heads this
 * browser saw (`seen`: version -> head). {ok, chained, differsAt (the first version whose
 * archived head is not the one seen), problem, version, seen, signed, made, unsigned}. */
export async function checkRecord(record, seen = {}) {
  const events = record.events || [];
  const out = { ok: true, chained: true, differsAt: null, problem: null, version: null, seen: 0, signed: 0, made: 0, unsigned: 0 };
  const byVersion = Object.fromEntries(events.map((e) => [e.version, e]));
  const last = events.length ? events[events.length - 1] : null;
  for (const v of Object.keys(seen).map(Number).sort((a, b) => a - b)) {
    out.seen += 1;
    // A version after the archive's last event (a game abandoned there: the abandon is no
    // event of the chain) was sent with the head that event left.
    const archived = byVersion[v] || (last && v > last.version ? last : null);
    if (!archived || archived.head !== seen[v]) {
      out.ok = false;
      out.differsAt = v;
      break;
    }
  }
  if (!events.some((e) => e.head)) {
    out.chained = false;
    return out;
  }
  const broken = (version, problem) => ({ ...out, ok: false, version, problem });
  const keys = record.keys || {};
  const game = events[0] && events[0].chain && events[0].chain.game;
  if (!game) return broken(1, "no game");
  const deal = record.deal || {};
  const expect = { engine: record.engine, game_id: record.id, players: record.players, room: record.room,
    seed_digest: record.seed_digest, seed_commitment: deal.commitment ?? null };
  for (const [name, value] of Object.entries(expect)) if (game[name] !== value) return broken(1, name);
  if (canonicalJson(game.options) !== canonicalJson(record.options || {})) return broken(1, "options");
  const parts = (list) => canonicalJson((list || []).map((c) => [c.seat, c.entropy, c.by]));
  if (parts(game.contributions) !== parts(deal.contributions)) return broken(1, "contributions");
  const seats = Object.fromEntries((game.seats || []).map((s) => [s.seat, s]));
  const endBots = new Set((record.seats || []).filter((s) => s.bot).map((s) => s.seat));
  const signedBy = async (proof, user, kind, version, seat, c, sigField = "sig") => {
    const k = keys[proof.key];
    if (!k || (user !== undefined && k.user !== user)) return false;
    return verifySig(k.key, sigMessage(kind, record.room, version, seat, c), proof[sigField]);
  };
  for (const c of game.contributions || []) {
    if (c.by !== "player") continue;
    if (!c.sig) { out.unsigned += 1; continue; }
    if (!(await signedBy(c, (seats[c.seat] || {}).user, "entropy", 0, c.seat, c.entropy))) return broken(1, `contribution ${c.seat}`);
    out.signed += 1;
  }
  let prev = GENESIS;
  for (const e of events) {
    const proofs = (e.chain && e.chain.moves) || {};
    const pub = Object.fromEntries(Object.entries(proofs).map(([s, p]) => [s, Object.fromEntries(PROOF_KEYS.map((k) => [k, p[k] ?? null]))]));
    const link = linkOf({ prev, version: e.version, at: e.at, digest: e.digest, moves: pub, defaults: e.defaults,
      proxies: e.proxies, takeback: e.takeback, game: e.version === 1 ? game : null });
    if ((await headOf(link)) !== e.head) return broken(e.version, "head");
    for (const [s, p] of Object.entries(proofs)) {
      const seat = Number(s);
      if (!String(p.l).endsWith(`@${e.version - 1}`)) return broken(e.version, `label ${s}`);
      const move = (e.moves || {})[s];
      if (p.salt && move !== undefined && (await commitment(p.l, seat, move, p.salt)) !== p.c) return broken(e.version, `commitment ${s}`);
      const made = (e.defaults || []).includes(seat) || (e.proxies || []).includes(seat) || (seats[seat] || {}).bot;
      if (made && p.by !== "server") return broken(e.version, `made ${s}`);
      if (p.by === "server") {
        if (!made && !endBots.has(seat)) return broken(e.version, `server ${s}`);
        if (!(await signedBy(p, null, "made", e.version - 1, seat, p.c))) return broken(e.version, `signature ${s}`);
        out.made += 1;
      } else if (p.by === "player") {
        const sealed = !String(p.l).startsWith("act@");
        if (!(await signedBy(p, (seats[seat] || {}).user, sealed ? "commit" : "act", e.version - 1, seat, p.c))) return broken(e.version, `signature ${s}`);
        if (sealed && p.open && !(await signedBy(p, undefined, "reveal", e.version - 1, seat, p.c, "open"))) return broken(e.version, `signature ${s}`);
        out.signed += 1;
      } else if (p.by === "unsigned" && !p.sig) {
        out.unsigned += 1;
      } else {
        return broken(e.version, `proof ${s}`);
      }
    }
    prev = e.head;
  }
  return out;
}
