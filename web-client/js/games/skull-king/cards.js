// The two decks of engines/skull_king/cards.py, as the client draws them.
// Card names (`black-14`, `escape-3`, `scary-mary`, `captain`) are what views and moves carry;
// the index order (suits x ranks, then escapes, pirates, mermaids, king, choice) is the
// order the deal generator shuffles. Colours are never the only cue: every suit has a symbol.

import { t } from "../../i18n.js";

export const EDITIONS = {
  "skull-king": {
    id: "skull-king",
    title: "Skull King",
    suits: ["yellow", "red", "blue", "black"],
    symbols: { yellow: "★", red: "♥", blue: "◆", black: "☠" },
    topRank: 13,
    escapes: 5,
    pirates: 5,
    mermaids: 2,
    king: "skull-king",
    choice: "scary-mary",
    players: [2, 6],
  },
  "bid-tricks": {
    id: "bid-tricks",
    title: "Pirate Tricks: Bid & Make It",
    suits: ["green", "purple", "yellow", "black"],
    symbols: { green: "♣", purple: "♦", yellow: "★", black: "⚓" },
    topRank: 14,
    escapes: 5,
    pirates: 5,
    mermaids: 2,
    king: "captain",
    choice: "rogue",
    players: [2, 8],
  },
};

// Card names come from the catalogues (js/i18n/): "label" is the key of each.
const SPECIAL = {
  escape: { icon: "⚐", label: "cards.escape" },
  pirate: { icon: "⚔", label: "cards.pirate" },
  mermaid: { icon: "♆", label: "cards.mermaid" },
  "skull-king": { icon: "♚", label: "cards.skull-king" },
  captain: { icon: "♛", label: "cards.captain" },
  "scary-mary": { icon: "◐", label: "cards.scary-mary" },
  rogue: { icon: "◐", label: "cards.rogue" },
};

export function edition(gameId) {
  return EDITIONS[gameId] || EDITIONS["skull-king"];
}

/** Every card name of an edition, in index order. */
export function deckNames(gameId) {
  const e = edition(gameId);
  const out = [];
  for (const suit of e.suits) for (let r = 1; r <= e.topRank; r++) out.push(`${suit}-${r}`);
  for (let i = 1; i <= e.escapes; i++) out.push(`escape-${i}`);
  for (let i = 1; i <= e.pirates; i++) out.push(`pirate-${i}`);
  for (let i = 1; i <= e.mermaids; i++) out.push(`mermaid-${i}`);
  out.push(e.king, e.choice);
  return out;
}

const indexCache = new Map();
export function cardIndex(gameId) {
  if (!indexCache.has(gameId)) {
    indexCache.set(gameId, new Map(deckNames(gameId).map((n, i) => [n, i])));
  }
  return indexCache.get(gameId);
}

/** A card as drawn: {name, kind, suit, rank, symbol, trump, icon, label, short}. */
export function describe(gameId, name) {
  const e = edition(gameId);
  const dash = name.lastIndexOf("-");
  const head = dash > 0 ? name.slice(0, dash) : name;
  const tail = dash > 0 ? name.slice(dash + 1) : "";
  if (e.suits.includes(head) && /^\d+$/.test(tail)) {
    const rank = Number(tail);
    const symbol = e.symbols[head];
    return {
      name, kind: "number", suit: head, rank, symbol, trump: head === "black",
      icon: symbol, short: `${rank}${symbol}`,
      label: t("cards.number", { suit: t(`cards.suit.${head}`), rank }) + (head === "black" ? ` ${t("cards.trump")}` : ""),
    };
  }
  let kind;
  let key = head;
  if (name === e.king) { kind = "king"; key = name; }
  else if (name === e.choice) { kind = "choice"; key = name; }
  else if (["escape", "pirate", "mermaid"].includes(head)) kind = head;
  else kind = "unknown";
  const info = SPECIAL[key] ? { ...SPECIAL[key], label: t(SPECIAL[key].label) } : { icon: "?", label: name };
  return { name, kind, suit: null, rank: 0, symbol: "", trump: false,
           icon: info.icon, label: info.label, short: info.label };
}

/** Sort card names into deck order (suits by rank, then the specials). */
export function sortHand(gameId, names) {
  const idx = cardIndex(gameId);
  return [...names].sort((a, b) => (idx.get(a) ?? 999) - (idx.get(b) ?? 999));
}

/** The label a play shows: "Scary Mary as escape". */
export function playLabel(gameId, play) {
  const d = describe(gameId, play.card);
  return play.as ? t("cards.as", { card: d.label, choice: t(`cards.as.${play.as}`) }) : d.label;
}
