// Recompute Loon & Score Cards deals from a revealed seed, in the browser.
//
// engines/loon_tricks/rules.py (_begin_round), checked against the engine:
// - the score cards of round r: one stream Rng(seed, "scores:" + r) shuffles, deck after deck
//   (recruitment, capture, treasure), the cards of that deck not drawn in earlier rounds (in
//   score_cards.CARDS order) and takes the first 2 / 1 / 1;
// - the crew cards: order = Rng(seed, "deal:" + r).shuffled(deck(players)); hand h is
//   order[5h : 5h+5], row i is order[5n+7i : 5n+7i+7] with n players: its first 5 cards face
//   up, its last 2 face down. Hands and row cards are sorted (card order).

import { NAMES, SCORE_CARDS, deck } from "./cards.js";
import { Rng } from "../../rng.js";
import { fromHex, sha256, toHex } from "../../sha256.js";

const HAND = 5;
const ROW = 7;
const UP = 5;

const names = (block) => [...block].sort((a, b) => a - b).map((i) => NAMES[i]);

/** Every hand and row dealt in `round`: {hands: [[names]], rows: [{up, down}]}. */
export async function dealRound(seed, players, round, opts = {}) {
  const rng = await Rng.create(seed, `deal:${round}`, opts);
  const order = await rng.shuffled(deck(players));
  const hands = [];
  for (let s = 0; s < players; s++) hands.push(names(order.slice(s * HAND, (s + 1) * HAND)));
  const rows = [];
  for (let i = 0; i < players; i++) {
    const block = order.slice(players * HAND + i * ROW, players * HAND + (i + 1) * ROW);
    rows.push({ up: names(block.slice(0, UP)), down: names(block.slice(UP)) });
  }
  return { hands, rows };
}

/** The score cards of rounds 1..upTo: [{recruitment: [id, id], capture, treasure}]. */
export async function scoreCards(seed, upTo, opts = {}) {
  const drawn = new Set();
  const out = [];
  for (let r = 1; r <= upTo; r++) {
    const rng = await Rng.create(seed, `scores:${r}`, opts);
    const picked = [];
    for (const [deckName, count] of [["recruitment", 2], ["capture", 1], ["treasure", 1]]) {
      const left = SCORE_CARDS.filter((c) => c.deck === deckName && !drawn.has(c.id)).map((c) => c.id);
      picked.push(...(await rng.shuffled(left)).slice(0, count));
    }
    for (const id of picked) drawn.add(id);
    out.push({ recruitment: picked.slice(0, 2), capture: picked[2], treasure: picked[3] });
  }
  return out;
}

const same = (a, b) => {
  const x = [...a].sort(), y = [...b].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

/** Whether what a browser saw of one round (module.js dealSeen) matches the recomputed deal. */
function matches(what, dealt, scores, seat) {
  let ok = true;
  if (what.scores) {
    ok = ok && same(what.scores.recruitment, scores.recruitment)
      && what.scores.capture === scores.capture && what.scores.treasure === scores.treasure;
  }
  if (what.rows) {
    ok = ok && what.rows.length === dealt.rows.length
      && what.rows.every((up, i) => same(up, dealt.rows[i].up));
  }
  const mine = seat === null || seat === undefined ? null : seat;
  if (mine !== null && what.hand) ok = ok && same(what.hand, dealt.hands[mine]);
  // The row I took, as my hand held it before the ditch: my 5 cards and its 7 (face down too).
  if (mine !== null && what.held && typeof what.row === "number" && dealt.rows[what.row]) {
    const row = dealt.rows[what.row];
    ok = ok && same(what.held, [...dealt.hands[mine], ...row.up, ...row.down]);
  }
  return ok;
}

/**
 * Check what this browser saw against the seed.
 *   seen: {round: {scores?, rows?, hand?, row?, held?}} (module.js dealSeen)
 * Returns {ok, seedOk, checked, rounds: [{round, ok}]}: ok needs the seed to match its digest
 * and every seen round to match; rounds this browser never saw are skipped.
 */
export async function verifyDeals({ seedHex, seedDigest, players, seat, seen, opts = {} }) {
  const seed = fromHex(seedHex);
  const seedOk = !seedDigest || toHex(await sha256(seed)) === String(seedDigest).toLowerCase();
  const keys = Object.keys(seen || {}).map(Number).filter((r) => r >= 1);
  const scores = keys.length ? await scoreCards(seed, Math.max(...keys), opts) : [];
  const rounds = [];
  for (const round of keys) {
    const dealt = await dealRound(seed, players, round, opts);
    rounds.push({ round, ok: matches(seen[round], dealt, scores[round - 1], seat) });
  }
  rounds.sort((a, b) => a.round - b.round);
  return {
    ok: seedOk && rounds.length > 0 && rounds.every((r) => r.ok),
    seedOk,
    checked: rounds.length,
    rounds,
  };
}
