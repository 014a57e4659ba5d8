// The cards of Pearates (engines/pearates/cards.py, in its order): kind slug, printed value
// (null: Banana Sabre, "any"), copies, set. Identical cards are numbered ("goldfish-3"); a
// kind with one copy is just its slug. Titles and effects come from the catalogues
// (pe.card.<slug>, pe.eff.<slug>).

import { h } from "../../dom.js";
import { t } from "../../i18n.js";

export const KINDS = [
  ["empty-chest", -4, 2, "base"], ["rotten-eggs", -3, 4, "base"], ["infested-bread", -2, 6, "base"],
  ["fish-skeleton", -1, 8, "base"], ["pearl-pepper", 0, 4, "base"], ["goldfish", 1, 8, "base"],
  ["bread-booty", 2, 7, "base"], ["egg-bag", 3, 6, "base"], ["ruby-rum", 4, 5, "base"],
  ["gold-pancake", 5, 4, "base"], ["banana-box", 6, 3, "base"], ["pirate-pizza", 7, 2, "base"],
  ["filled-chest", 8, 1, "base"],
  ["locked-box", -4, 1, "more"], ["rotten-apple", -3, 2, "more"], ["poisoned-wine", -2, 3, "more"],
  ["spoiled-cabbage", -1, 4, "more"], ["scurvy-chicken", 0, 2, "more"], ["pedestal-cabbage", 1, 4, "more"],
  ["shiny-winy", 2, 4, "more"], ["golden-apple", 3, 3, "more"], ["pirate-pine", 4, 3, "more"],
  ["grapecrown", 5, 2, "more"], ["pearl-onion", 6, 2, "more"], ["biscuit-booty", 7, 2, "more"],
  ["overflown-chest", 8, 1, "more"],
  ["banana-sabre", null, 5, "special"], ["soupy-spyglass", -3, 3, "special"], ["basic-barrel", 2, 3, "special"],
  ["confused-compass", -1, 4, "special"], ["pirate-pearl", 1, 4, "special"], ["ship-in-a-bottle", 0, 3, "special"],
  ["dazzling-diamond", -2, 3, "special"], ["chewy-coin", 4, 5, "special"], ["amulet-artefact", 5, 5, "special"],
  ["hungry-hook", 6, 5, "special"],
].map(([slug, value, copies, set]) => ({ slug, value, copies, set }));

const BY_SLUG = Object.fromEntries(KINDS.map((k) => [k.slug, k]));

/** Every card name in the engine's global order, with its kind. */
export const NAMES = KINDS.flatMap((k) => Array.from({ length: k.copies }, (_, i) => (k.copies === 1 ? k.slug : `${k.slug}-${i + 1}`)));
const INDEX = Object.fromEntries(NAMES.map((n, i) => [n, i]));

export const kindOf = (name) => BY_SLUG[name.replace(/-\d+$/, "")];
export const cardIndex = (name) => INDEX[name];
export const byCard = (a, b) => INDEX[a] - INDEX[b];

/** The deck of a game with these options (cards.py deck()), as card names in order: the
 * lowest `negatives_removed` negative values left out (all four with `no_negatives`). */
export function deckNames({ more_actions = false, special_scoring = false, no_negatives = false, negatives_removed = 0 } = {}) {
  const sets = new Set(["base", ...(more_actions ? ["more"] : []), ...(special_scoring ? ["special"] : [])]);
  const removed = no_negatives ? 4 : negatives_removed;
  return NAMES.filter((n) => {
    const k = kindOf(n);
    return sets.has(k.set) && !((k.value ?? 0) < removed - 4);
  });
}

export const cardTitle = (name) => t(`pe.card.${kindOf(name).slug}.title`);
export const valueText = (v) => (v === null || v === undefined ? t("pe.any") : v > 0 ? `+${v}` : String(v));

/** A face-up card: value, title, what it does. `tag` button for a clickable one. */
export function cardFace(name, { tag = "div", props = {}, extra = "" } = {}) {
  const k = kindOf(name);
  const sign = k.value === null ? "any" : k.value < 0 ? "neg" : k.value === 0 ? "zero" : "pos";
  return h(tag, { class: `pe-card v-${sign} s-${k.set} ${extra}`.trim(), title: t(`pe.eff.${k.slug}`), ...props },
    h("span", { class: "pe-val" }, valueText(k.value)),
    h("span", { class: "pe-title" }, cardTitle(name)),
    h("span", { class: "pe-eff" }, t(`pe.eff.${k.slug}`)));
}

/** A face-down card; `label` says where it lies ("top", "bottom"), written on the card or
 * (inside: false) only to screen readers, the caller writing it beside the card. */
export function cardBack(label = "", { inside = true } = {}) {
  return h("div", { class: "pe-card down", "aria-label": label ? t("pe.hidden_at", { where: label }) : t("pe.hidden") },
    h("span", { class: "pe-back", "aria-hidden": "true" }, "❦"), label && inside ? h("span", { class: "pe-where" }, label) : null);
}
