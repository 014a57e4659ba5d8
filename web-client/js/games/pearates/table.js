// Drawing the Pearates table from a seat's view (engines/pearates/views.py). Pure rendering:
// what may be done comes from view.legal (prompts.js). The treasure is a face-down stack, top
// first, with the cards this viewer may place shown face up (the view gives them to this seat
// alone); bids lie before each player (mine face up to me); scored cards stand in stacks by
// value with the current majorities marked.

import { cardBack, cardFace, cardTitle, kindOf, valueText } from "./cards.js";
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

export const owing = (view) => (view && view.prompt && view.prompt.seats) || [];

export function scoresOf(view) {
  if (view.outcome && view.outcome.scores) return view.outcome.scores;
  return view.scores || [];
}

/** What the seats owe now, in words. */
function turnNodes(ctx) {
  const { view: v, room, seat, seal } = ctx;
  const kind = v.prompt && v.prompt.kind;
  const seats = owing(v);
  if (!kind || !seats.length) return v.phase === "over" ? t("pe.game_over") : "";
  if (seal && seal.open) return t("pe.revealing");
  const waiting = seats.filter((s) => !(seal && seal.committed && s in seal.committed));
  const what = t(`pe.kind.${kind}`);
  if (seat !== null && waiting.includes(seat)) return h("strong", {}, t("pe.your_move", { what }));
  return [waiting.flatMap((s, i) => [i ? ", " : "", who(room, v, s)]), ": ", what];
}

export function statusLine(ctx) {
  const { view: v, room, ended } = ctx;
  const parts = [
    h("span", { class: "round" }, t("pe.round", { round: v.round })),
    h("span", { dataset: { role: "start" } }, "⚓ ", t("pe.start_player"), " ", who(room, v, v.start)),
    h("span", { dataset: { role: "pile" } }, t("pe.pile", { count: v.pile })),
    v.reshuffles ? h("span", {}, t("pe.reshuffles_left", { count: v.reshuffles })) : null,
    h("span", { class: "turn", role: "status" }, ended || turnNodes(ctx)),
  ];
  if (ctx.clock) parts.push(ctx.clock);
  return h("div", { class: "status-line" }, parts);
}

/** Goldfish / Gold Pancake: the constraint is on the turn after the Play that set it
 * (while its player still resolves the card, it is the next player's). */
export function forcedText(v) {
  return t(v.phase === "turn" ? `pe.forced.${v.forced}` : `pe.forced_next.${v.forced}`);
}

/** The round's effects and the next turn's constraint, as words. */
function effectsLine(v) {
  const words = [...(v.effects || []).map((e) => t(`pe.effect.${e}`)), ...(v.forced ? [forcedText(v)] : [])];
  if (v.direction === -1) words.push(t("pe.effect.reversed"));
  if (!words.length) return null;
  return h("p", { class: "pe-effects small", dataset: { role: "effects" } }, "⚑ ", words.join(" · "));
}

/** The treasure: a face-down stack, top first, its size, the cards I may place face up.
 * `open`: the replay, where every card of it is drawn face up (no "face down" heading). */
export function treasurePanel(ctx, { open = false } = {}) {
  const v = ctx.view;
  if (v.phase === "over") return null;  // the end: no treasure left to show
  const cards = v.treasure || [];
  const known = cards.filter(Boolean).length;
  const slots = cards.map((c, i) => {
    const where = i === 0 ? t("pe.top") : i === cards.length - 1 ? t("pe.bottom") : String(i + 1);
    return h("li", { dataset: { slot: String(i) } },
      c ? cardFace(c, { extra: "known", props: { dataset: { role: "known" } } }) : cardBack(where, { inside: false }),
      h("span", { class: "pe-where" }, where));
  });
  return h("section", { class: "pe-treasure", "aria-label": t("pe.treasure_aria", { count: cards.length }) },
    h("h2", {}, t(open ? "pe.treasure_open" : "pe.treasure", { count: cards.length }),
      known && !open ? h("span", { class: "small pe-seen" }, " · ", t("pe.treasure_known", { count: known })) : null),
    cards.length ? h("ol", { class: "pe-stack" }, slots)
      : h("p", { class: "small" }, t(["take", "winner", "keep", "sabre"].includes(v.phase) ? "pe.treasure_gone" : "pe.treasure_empty")),
    v.phase === "arrange" ? h("p", { class: "small" }, t("pe.arranged", { count: v.arranged })) : null,
    splitLine(ctx),
    v.action ? h("div", { class: "pe-action", dataset: { role: "action" } }, h("span", { class: "small" }, t("pe.being_played")), cardFace(v.action)) : null,
    effectsLine(v));
}

