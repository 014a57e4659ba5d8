// Drawing the Pirate King! table from a seat's view (engines/pirate_king/views.py). Pure
// rendering: what may be done comes from view.legal; the prompts are in prompts.js.

import { cardFace, cardTitle } from "./cards.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { nameNode } from "../../names.js";

export function seatName(room, view, seat) {
  const s = room && room.seats && room.seats[seat];
  if (!s) return t("common.seat", { n: seat + 1 });
  return s.name || (s.bot ? t("room.bot_named", { level: t(`room.level.${s.bot}`) }) : t("common.seat", { n: seat + 1 }));
}

export function who(room, view, seat) {
  return nameNode(seatName(room, view, seat), room && room.seats && room.seats[seat]);
}

/** A catalogue text with a node where its marker ("\u0000") was. */
export function around(text, node) {
  const [before, after] = text.split("\u0000");
  return [before, node, after ?? ""];
}

export const owing = (view) => (view && view.prompt && view.prompt.seats) || [];

/** The score of each seat: crowns on cards and the map set, plus the Captain token. */
export function crownsOf(view) {
  if (view.outcome && view.outcome.scores) return view.outcome.scores;
  return view.table.map((s) => s.crowns + (view.captain === s.seat ? 1 : 0));
}

/** What the seats owe now, in words ("Alice: look and reorder"). */
function turnNodes(ctx) {
  const { view: v, room, seat, seal } = ctx;
  const kind = v.prompt && v.prompt.kind;
  const seats = owing(v);
  if (!kind || !seats.length) return v.phase === "over" ? t("pk.game_over") : "";
  if (seal && seal.open) return t("pk.revealing");
  // A seat has chosen once its commit is in -- or, for my own seat, once I chose and the
  // commit is on its way (`sealedMove`): "Your move" would flash while it travels.
  const chosen = (s) => (seal && seal.committed && s in seal.committed) || (s === seat && seal && ctx.sealedMove);
  const waiting = seats.filter((s) => !chosen(s));
  if (!waiting.length) return t("pk.revealing");
  const mine = seat !== null && waiting.includes(seat);
  const what = t(`pk.kind.${kind}`);
  if (mine) return t("pk.your_move", { what });
  if (kind === "reveal" && waiting.length > 1) return [t("pk.deciding"), " ", waiting.flatMap((s, i) => [i ? ", " : "", who(room, v, s)])];
  return [waiting.flatMap((s, i) => [i ? ", " : "", who(room, v, s)]), ": ", what];
}

export function statusLine(ctx) {
  const { view: v, room, ended } = ctx;
  const parts = [
    h("span", { class: "round" }, v.round ? t("pk.round_of", { round: v.round, rounds: v.rounds }) : t("pk.picking")),
    v.phase === "play" ? h("span", {}, t("pk.beat", { n: v.beat })) : h("span", {}, t(`pk.phase.${v.phase}`)),
    h("span", { dataset: { role: "captain" } }, "⚓ ", t("pk.captain"), " ", who(room, v, v.captain)),
    h("span", { class: "turn", role: "status" }, ended || turnNodes(ctx)),
  ];
  if (ctx.clock) parts.push(ctx.clock);
  return h("div", { class: "status-line" }, parts);
}

/** The "1, 2, 3!" of a beat being held on screen: who revealed, who stopped. */
function beatBanner(ctx) {
  const held = ctx.held;
  if (!held || held.kind !== "beat") return null;
  return h("div", { class: "pk-beat", role: "presentation", "aria-hidden": "true" },
    h("span", { class: "pk-123" }, t("pk.one_two_three")));
}

/** A seat's sealed state in a sealed phase: committed or not (never what). */
function sealState(ctx, s) {
  const seal = ctx.seal;
  if (!seal || !seal.seats.includes(s)) return null;
  const c = seal.committed[s];
  return h("span", { class: "sealed-state", dataset: { committed: c ? "1" : "0" } },
    c === "default" ? t("pk.timed_out") : c ? `✔ ${t("pk.decided")}` : `… ${t("pk.deciding_one")}`);
}

/** A play zone as the seed lays it out (FAQ 1): "place the simultaneously revealed cards in a
 * row going from left to right. But when an effect forces you to reveal or place new cards
 * in your personal play zone, integrate them in columns, partially covering the others" --
 * a card an effect placed (`effect`) goes under the card before it, in its column. */
function columns(entries, faces) {
  const cols = [];
  entries.forEach((e, i) => {
    if (e.effect && cols.length) cols[cols.length - 1].push(faces[i]);
    else cols.push([faces[i]]);
  });
  return cols.map((cards) => h("div", { class: ["pk-col", cards.length > 1 && "stacked"] }, cards));
}

