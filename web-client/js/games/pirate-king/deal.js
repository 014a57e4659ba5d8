// The deal check of Pirate King!, recomputed in the browser from the revealed seed with the
// engine's named Rng streams (engines/pirate_king/README.md, "Randomness"):
//   captain            Rng(seed, "captain").below(players): the first Captain;
//   monsters / loot    each pile shuffled once at the start (card order); round r shows the
//                      next 2 Monsters and the next `players` Loot (2 players: 4), the
//                      Loot row from `loot_at` in the view (Red's draws come between rows);
//   pile:<seat>:0      the first pile of a seat, its starting deck and Pirate in card order,
//                      shuffled: its top card is the seat's first card of round 1;
//   pile:<seat>:<n>    the n-th pile made from the seat's discard (face up, so public) in card
//                      order, shuffled: each view says what the current pile was made `from`
//                      and, place by place, every card that has left it (views.py `made`);
//                      each such card is checked at its place.
// (The server's `./tortuga verify` recomputes every state of the game, piles included.)

import { byId, card, LOOT_NAMES, MONSTER_NAMES, startingDeck } from "./cards.js";
import { Rng } from "../../rng.js";
import { fromHex, sha256, toHex } from "../../sha256.js";

export const lootRowSize = (players) => (players === 2 ? 4 : players);
const MONSTER_ROW = 2;

/** What the seed deals: {captain, rows(round) -> {monsters, loot}, firstCard(seat, pirate)}. */
export async function dealFromSeed(seed, players, opts = {}) {
  const captain = await (await Rng.create(seed, "captain", opts)).below(players);
  const monsters = await (await Rng.create(seed, "monsters", opts)).shuffled(MONSTER_NAMES);
  const loot = await (await Rng.create(seed, "loot", opts)).shuffled(LOOT_NAMES);
  const L = lootRowSize(players);
  const piles = new Map();  // the same pile is recorded in several rounds: shuffled once
  return {
    captain,
    /** Round `round`'s rows; its Loot row starts at `lootAt` (Red's draws take Loot cards
     * between rows; without Red, (round - 1) * L). */
    rows: (round, lootAt = (round - 1) * L) => ({
      monsters: monsters.slice((round - 1) * MONSTER_ROW, round * MONSTER_ROW),
      // Never before the rows already dealt: a view cannot move a row back.
      loot: Number.isInteger(lootAt) && lootAt >= (round - 1) * L ? loot.slice(lootAt, lootAt + L) : [null],
    }),
    async firstCard(seat, pirate) {
      return (await this.pile(seat, 0, pirate))[0];
    },
    /** The order of pile `n` of `seat`, made `from` its discard (n = 0: `from` is the Pirate
     * picked, shuffled in with the starting deck). Null when `from` is not a list of cards. */
    async pile(seat, n, from) {
      const cards = n === 0 ? [...startingDeck(seat), from] : from;
      if (!Array.isArray(cards) || !cards.every((c) => typeof c === "string" && card(c))) return null;
      const key = `${seat}:${n}:${cards.join(",")}`;
      if (!piles.has(key)) piles.set(key, (await Rng.create(seed, `pile:${seat}:${n}`, opts)).shuffled([...cards].sort(byId)));
      return piles.get(key);
    },
  };
}

const PILE = /^pile:(\d+):(\d+)$/;
const DRAWN = /^(pile:\d+:\d+)#(\d+)$/;

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * What a view shows of the deal, to check later (null: nothing to record now):
 *   round 0 (the Pirates are picked): {round: 0, captain};
 *   the first view of a round's beats: {round, monsters, loot, first: {seat: [pirate, card]}}
 *   (first: round 1 only, each seat's first card while it is still the first of its zone);
 *   and in every view of a round, each seat's current pile: "pile:<seat>:<n>" -> what it was
 *   made from (n = 0: the Pirate), "pile:<seat>:<n>#<i>" -> the card that was at place i of
 *   its shuffle, once it has left the pile (the store keeps the first value of each key, so
 *   the cards drawn add up view after view).
 */
export function dealSeen(view) {
  if (view.phase === "pick") return view.picks === 0 ? { round: 0, captain: view.captain } : null;
  const out = { round: view.round };
  if (view.phase === "play" && view.beat === 1) {
    const first = {};
    if (view.round === 1) {
      for (const s of view.table) {
        const top = s.zone[0];
        if (s.status !== "sunk" && top && top.given_by === null && s.pirate) first[s.seat] = [s.pirate, top.card];
      }
    }
    Object.assign(out, { monsters: view.monster_row, loot: view.loot_row, lootAt: view.loot_at, first });
  }
  for (const s of view.table) {
    const made = s.made;
    if (!made) continue;
    const key = `pile:${s.seat}:${made.n}`;
    out[key] = made.n === 0 ? s.pirate : made.from;
    made.drawn.forEach((c, i) => { if (c !== null) out[`${key}#${i}`] = c; });
  }
  return Object.keys(out).length > 1 ? out : null;
}

/** Every pile card recorded in a round (`dealSeen`'s "pile:..#i" keys) at its place in the
 * shuffle recomputed from the seed; a card whose pile's `from` was not recorded fails. */
async function checkPiles(dealt, what) {
  const orders = {};
  for (const [key, from] of Object.entries(what)) {
    const m = PILE.exec(key);
    if (m) orders[key] = await dealt.pile(Number(m[1]), Number(m[2]), from);
  }
  for (const [key, c] of Object.entries(what)) {
    const m = DRAWN.exec(key);
    if (!m) continue;
    const order = orders[m[1]];
    if (!order || order[Number(m[2])] !== c) return false;
  }
  return true;
}

/** Check each recorded round against the seed: a list of {round, ok}. */
export async function checkSeen(dealt, seen) {
  const rounds = [];
  for (const [key, what] of Object.entries(seen || {})) {
    const round = Number(key);
    let ok = true;
    if (round === 0) ok = what.captain === dealt.captain;
    else {
      if (what.monsters || what.loot) {
        const rows = dealt.rows(round, what.lootAt ?? undefined);
        ok = same(rows.monsters, what.monsters || []) && same(rows.loot, what.loot || []);
      }
      for (const [seat, [pirate, first]] of Object.entries(what.first || {})) {
        ok = ok && (await dealt.firstCard(Number(seat), pirate)) === first;
      }
      ok = ok && (await checkPiles(dealt, what));
    }
    rounds.push({ round, ok });
  }
  return rounds.sort((a, b) => a.round - b.round);
}

export async function verifyDeals({ seedHex, seedDigest, players, seen, opts = {} }) {
  const seed = fromHex(seedHex);
  const seedOk = !seedDigest || toHex(await sha256(seed)) === String(seedDigest).toLowerCase();
  const rounds = await checkSeen(await dealFromSeed(seed, players, opts), seen);
  return { ok: seedOk && rounds.length > 0 && rounds.every((r) => r.ok), seedOk, checked: rounds.length, rounds };
}
