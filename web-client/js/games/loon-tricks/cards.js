// The cards of engines/loon_tricks/: crew cards (cards.py) and score cards (score_cards.py).
//
// Crew cards are named `red-15`; inside the engine they are `suit * 20 + number - 1` with
// suits red, green, blue -- the order the deal shuffles. Score cards keep the engine's order
// (score_cards.CARDS): the order their decks are drawn from. Colour is never the only cue:
// every suit has a symbol.

import { t } from "../../i18n.js";

export const SUITS = ["red", "green", "blue"];  // red is always trump
export const SYMBOLS = { red: "♥", green: "♣", blue: "◆" };
const TOP = 20;
const LOWEST = { 3: 9, 4: 5, 5: 1 };  // players -> the lowest number in play

/** Every crew card name, by engine index. */
export const NAMES = SUITS.flatMap((s) => Array.from({ length: TOP }, (_, i) => `${s}-${i + 1}`));
const INDEX = new Map(NAMES.map((n, i) => [n, i]));

/** The engine's indexes of the crew cards in play with `players` seats, in card order. */
export function deck(players) {
  const low = LOWEST[players];
  return [...NAMES.keys()].filter((i) => (i % TOP) + 1 >= low);
}

export function index(name) {
  return INDEX.get(name);
}

/** {suit, rank, symbol, label} of a crew card name. */
export function describe(name) {
  const [suit, rank] = String(name).split("-");
  return { suit, rank: Number(rank), symbol: SYMBOLS[suit] || "?", label: cardLabel(name) };
}

export function cardLabel(name) {
  const [suit, rank] = String(name).split("-");
  return t("cards.number", { suit: t(`cards.suit.${suit}`), rank });
}

/** Cards in card order (red 1-20, green, blue): how the engine writes a ditch. */
export function sortCards(names) {
  return [...names].sort((a, b) => index(a) - index(b));
}

/** A hand sorted for the eye: trumps (red) last, each suit ascending. */
export function sortHand(names) {
  const order = { green: 0, blue: 1, red: 2 };
  return [...names].sort((a, b) => {
    const x = describe(a), y = describe(b);
    return order[x.suit] - order[y.suit] || x.rank - y.rank;
  });
}

// The 26 score cards in the engine's order: [id, deck, house]. Titles and texts are in the
// catalogues (lt.card.<id>.title and lt.card.<id>.text).
export const SCORE_CARDS = [
  ["beringa-backing", "recruitment", false],
  ["mustel-backing", "recruitment", true],
  ["crimson-backing", "recruitment", true],
  ["gang-of-two", "recruitment", false],
  ["gang-of-three", "recruitment", false],
  ["partners-in-crime", "recruitment", false],
  ["terrible-trio", "recruitment", true],
  ["motley-crew", "recruitment", true],
  ["old-salts", "recruitment", true],
  ["lone-wolf", "recruitment", true],
  ["mustel-bounty", "capture", false],
  ["beringa-bounty", "capture", true],
  ["crimson-bounty", "capture", true],
  ["big-fish", "capture", true],
  ["twenty-guns", "capture", true],
  ["small-fry", "capture", true],
  ["most-wanted", "capture", true],
  ["blood-money", "capture", true],
  ["unlucky-thirteen", "capture", true],
  ["rich-rewards", "treasure", false],
  ["bountiful-booty", "treasure", false],
  ["tempt-fortune", "treasure", false],
  ["extra-loot", "treasure", false],
  ["first-and-last", "treasure", true],
  ["lie-low", "treasure", true],
  ["steady-hand", "treasure", true],
].map(([id, deckName, house]) => ({ id, deck: deckName, house }));

export const SCORE_CARD = new Map(SCORE_CARDS.map((c) => [c.id, c]));

/** A score card's title ("Gang of Three"); an unknown id is shown as it is. */
export function scoreTitle(id) {
  return SCORE_CARD.has(id) ? t(`lt.card.${id}.title`) : String(id);
}

export function scoreText(id) {
  return SCORE_CARD.has(id) ? t(`lt.card.${id}.text`) : "";
}