/** How a zone card got there, in words: given (edition 2: it goes back to its giver when the
 * round ends), placed by an effect without being revealed (a Copy passes over it), or
 * revealed by an effect. */
function entryNote(room, v, e) {
  if (e.given_by !== null && e.given_by !== undefined) {
    const name = seatName(room, v, e.given_by);
    return v.rules > 1 ? t("pk.given_until", { name }) : `${t("pk.given_by", { name })}; ${t("pk.by_effect")}`;
  }
  if (e.placed) return t("pk.placed");
  return e.effect ? t("pk.by_effect") : "";
}

/** One zone per player, mine first: name, Pirate, status, totals, curses (warned at two),
 * the play zone. Side by side where the screen has room (table.css). */
export function zonesPanel(ctx) {
  const { view: v, room, seat, connected, away } = ctx;
  const crowns = crownsOf(v);
  const fresh = (ctx.held && ctx.held.fresh) || {};
  // Whose move it is: the seats still owing one (in a sealed beat, those who have not
  // decided yet -- a seat that has chosen waits like everyone else).
  const committed = (ctx.seal && ctx.seal.committed) || {};
  const prompt = owing(v).filter((s) => !committed[s]);
  // My own zone first, then the others in seat order after mine (a spectator: seat order).
  const first = seat === null || seat === undefined ? 0 : seat;
  const seats = [...v.table.slice(first), ...v.table.slice(0, first)];
  const rows = seats.map((s) => {
    const sunk = s.status === "sunk";
    const danger = !sunk && s.curses === 2;
    const newFrom = fresh[s.seat] ?? s.zone.length;
    const faces = s.zone.map((e, i) => cardFace(e, { fresh: i >= newFrom, extra: entryNote(room, v, e) }));
    const zone = s.zone.length
      ? columns(s.zone, faces)
      : v.phase === "over" ? [] // the last round is over: no "no card yet" under every name
        : [h("span", { class: "small muted pk-empty" }, sunk ? t("pk.zone_sunk") : t("pk.zone_empty"))];
    const offline = connected && s.seat !== seat && room.seats[s.seat] && room.seats[s.seat].user && !connected.has(s.seat);
    return h("section", {
      class: ["player", "pk-seat", s.seat === seat && "me", prompt.includes(s.seat) && "turn", sunk && "sunk", danger && "danger"],
      dataset: { seat: String(s.seat), status: s.status },
      "aria-label": t("pk.zone_aria", { name: seatName(room, v, s.seat) }),
    },
    h("div", { class: "pk-head" },
      h("span", { class: "pname" }, who(room, v, s.seat), s.seat === seat ? h("span", { class: "you" }, ` (${t("common.you")})`) : null,
        v.captain === s.seat ? h("span", { class: "pk-token", title: t("pk.captain_token"), "aria-label": t("pk.captain_token") }, " ⚓") : null),
      s.pirate ? h("span", { class: "small pk-pirate" }, cardTitle(s.pirate)) : null,
      v.phase === "over" ? null : h("span", { class: ["pk-status", `st-${s.status}`] }, t(`pk.status.${s.status}`)),
      sealState(ctx, s.seat),
      offline ? h("span", { class: "offline" }, t("pk.offline")) : null,
      away && away.has(s.seat) ? h("span", { class: "offline" }, t("pk.away")) : null,
      ctx.waiting && ctx.waiting.has(s.seat) ? h("span", { class: "offline", dataset: { waiting: "1" } }, t("room.waiting")) : null),
    h("div", { class: "stats pk-stats" },
      h("span", { dataset: { stat: "swords" }, "aria-label": t("pk.sym.swords", { count: s.swords }) }, `⚔ ${s.swords}`),
      h("span", { dataset: { stat: "gold" }, "aria-label": t("pk.sym.gold", { count: s.gold }) }, `● ${s.gold}`),
      h("span", { class: ["pk-curses", danger && "warn"], dataset: { stat: "curses", curses: String(s.curses) } },
        `☠ ${s.curses}/3`, danger ? h("strong", {}, ` ⚠ ${t("pk.one_more_sinks")}`) : null),
      h("span", { dataset: { stat: "crowns" }, "aria-label": t("pk.sym.crowns", { count: crowns[s.seat] }) }, `♛ ${crowns[s.seat]}`),
      s.maps ? h("span", { dataset: { stat: "maps" }, "aria-label": t("pk.maps_n", { count: s.maps }) }, `◈ ${s.maps}`) : null,
      h("span", { class: "small", dataset: { stat: "pile" }, title: t("pk.pile_profile", { a: s.pile_curses[0], b: s.pile_curses[1], c: s.pile_curses[2] }) },
        t("pk.pile", { count: s.pile }), s.pile ? `, ${t("pk.pile_cursed", { count: s.pile_curses[1] + s.pile_curses[2] })}` : "")),
    s.discard.length ? h("details", { class: "pk-discard small" },
      h("summary", {}, t("pk.discard", { count: s.discard.length })),
      h("div", { class: "pk-zone" }, s.discard.map((c) => cardFace(c)))) : null,
    zone.length ? h("div", { class: "pk-zone", dataset: { zone: String(s.seat) } }, zone) : null);
  });
  return h("div", { class: "pk-seats" }, beatBanner(ctx), rows);
}