/** The split, step by step: the bids against the treasure, and who takes now. */
function splitLine(ctx) {
  const v = ctx.view;
  if (v.phase !== "take" && v.phase !== "winner") return null;
  const total = v.bids.reduce((n, b) => n + b.size, 0);
  const now = owing(v);
  const taker = now.length ? seatName(ctx.room, v, now[0]) : "";
  return h("p", { class: "pe-split", dataset: { role: "split" } }, "⚖ ",
    t(v.phase === "winner" ? "pe.split.tie" : "pe.split.take", { total, count: v.treasure.length, name: taker }));
}

/** The stacks of a seat's scored cards by value (a Sabre not yet declared: its own stack). */
function stacksOf(scored) {
  const out = new Map();
  for (const e of scored) {
    const value = e.stack ?? kindOf(e.card).value;
    if (!out.has(value)) out.set(value, []);
    out.get(value).push(e.card);
  }
  return out;
}

/** For each value, the seats holding the most scored cards of it (the current majorities). */
export function majorities(view) {
  const best = new Map();
  view.scored.forEach((scored, s) => {
    for (const [value, cards] of stacksOf(scored)) {
      if (value === null) continue;
      const b = best.get(value);
      if (!b || cards.length > b.n) best.set(value, { n: cards.length, seats: [s] });
      else if (cards.length === b.n) b.seats.push(s);
    }
  });
  return best;
}

function scoredRow(v, s, lead) {
  const stacks = [...stacksOf(v.scored[s])].sort((a, b) => (a[0] ?? 99) - (b[0] ?? 99));
  if (!stacks.length) return h("p", { class: "small muted" }, t("pe.scored_none"));
  return h("ul", { class: "pe-scored", "aria-label": t("pe.scored") }, stacks.map(([value, cards]) => {
    const leads = value !== null && lead.get(value) && lead.get(value).seats.includes(s);
    return h("li", { class: leads ? "lead" : "", dataset: { value: String(value), lead: leads ? "1" : "0" },
      title: cards.map(cardTitle).join(", ") },
      h("span", { class: "pe-stack-val" }, valueText(value)), " ×", String(cards.length),
      leads ? h("span", { class: "pe-lead" }, " ★", h("span", { class: "visually-hidden" }, t("pe.leads"))) : null);
  }));
}

function zoneLine(label, zone, mine, role) {
  if (!zone.size) return null;
  const unknown = zone.size - zone.known.length;
  return h("div", { class: `pe-zone ${mine ? "mine" : ""}`, dataset: { role, size: String(zone.size) } },
    h("span", { class: "small pe-zone-label" }, label, " (", String(zone.size), ")"),
    h("div", { class: "pe-row" }, zone.known.map((c) => cardFace(c, { extra: "small", props: { dataset: { role: mine ? "mine" : "known" } } })),
      Array.from({ length: unknown }, () => cardBack())));
}

/** A seat's sealed state in a sealed phase: decided or not (never what). */
function sealState(ctx, s) {
  const seal = ctx.seal;
  if (!seal || !seal.seats.includes(s)) return null;
  const c = seal.committed[s];
  return h("span", { class: "sealed-state", dataset: { sealed: c ? "1" : "0" } },
    c === "default" ? t("pe.timed_out") : c ? `✔ ${t("pe.decided")}` : `… ${t("pe.deciding")}`);
}

/** One panel per seat: name, marks, hand size, the bid before them, received, scored. */
export function seatsPanel(ctx) {
  const { view: v, room, seat, connected, away } = ctx;
  const scores = scoresOf(v);
  const lead = majorities(v);
  const turn = new Set(owing(v));
  return h("section", { class: "pe-seats", "aria-label": t("pe.seats_aria") }, Array.from({ length: v.players }, (_, s) => {
    const me = s === seat;
    const marks = [];
    if (s === v.start) marks.push(h("span", { class: "pe-mark" }, "⚓ ", t("pe.start")));
    if (v.passed[s] && v.phase !== "over") marks.push(h("span", { class: "pe-mark passed" }, t("pe.passed")));
    const decided = ctx.seal && ctx.seal.committed && ctx.seal.committed[s];
    if (turn.has(s) && v.phase !== "over" && !decided) marks.push(h("span", { class: "pe-mark turn" }, "▶ ", t("pe.to_move")));
    const got = ctx.held && ctx.held.kind === "split" && ctx.held.got[s];
    if (got) marks.push(h("span", { class: "pe-mark got", dataset: { got: String(got) } }, t("pe.hold.got", { count: got })));
    if (connected && !connected.has(s) && room && room.seats[s] && !room.seats[s].bot) marks.push(h("span", { class: "pe-mark" }, t("pe.offline")));
    else if (away && away.has(s)) marks.push(h("span", { class: "pe-mark" }, t("pe.away")));
    if (ctx.waiting && ctx.waiting.has(s)) marks.push(h("span", { class: "pe-mark", dataset: { waiting: "1" } }, t("room.waiting")));
    return h("article", { class: ["player", "pe-seat", me ? "me" : "", turn.has(s) && v.phase !== "over" ? "turn" : "", v.passed[s] ? "out" : ""],
      dataset: { seat: String(s) } },
      h("div", { class: "pe-head" }, h("span", { class: "pname" }, who(room, v, s)), me ? h("span", { class: "small" }, t("pe.you")) : null,
        marks, sealState(ctx, s),
        h("span", { class: "pe-score", dataset: { score: String(scores[s] ?? 0) } }, t("pe.points", { count: scores[s] ?? 0 }))),
      h("div", { class: "small pe-counts" }, t("pe.hand_size", { count: v.hands[s].size }), " · ", t("pe.plays", { count: v.plays[s] })),
      zoneLine(t("pe.bid"), v.bids[s], me, "bid"),
      zoneLine(t("pe.received"), v.received[s], me, "received"),
      scoredRow(v, s, lead));
  }));
}

