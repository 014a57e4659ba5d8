// The deal check of Pirate King!, recomputed in the browser from the revealed seed with the
// engine's named Rng streams (engines/pirate_king/README.md, "Randomness"):
//   captain            Rng(seed, "captain").below(players): the first Captain;
//   monsters / loot    each pile shuffled once at the start (card order); round r shows the
//                      next 2 Monsters and the next `players` Loot (2 players: 4);
//   pile:<seat>:0      the first pile of a seat, its starting deck and Pirate in card order,
//                      shuffled: its top card is the seat's first card of round 1.
// Later piles are reshuffled from discards whose contents depend on the play; they are not
// checked here (the server's `./tortuga verify` replays the whole game).

import { byId, LOOT_NAMES, MONSTER_NAMES, startingDeck } from "./cards.js";
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
  return {
    captain,
    rows: (round) => ({
      monsters: monsters.slice((round - 1) * MONSTER_ROW, round * MONSTER_ROW),
      loot: loot.slice((round - 1) * L, round * L),
    }),
    async firstCard(seat, pirate) {
      const cards = [...startingDeck(seat), pirate].sort(byId);
      return (await (await Rng.create(seed, `pile:${seat}:0`, opts)).shuffled(cards))[0];
    },
  };
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * What a view shows of the deal, to check later (null: nothing to record now):
 *   round 0 (the Pirates are picked): {round: 0, captain};
 *   the first view of a round's beats: {round, monsters, loot, first: {seat: [pirate, card]}}
 *   (first: round 1 only, each seat's first card while it is still the first of its zone).
 */
export function dealSeen(view) {
  if (view.phase === "pick" && view.picks === 0) return { round: 0, captain: view.captain };
  if (view.phase !== "play" || view.beat !== 1) return null;
  const first = {};
  if (view.round === 1) {
    for (const s of view.table) {
      const top = s.zone[0];
      if (s.status !== "sunk" && top && top.given_by === null && s.pirate) first[s.seat] = [s.pirate, top.card];
    }
  }
  return { round: view.round, monsters: view.monster_row, loot: view.loot_row, first };
}

/** Check each recorded round against the seed: a list of {round, ok}. */
export async function checkSeen(dealt, seen) {
  const rounds = [];
  for (const [key, what] of Object.entries(seen || {})) {
    const round = Number(key);
    let ok = true;
    if (round === 0) ok = what.captain === dealt.captain;
    else {
      const rows = dealt.rows(round);
      ok = same(rows.monsters, what.monsters || []) && same(rows.loot, what.loot || []);
      for (const [seat, [pirate, first]] of Object.entries(what.first || {})) {
        ok = ok && (await dealt.firstCard(Number(seat), pirate)) === first;
      }
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