/** The Monster and Loot rows, the piles left, and the order of choice in battle and loot. */
export function rowsPanel(ctx) {
  const { view: v, room } = ctx;
  const order = [];
  if ((v.phase === "battle" || v.phase === "loot") && v.ranking.length) {
    let n = 0;
    for (const group of v.ranking) {
      for (const s of group) {
        const done = n < v.picks;
        // Each place with what earned it: swords in battle, gold for the loot (sunk: -1).
        const battle = v.phase === "battle";
        const amount = battle ? v.table[s].swords : v.table[s].gold;
        const stat = h("span", { class: "pk-amount", "aria-label": t(battle ? "pk.sym.swords" : "pk.sym.gold", { count: amount }) },
          `${battle ? "⚔" : "●"} ${amount}`);
        order.push(h("li", { class: [done && "done", n === v.picks && "now"], dataset: { seat: String(s) } },
          who(room, v, s), " ", stat, group.length > 1 ? ` (${t("pk.tied")})` : "", done ? " ✓" : ""));
        n += 1;
      }
    }
  }
  const row = (label, cards, pile, key) => h("div", { class: "pk-row", dataset: { row: key } },
    h("h3", {}, label, " ", h("span", { class: "small pk-left" }, t("pk.pile_left", { count: pile }))),
    h("div", { class: "pk-zone" }, cards.length ? cards.map((c) => cardFace(c)) : h("span", { class: "small muted" }, "—")));
  return h("section", { class: "pk-rows", "aria-label": t("pk.rows_aria") },
    row(t("pk.monsters"), v.monster_row, v.monster_pile, "monsters"),
    row(t("pk.loot"), v.loot_row, v.loot_pile, "loot"),
    order.length ? h("div", { class: "pk-order" },
      h("h3", {}, v.phase === "battle" ? t("pk.battle_order") : t("pk.loot_order")),
      h("ol", {}, order)) : null);
}

/** My own pile: what I know of its top (Look, Choose), never anyone else's. */
export function myPile(ctx) {
  const v = ctx.view;
  if (ctx.seat === null || !v.known || !v.known.length) return null;
  return h("div", { class: "pk-known", dataset: { role: "known" } },
    h("span", { class: "small" }, t("pk.known_top")), " ", v.known.map((c) => cardFace(c)));
}

/** The map-fragment set table: "1, 2, 3, 4 cards: 1, 4, 8, 13 crowns" (five: the outright
 * win, counted as 13 -- engines/pirate_king/card_list.py MAP_SET_CROWNS). */
export const mapCrowns = (n) => [0, 1, 4, 8, 13][Math.min(n, 4)];

/** The end: crowns on cards, the map set, the Captain token, for everyone. */
export function endPanel(ctx) {
  const v = ctx.view;
  if (v.phase !== "over") return null;
  const crowns = crownsOf(v);
  return h("section", { class: "pk-end", "aria-label": t("pk.end_aria") },
    h("h2", {}, t("pk.end_title")),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, t("pk.player")), h("th", {}, t("pk.cards_col")), h("th", {}, t("pk.maps_col")), h("th", { title: t("pk.captain_col"), "aria-label": t("pk.captain_col") }, "⚓"), h("th", {}, t("pk.crowns_col")))),
      h("tbody", {}, v.table.map((s) => h("tr", { dataset: { seat: String(s.seat) } },
        h("td", {}, who(ctx.room, v, s.seat), v.winner === s.seat ? ` ${t("pk.crowned")}` : ""),
        h("td", {}, `♛ ${s.crowns - mapCrowns(s.maps)}`),
        h("td", {}, s.maps >= 5 ? t("pk.maps_win", { count: s.maps }) : t("pk.maps_set", { count: s.maps, crowns: mapCrowns(s.maps) })),
        h("td", { "aria-label": v.captain === s.seat ? t("pk.captain_col") : null }, v.captain === s.seat ? "+1" : ""),
        h("td", { class: "num" }, String(crowns[s.seat])))))));
}
