// The house card list of Pirate King! as the browser draws it: a copy of
// engines/pirate_king/card_list.py (tests/browser/test_pirate_king_table.py compares the two
// card by card). Card names are numbered as engines/pirate_king/cards.py numbers them, in the
// same order: that order is the "card order" the piles are shuffled in (the deal check).

import { h } from "../../dom.js";
import { t } from "../../i18n.js";

const STARTING_DECK = [
  { name: "deckhand", count: 2, swords: 1 },
  { name: "coin-purse", count: 2, gold: 1 },
  { name: "cutlass", swords: 2, curses: 1 },
  { name: "gold-tooth", gold: 2, curses: 1 },
  { name: "grog", swords: 1, gold: 1, curses: 1 },
  { name: "spyglass", effect: { kind: "look", n: 2 } },
];
const STARTING_DECKS = 5;

const PIRATES = [
  { name: "scarlette", swords: 1, effect: { kind: "captain" } },
  { name: "yellow", swords: 1, effect: { kind: "flip" } },
  { name: "violette", effect: { kind: "choose" } },
  { name: "rossy", gold: 1, effect: { kind: "gain", gain: "gold", per: "curse" } },
  { name: "wilson", curses: 1, effect: { kind: "give" } },
  { name: "gary", swords: 1, effect: { kind: "retrieve" } },
  { name: "sea-witch", gold: 2, curses: 1, effect: { kind: "reveal", n: 1, others: true } },
  { name: "navy", swords: 2 },
  { name: "red", effect: { kind: "loot" } },
  { name: "blackbeard", swords: 3, curses: 1 },
];

const MONSTERS = [
  { name: "sea-serpent", count: 4, crowns: 2, swords: 1 },
  { name: "giant-crab", count: 4, crowns: 3, swords: 1, curses: 1 },
  { name: "ghost-ship", count: 3, crowns: 4, swords: 2, curses: 1 },
  { name: "leviathan", count: 2, crowns: 5, swords: 2, curses: 2 },
  { name: "kraken", crowns: 6, swords: 3, curses: 2 },
];

const LOOT = [
  { name: "doubloons", count: 6, gold: 2 },
  { name: "flintlock", count: 6, swords: 2 },
  { name: "jewel-chest", count: 4, crowns: 2, curses: 1 },
  { name: "golden-idol", count: 3, crowns: 3, gold: 1, curses: 1 },
  { name: "royal-crown", count: 2, crowns: 4, curses: 2 },
  { name: "map-fragment", count: 6, map: true },
  { name: "compass", count: 3, gold: 1, effect: { kind: "look", n: 3 } },
  { name: "parrot", count: 3, effect: { kind: "copy" } },
  { name: "lucky-charm", count: 3, effect: { kind: "flip" } },
  { name: "powder-keg", count: 3, swords: 1, effect: { kind: "reveal", n: 1 } },
  { name: "treasure-map", count: 2, effect: { kind: "reveal", n: 2 } },
  { name: "cannon", count: 2, effect: { kind: "gain", gain: "swords", per: "curse" } },
  { name: "merchant-scales", count: 2, effect: { kind: "gain", gain: "gold", per: "loot" } },
];

/** Every card in the engine's order: {name, base, type, deck, swords, gold, curses, crowns, map, effect}. */
export const CARDS = (() => {
  const out = [];
  const add = (raw, name, type, deck) => out.push({
    name, base: raw.name, type, deck, swords: raw.swords || 0, gold: raw.gold || 0,
    curses: raw.curses || 0, crowns: raw.crowns || 0, map: !!raw.map, effect: raw.effect || null,
  });
  for (let deck = 0; deck < STARTING_DECKS; deck++) {
    for (const raw of STARTING_DECK) {
      const count = raw.count || 1;
      for (let c = 0; c < count; c++) add(raw, `${raw.name}-${deck + 1}${count > 1 ? "ab"[c] : ""}`, "start", deck);
    }
  }
  for (const raw of PIRATES) add(raw, raw.name, "pirate", -1);
  for (const [type, list] of [["monster", MONSTERS], ["loot", LOOT]]) {
    for (const raw of list) {
      const count = raw.count || 1;
      for (let c = 0; c < count; c++) add(raw, count > 1 ? `${raw.name}-${c + 1}` : raw.name, type, -1);
    }
  }
  return out;
})();

