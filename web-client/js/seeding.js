// The deal seed (server/table/seeding.py; README, "The deal seed"), so that this browser adds its own
// randomness to the deal and can check, once the game is over, that the seed was made from it:
//
//   seed = SHA-256(utf8("tortuga-seed/1") || 0x00 || server_seed || c_0 || ... || c_{n-1})
//
// server_seed: the 32 bytes the room committed to when it was set up (commitment =
// SHA-256(server_seed), published then, revealed at the end); c_i: seat i's 32 bytes, in seat
// order (sent with `ready`, or chosen by the server for a seat that sent none: by "server").

import { t } from "./i18n.js";
import { fromHex, sha256, toHex, utf8 } from "./sha256.js";

export const LABEL = "tortuga-seed/1";
const KEY = "tortuga.deal.";

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

/** This browser's contribution for a room (made once, kept across reloads). */
export function contributionFor(code) {
  const data = read(code);
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

/** The game seed (hex) from the server seed and every contribution (hex), in seat order. */
export async function deriveSeed(serverSeedHex, contributionsHex) {
  const parts = [utf8(LABEL), new Uint8Array([0]), fromHex(serverSeedHex), ...contributionsHex.map(fromHex)];
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  return toHex(await sha256(all));
}

/** Whether this browser's own bytes are in the deal: true, false (they are not: the server
 * chose for this seat, or something else), or null (not started, or not seated). */
export function mineIsIn(code, room, seat) {
  const list = room && room.contributions;
  if (!list || seat === null || seat === undefined) return null;
  const mine = read(code).entropy;
  const entry = list.find((c) => c.seat === seat);
  return !!(mine && entry && entry.entropy === mine && entry.by === "player");
}

/** Once the server seed is out: {ok, message} -- the commitment this browser saw first
 * matches the server seed, and the seed is the derivation of it and the contributions. */
export async function checkDerivation(code, room) {
  if (!room.contributions || !room.server_seed) return { ok: true, message: "", checked: false };
  const commitment = read(code).commitment || room.seed_commitment;
  if (commitment !== room.seed_commitment) {
    return { ok: false, message: t("seeding.changed"), checked: true };
  }
  if (toHex(await sha256(fromHex(room.server_seed))) !== commitment) {
    return { ok: false, message: t("seeding.mismatch"), checked: true };
  }
  const seats = [...room.contributions].sort((a, b) => a.seat - b.seat);
  const derived = await deriveSeed(room.server_seed, seats.map((c) => c.entropy));
  if (derived !== String(room.seed).toLowerCase()) {
    return { ok: false, message: t("seeding.not_derived"), checked: true };
  }
  return { ok: true, message: "", checked: true };
}
