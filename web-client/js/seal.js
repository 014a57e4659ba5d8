// Commit / reveal for sealed phases (docs/PROTOCOL.md).
//
//   digest = hex(sha256(phase + ":" + seat + ":" + canonical_json(move) + ":" + salt))
//
// canonical_json is Python's json.dumps(move, sort_keys=True, separators=(",", ":"),
// ensure_ascii=False): keys sorted by code point, no spaces, non-ASCII kept as is.
// The salt is the hex of 16 random bytes from crypto.getRandomValues. The sealed move and
// its salt are kept in sessionStorage, so a reload between commit and reveal reveals the
// very same move (the digest is already on the server; any other move would be refused).

import { sha256, toHex, utf8 } from "./sha256.js";

const PREFIX = "tortuga.seal.";

function byCodePoint(a, b) {
  const x = Array.from(a), y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

/** JSON as Python writes it with sort_keys=True, separators=(",", ":"), ensure_ascii=False. */
export function canonicalJson(value) {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isInteger(value)) {
      // Python writes 1.5 as 1.5 but 1.0 as 1.0; moves are whole numbers, so refuse floats.
      throw new Error("canonical JSON here carries whole numbers only");
    }
    if (value === undefined) throw new Error("undefined is not JSON");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return "[" + value.map(canonicalJson).join(",") + "]";
  const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort(byCodePoint);
  return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonicalJson(value[k])).join(",") + "}";
}

/** hex(sha256(phase:seat:canonical_json(move):salt)). */
export async function digest(phase, seat, move, salt) {
  const text = `${phase}:${seat}:${canonicalJson(move)}:${salt}`;
  return toHex(await sha256(utf8(text)));
}

/** A fresh salt: hex of `bytes` random bytes (at least 16). */
export function newSalt(bytes = 16) {
  const raw = new Uint8Array(Math.max(16, bytes));
  crypto.getRandomValues(raw);
  return toHex(raw);
}

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

function key(room, phase) {
  return `${PREFIX}${room}.${phase}`;
}

/** Seal a move: draw a salt, compute the digest, keep {phase, seat, move, salt, digest}. */
export async function seal(room, phase, seat, move) {
  const salt = newSalt();
  const sealed = { room, phase, seat, move, salt, digest: await digest(phase, seat, move, salt) };
  storage()?.setItem(key(room, phase), JSON.stringify(sealed));
  return sealed;
}

/** The move sealed in this tab for (room, phase), or null. */
export function load(room, phase) {
  const raw = storage()?.getItem(key(room, phase));
  if (!raw) return null;
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/** Forget sealed moves of a room: one phase, or every phase but `keep`. */
export function forget(room, phase = null, { keep = null } = {}) {
  const s = storage();
  if (!s) return;
  if (phase !== null) {
    s.removeItem(key(room, phase));
    return;
  }
  const prefix = `${PREFIX}${room}.`;
  for (let i = s.length - 1; i >= 0; i--) {
    const k = s.key(i);
    if (k && k.startsWith(prefix) && k !== (keep === null ? null : key(room, keep))) {
      s.removeItem(k);
    }
  }
}

/** Check a revealed move against the digest its seat committed. */
export async function check(phase, seat, move, salt, expected) {
  return (await digest(phase, seat, move, salt)) === expected;
}