const BY_NAME = new Map(CARDS.map((c, i) => [c.name, { ...c, id: i }]));

export function card(name) {
  return BY_NAME.get(name) || null;
}

/** A card's title in the reader's language ("Deckhand"). */
export function cardTitle(name) {
  const c = card(name);
  return c ? t(`pk.card.${c.base}`) : name;
}

/** A card's effect in a few words ("Look 2", "other players: Reveal 1"), or "". */
export function effectText(effect) {
  if (!effect) return "";
  const words = t(`pk.effect.${effect.kind}${effect.kind === "gain" ? `.${effect.gain}.${effect.per}` : ""}`, { n: effect.n ?? 1 });
  return effect.others ? t("pk.effect.others", { effect: words }) : words;
}

/** The symbols of a card (or of a zone entry: face down has none; a Copy shows the copied card's). */
export function symbols(entry) {
  const c = card(entry.card);
  if (!c || entry.up === false) return null;
  const src = entry.copy ? card(entry.copy) || c : c;
  return {
    swords: src.swords + (entry.swords || 0),
    gold: src.gold + (entry.gold || 0),
    curses: src.curses,
    crowns: c.crowns,
    map: c.map,
    effect: src.effect,
  };
}

/** The symbols in words, for the accessible name: "2 swords, 1 curse, Look 2". */
export function symbolsText(s) {
  if (!s) return t("pk.face_down");
  const parts = [];
  if (s.swords) parts.push(t("pk.sym.swords", { count: s.swords }));
  if (s.gold) parts.push(t("pk.sym.gold", { count: s.gold }));
  if (s.curses) parts.push(t("pk.sym.curses", { count: s.curses }));
  if (s.crowns) parts.push(t("pk.sym.crowns", { count: s.crowns }));
  if (s.map) parts.push(t("pk.sym.map"));
  if (s.effect) parts.push(effectText(s.effect));
  return parts.join(", ");
}

/** One card: the title, then its symbols as icons (the words are its accessible name). */
export function cardFace(entryOrName, { tag = "div", props = {}, extra = "", fresh = false } = {}) {
  const entry = typeof entryOrName === "string" ? { card: entryOrName, up: true } : entryOrName;
  const c = card(entry.card);
  const s = symbols(entry);
  const title = cardTitle(entry.card);
  const copy = entry.copy ? ` (${t("pk.copies", { card: cardTitle(entry.copy) })})` : "";
  const label = `${title}${copy}: ${symbolsText(s)}${extra ? ` — ${extra}` : ""}`;
  const icons = [];
  if (s) {
    if (s.swords) icons.push(h("span", { class: "pk-sw" }, `⚔${s.swords}`));
    if (s.gold) icons.push(h("span", { class: "pk-go" }, `●${s.gold}`));
    if (s.curses) icons.push(h("span", { class: "pk-cu" }, "☠".repeat(s.curses)));
    if (s.crowns) icons.push(h("span", { class: "pk-cr" }, `♛${s.crowns}`));
    if (s.map) icons.push(h("span", { class: "pk-map" }, `◈ ${t("pk.sym.map")}`));
  }
  const effect = s && s.effect ? h("span", { class: "pk-eff" }, effectText(s.effect)) : null;
  return h(tag, {
    class: ["pk-card", c && `t-${c.type}`, entry.up === false && "down", entry.given_by !== null && entry.given_by !== undefined && "given", fresh && "fresh"],
    "aria-label": label, title: label, dataset: { card: entry.card }, ...props,
  },
  h("span", { class: "pk-title", "aria-hidden": "true" }, entry.up === false ? t("pk.face_down_short") : title),
  h("span", { class: "pk-syms", "aria-hidden": "true" }, icons),
  effect ? h("span", { "aria-hidden": "true" }, effect) : null);
}

/** The names of a seat's starting deck (deck seat + 1), in card order. */
export function startingDeck(seat) {
  return CARDS.filter((c) => c.type === "start" && c.deck === seat).map((c) => c.name);
}

export const MONSTER_NAMES = CARDS.filter((c) => c.type === "monster").map((c) => c.name);
export const LOOT_NAMES = CARDS.filter((c) => c.type === "loot").map((c) => c.name);

/** Card order (the engine's ids), for "sorted" piles. */
export function byId(a, b) {
  return BY_NAME.get(a).id - BY_NAME.get(b).id;
}
