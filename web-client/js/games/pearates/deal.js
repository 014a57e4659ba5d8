// The deal check of Pearates, recomputed in the browser from the revealed seed with the
// engine's named Rng streams (engines/pearates/README.md, "Randomness"):
//   deal    one shuffle of the game's deck (card order): seat s gets cards 5s .. 5s+4, the
//           rest is the pile, top first; a shorter game removes its first cards (open to all);
//   start   Rng(seed, "start").below(players): the first start player.
// Later draws depend on the play; the server's `./tortuga verify` replays the whole game.

import { byCard, deckNames } from "./cards.js";
import { Rng } from "../../rng.js";
import { fromHex, sha256, toHex } from "../../sha256.js";

const HAND = 5;

/** What the seed deals: {hands, pile, start}. */
export async function dealFromSeed(seed, players, options, opts = {}) {
  const order = await (await Rng.create(seed, "deal", opts)).shuffled(deckNames(options));
  const hands = Array.from({ length: players }, (_, s) => order.slice(s * HAND, (s + 1) * HAND).sort(byCard));
  const start = await (await Rng.create(seed, "start", opts)).below(players);
  return { hands, pile: order.slice(players * HAND), start };
}

const BEFORE_SPLIT = new Set(["arrange", "turn", "bid", "action", "put"]);

/** What a view shows of the deal, in round 1 before the split: the first start player, the
 * removed cards, the deck's options, and my hand while it is still the dealt one (only my own
 * moves change my hand before the split: the first view before I moved). A bot may arrange
 * the treasure before this browser sees the round: any view of that stretch will do. */
export function dealSeen(view) {
  if (view.round !== 1 || !BEFORE_SPLIT.has(view.phase)) return null;
  const moved = view.seat !== null && (view.log || []).some((e) => e.seat === view.seat && e.what !== "treasure");
  if (moved) return null;
  const o = view.options || {};
  return {
    round: 1, seat: view.seat, hand: view.hand, start: view.start, removed: view.removed,
    options: { more_actions: !!o.more_actions, special_scoring: !!o.special_scoring, no_negatives: !!o.no_negatives },
  };
}

const sameSet = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** Whether one recorded deal matches the seed. */
export async function checkOne(seed, players, what, opts = {}) {
  const dealt = await dealFromSeed(seed, players, what.options, opts);
  let ok = dealt.start === what.start;
  if (what.hand && what.seat !== null && what.seat !== undefined) ok = ok && sameSet(dealt.hands[what.seat], what.hand);
  for (const [s, hand] of Object.entries(what.hands || {})) ok = ok && sameSet(dealt.hands[Number(s)], hand);
  const removed = what.removed || [];
  return ok && sameSet(dealt.pile.slice(0, removed.length), removed);
}

export async function verifyDeals({ seedHex, seedDigest, players, seen, opts = {} }) {
  const seed = fromHex(seedHex);
  const seedOk = !seedDigest || toHex(await sha256(seed)) === String(seedDigest).toLowerCase();
  const rounds = [];
  for (const [key, what] of Object.entries(seen || {})) rounds.push({ round: Number(key), ok: await checkOne(seed, players, what, opts) });
  return { ok: seedOk && rounds.length > 0 && rounds.every((r) => r.ok), seedOk, checked: rounds.length, rounds };
}
