// The deal check of Pearates, recomputed in the browser from the revealed seed with the
// engine's named Rng streams (engines/pearates/README.md, "Randomness"):
//   deal            one shuffle of the game's deck (card order): seat s gets cards 5s .. 5s+4,
//                   the rest is the pile, top first; a shorter game removes its first cards
//                   (open to all);
//   start           Rng(seed, "start").below(players): the first start player;
//   reshuffle:<n>   a longer game's reshuffle of the discards (card order), made while n
//                   reshuffles were left.
// Every card this seat saw drawn from a pile (a treasure it arranged, a Banana Box draw, a
// card added from the deck ...) is checked at its place in that pile: each view lists the
// current pile's draws (`drawn`: the cards the viewer may place, null elsewhere), and the
// game-over view says which cards each reshuffle shuffled. (The server's `./tortuga verify`
// recomputes every state of the game.)

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
  const o = view.options || {};
  const options = { more_actions: !!o.more_actions, special_scoring: !!o.special_scoring, no_negatives: !!o.no_negatives,
    negatives_removed: Number(o.negatives_removed) || 0 };
  const out = { round: view.round };
  const moved = view.seat !== null && (view.log || []).some((e) => e.seat === view.seat && e.what !== "treasure");
  if (view.round === 1 && BEFORE_SPLIT.has(view.phase) && !moved) {
    Object.assign(out, { seat: view.seat, hand: view.hand, start: view.start, removed: view.removed, options });
  }
  // Every card drawn from the current pile that this view can place: "draw:<stream>#<i>".
  const drawn = view.drawn || {};
  (drawn.cards || []).forEach((c, i) => { if (c !== null) out[`draw:${drawn.pile}#${i}`] = c; });
  for (const [stream, cards] of Object.entries(drawn.reshuffled || {})) out[`made:${stream}`] = cards;
  if (Object.keys(out).length === 1) return null;
  out.options = options;
  out.removedCount = (view.removed || []).length;
  return out;
}

const sameSet = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

const DRAW = /^draw:(deal|reshuffle:\d+)#(\d+)$/;

/** Every draw recorded in `what` at its place in its pile: the deal's pile after the removed
 * cards, or a reshuffle of the cards `made` says it shuffled (missing: the check fails). */
async function checkDraws(seed, dealt, what, made, opts) {
  const piles = {};
  for (const [key, card] of Object.entries(what)) {
    const m = DRAW.exec(key);
    if (!m) continue;
    const [, stream, place] = m;
    if (!(stream in piles)) {
      if (stream === "deal") piles[stream] = dealt.pile.slice(what.removedCount || 0);
      else if (Array.isArray(made[stream])) piles[stream] = await (await Rng.create(seed, stream, opts)).shuffled([...made[stream]].sort(byCard));
      else piles[stream] = null;
    }
    if (!piles[stream] || piles[stream][Number(place)] !== card) return false;
  }
  return true;
}

/** Whether one recorded round matches the seed (`made`: every reshuffle's cards, from any
 * round's record). */
export async function checkOne(seed, players, what, opts = {}, made = {}) {
  const dealt = await dealFromSeed(seed, players, what.options, opts);
  if (!(await checkDraws(seed, dealt, what, made, opts))) return false;
  if (!("start" in what)) return true;
  let ok = dealt.start === what.start;
  if (what.hand && what.seat !== null && what.seat !== undefined) ok = ok && sameSet(dealt.hands[what.seat], what.hand);
  for (const [s, hand] of Object.entries(what.hands || {})) ok = ok && sameSet(dealt.hands[Number(s)], hand);
  const removed = what.removed || [];
  return ok && sameSet(dealt.pile.slice(0, removed.length), removed);
}

export async function verifyDeals({ seedHex, seedDigest, players, seen, opts = {} }) {
  const seed = fromHex(seedHex);
  const seedOk = !seedDigest || toHex(await sha256(seed)) === String(seedDigest).toLowerCase();
  const made = {};
  for (const what of Object.values(seen || {})) {
    for (const [key, cards] of Object.entries(what)) if (key.startsWith("made:")) made[key.slice(5)] = cards;
  }
  const rounds = [];
  for (const [key, what] of Object.entries(seen || {})) rounds.push({ round: Number(key), ok: await checkOne(seed, players, what, opts, made) });
  return { ok: seedOk && rounds.length > 0 && rounds.every((r) => r.ok), seedOk, checked: rounds.length, rounds };
}