/** The cards out of play: removed (open to all) and the discard's size. */
export function asidePanel(ctx) {
  const v = ctx.view;
  if (!v.removed.length && !v.discard.size) return null;
  return h("details", { class: "pe-aside" },
    h("summary", {}, t("pe.aside", { removed: v.removed.length, discard: v.discard.size })),
    v.removed.length ? h("div", { class: "pe-row" }, v.removed.map((c) => cardFace(c, { extra: "small" }))) : null,
    v.discard.known.length ? h("p", { class: "small" }, t("pe.discard_known"), " ", v.discard.known.map(cardTitle).join(", ")) : null);
}

/** What happened lately, in words (the log names kinds of cards, never a card). */
export function logPanel(ctx) {
  const v = ctx.view;
  const events = (v.log || []).slice(-6);
  if (!events.length) return null;
  return h("ol", { class: "pe-log small", "aria-label": t("pe.log_aria") }, events.map((e) => h("li", {}, eventText(ctx, e))));
}

export function eventText(ctx, e) {
  return eventWords(e, (s) => seatName(ctx.room, ctx.view, s));
}

/** One public event in words, seats named by ``name(seat)``. */
export function eventWords(e, name) {
  const n = e.n ?? 0;
  const other = ["discard", "give", "target", "winner", "eggs"].includes(e.what) ? name(n) : "";
  const end = ["put", "add"].includes(e.what) ? t(n === 0 ? "pe.top" : "pe.bottom") : "";
  return t(`pe.ev.${e.what}`, { name: e.seat === null ? "" : name(e.seat), kind: e.kind || "", count: n, other, end, value: valueText(n) });
}

/** The split being held on screen (module.js `hold`): what happened, line by line -- who
 * took what from which end, the bids going to the start player, the leftovers discarded.
 * The shell announces the same words; a click anywhere goes on. */
export function heldPanel(ctx) {
  const held = ctx.held;
  if (!held || held.kind !== "split") return null;
  return h("section", { class: ["pe-held", held.mutiny ? "mutiny" : ""], dataset: { role: "split-moment" }, "aria-hidden": "true" },
    h("h2", {}, held.mutiny ? "☠ " : "⚖ ", held.head),
    h("ul", {}, held.lines.map((line) => h("li", {}, line))),
    h("p", { class: "small pe-skip" }, t("pe.hold.skip")));
}

/** The end: the ranking's scores and each seat's scored stacks are on the seats above. */
export function endPanel(ctx) {
  const v = ctx.view;
  if (v.phase !== "over") return null;
  const scores = scoresOf(v);
  const rows = Array.from({ length: v.players }, (_, s) => s).sort((a, b) => scores[b] - scores[a]);
  return h("section", { class: "pe-end", "aria-label": t("pe.end_aria") }, h("h2", {}, t("pe.final")),
    h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, t("pe.player")), h("th", {}, t("pe.score")), h("th", {}, t("pe.in_hand")))),
      h("tbody", {}, rows.map((s) => h("tr", { dataset: { seat: String(s) } }, h("td", {}, who(ctx.room, v, s)),
        h("td", { dataset: { score: String(scores[s]) } }, String(scores[s])), h("td", {}, String(v.hands[s].size)))))));
}

/** My hand, face up. */
export function handPanel(ctx) {
  const v = ctx.view;
  if (ctx.seat === null || !v.hand) return null;
  return h("section", { class: "pe-hand", "aria-label": t("pe.hand_aria") },
    h("h2", {}, t("pe.your_hand", { count: v.hand.length })),
    h("div", { class: "pe-row" }, v.hand.map((c) => cardFace(c, { props: { dataset: { role: "mine" } } }))));
}
