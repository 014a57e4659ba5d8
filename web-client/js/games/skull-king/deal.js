// Recompute Skull King / Bid & Make It deals from a revealed seed, in the browser.
//
// engines/skull_king/rules.py: round r shuffles range(deck size) with Rng(seed, "deal:" + r);
// hand h gets the h-th block of n cards, n = min(r, floor(deck / hands)), where hands is the
// number of players, plus one ghost hand with two players. The first dealer is
// Rng(seed, "dealer").below(players) and the deal moves one seat per round.

import { deckNames } from "./cards.js";
import { Rng } from "../../rng.js";
import { fromHex, sha256, toHex } from "../../sha256.js";

export function handsCount(players) {
  return players === 2 ? 3 : players;
}

export function cardsPerHand(gameId, players, round) {
  return Math.min(round, Math.floor(deckNames(gameId).length / handsCount(players)));
}

/** Every hand dealt in `round` (the ghost's last, in its pile order), as card names. */
export async function dealRound(gameId, seed, players, round, opts = {}) {
  const names = deckNames(gameId);
  const rng = await Rng.create(seed, `deal:${round}`, opts);
  const order = await rng.shuffled([...names.keys()]);
  const n = cardsPerHand(gameId, players, round);
  const hands = [];
  for (let h = 0; h < handsCount(players); h++) {
    const block = order.slice(h * n, (h + 1) * n);
    if (h !== players) block.sort((a, b) => a - b);
    hands.push(block.map((i) => names[i]));
  }
  return hands;
}

export async function firstDealer(seed, players, opts = {}) {
  return (await Rng.create(seed, "dealer", opts)).below(players);
}

const same = (a, b) => {
  const x = [...a].sort(), y = [...b].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

/**
 * Check what this browser saw against the seed.
 *   seen: {round: {hand: [names], dealer: n}} -- the hand (and dealer) shown at each round start
 * Returns {ok, seedOk, checked, rounds: [{round, ok, expected, seen}]}: ok needs the seed to
 * match its digest and every seen round to match; rounds this browser never saw are skipped.
 */
export async function verifyDeals({ game, seedHex, seedDigest, players, seat, seen, opts = {} }) {
  const seed = fromHex(seedHex);
  const seedOk = !seedDigest || toHex(await sha256(seed)) === String(seedDigest).toLowerCase();
  const first = await firstDealer(seed, players, opts);
  const rounds = [];
  for (const [key, what] of Object.entries(seen || {})) {
    const round = Number(key);
    const hands = await dealRound(game, seed, players, round, opts);
    const expected = seat === null || seat === undefined ? null : hands[seat];
    let ok = true;
    if (expected && what.hand) ok = same(expected, what.hand);
    if (typeof what.dealer === "number") ok = ok && what.dealer === (first + round - 1) % players;
    rounds.push({ round, ok, expected, seen: what.hand || null });
  }
  rounds.sort((a, b) => a.round - b.round);
  return {
    ok: seedOk && rounds.length > 0 && rounds.every((r) => r.ok),
    seedOk,
    checked: rounds.length,
    rounds,
  };
}
