// The deal seed (server/table/seeding.py; README, "The deal seed"), so that this browser adds its own
// randomness to the deal and can check, once the game is over, that the seed was made from it:
//
//   seed = SHA-256(utf8("tortuga-seed/2") || 0x00 || server_seed || c_0 || ... || c_{n-1})
//
// server_seed: the 32 bytes the room committed to when it was set up (commitment =
// SHA-256(server_seed), published then, revealed at the end); c_i: seat i's 32 bytes, in seat
// order: sent with `ready`, or -- a seat that sent none, by "server" -- the server's bytes for
// that seat, HMAC-SHA256(server_seed, utf8("tortuga-seat/1") || 0x00 || u64be(i)), fixed by the
// commitment before anyone contributed. This browser sends its bytes only once it has seen
// the commitment, and keeps the first one it saw.

import { t } from "./i18n.js";
import { fromHex, hmacSha256Sync, sha256, toHex, utf8 } from "./sha256.js";

export const LABEL = "tortuga-seed/2";
// Games from before the server's bytes were fixed by the commitment.
export const LEGACY_LABEL = "tortuga-seed/1";
export const SEAT_LABEL = "tortuga-seat/1";
const KEY = "tortuga.deal.";
const HEX64 = /^[0-9a-f]{64}$/;

function read(code) {
  try {
    return JSON.parse(localStorage.getItem(KEY + code) || "null") || {};
  } catch {
    return {};
  }
}

function write(code, data) {
  try {
    localStorage.setItem(KEY + code, JSON.stringify(data));
  } catch {
    /* private mode: the contribution still goes out, it is just not remembered */
  }
}

/** 32 random bytes from this browser, as hex. */
export function newContribution() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return toHex(bytes);
}

/** The bytes to send with `ready` for a room (made once, kept across reloads), or null
 * while this browser has not seen the room's commitment -- or has seen another one first:
 * bytes sent before the server is bound to its seed would let it choose the deal. */
export function contributionFor(code, commitment) {
  if (!commitment || !HEX64.test(commitment)) return null;
  noteCommitment(code, commitment);
  const data = read(code);
  if (data.commitment !== commitment) return null;
  if (!data.entropy) {
    data.entropy = newContribution();
    write(code, data);
  }
  return data.entropy;
}

/** Remember the first commitment this browser saw for a room (before anyone contributed). */
export function noteCommitment(code, commitment) {
  if (!commitment) return;
  const data = read(code);
  if (!data.commitment) write(code, { ...data, commitment });
}

function joined(parts) {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  return all;
}

/** The game seed (hex) from the server seed and every contribution (hex), in seat order. */
export async function deriveSeed(serverSeedHex, contributionsHex, label = LABEL) {
  const parts = [utf8(label), new Uint8Array([0]), fromHex(serverSeedHex), ...contributionsHex.map(fromHex)];
  return toHex(await sha256(joined(parts)));
}

/** The server's bytes (hex) for a seat: fixed by the server seed, hence by its commitment. */
export function serverBytes(serverSeedHex, seat) {
  const index = new Uint8Array(8);
  new DataView(index.buffer).setBigUint64(0, BigInt(seat));
  return toHex(hmacSha256Sync(fromHex(serverSeedHex), joined([utf8(SEAT_LABEL), new Uint8Array([0]), index])));
}

/** Whether this browser's own bytes are in the deal: true, false (this browser sent bytes and
 * they are not: the server left them out), or null (not started, not seated, or this browser
 * sent none). */
export function mineIsIn(code, room, seat) {
  const list = room && room.contributions;
  if (!list || seat === null || seat === undefined) return null;
  const mine = read(code).entropy;
  if (!mine) return null;
  const entry = list.find((c) => c.seat === seat);
  return !!(entry && entry.entropy === mine && entry.by === "player");
}

const fail = (message) => ({ ok: false, message, checked: true });

/** Once the seed is out: {ok, message} -- the room published a commitment (the one this browser
 * saw first), the server seed matches it, the server's bytes for each seat are the ones it
 * fixes, this browser's bytes (if it sent any for ``seat``) are in, and the seed is the
 * derivation of it all. A game without a commitment or without its deal data fails. */
export async function checkDerivation(code, room, seat = null) {
  if (!room || !room.seed) return { ok: true, message: "", checked: false };
  const seen = read(code).commitment;
  const commitment = seen || room.seed_commitment;
  if (!commitment || !HEX64.test(String(commitment))) return fail(t("seeding.no_commitment"));
  if (commitment !== room.seed_commitment) return fail(t("seeding.changed"));
  const list = room.contributions;
  if (!Array.isArray(list) || !list.length || !room.server_seed) return fail(t("seeding.no_deal"));
  if (!HEX64.test(String(room.server_seed)) || toHex(await sha256(fromHex(room.server_seed))) !== commitment) {
    return fail(t("seeding.mismatch"));
  }
  const seats = [...list].sort((a, b) => a.seat - b.seat);
  if (seats.some((c, i) => c.seat !== i || !HEX64.test(String(c.entropy)))) return fail(t("seeding.no_deal"));
  if (mineIsIn(code, room, seat) === false) return fail(t("seeding.mine_dropped"));
  const parts = seats.map((c) => c.entropy);
  const byServer = seats.filter((c) => c.by !== "player").map((c) => c.seat);
  const seed = String(room.seed).toLowerCase();
  if (await deriveSeed(room.server_seed, parts) === seed) {
    const chosen = byServer.find((s) => seats[s].entropy !== serverBytes(room.server_seed, s));
    if (chosen !== undefined) return fail(t("seeding.server_chose", { seat: chosen + 1 }));
    return { ok: true, message: "", checked: true };
  }
  if (await deriveSeed(room.server_seed, parts, LEGACY_LABEL) === seed) {
    if (byServer.length) return fail(t("seeding.legacy", { seats: byServer.map((s) => s + 1).join(", ") }));
    return { ok: true, message: "", checked: true };
  }
  return fail(t("seeding.not_derived"));
}
