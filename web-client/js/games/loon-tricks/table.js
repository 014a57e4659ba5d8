// Drawing the Loon & Score Cards table from a seat's view (engines/loon_tricks/views.py).
// Pure rendering: what may be done comes from view.legal; module.js wires the clicks.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { nameNode } from "../../names.js";
import { describe, scoreText, scoreTitle, SCORE_CARD, sortHand } from "./cards.js";

/** A crew card face (a div, or a button with `tag: "button"`). */
export function cardFace(name, { small = false, tag = "div", props = {}, extra = null } = {}) {
  const d = describe(name);
  return h(tag, { class: ["card", small && "small", `s-${d.suit}`, "k-number"], "aria-label": d.label, title: d.label,
    dataset: { card: name }, ...props },
  h("span", { class: "rank", "aria-hidden": "true" }, String(d.rank)),
  h("span", { class: "sym", "aria-hidden": "true" }, d.symbol),
  h("span", { class: "name", "aria-hidden": "true" }, t(`cards.suit.${d.suit}`)),
  extra);
}

/** A face-down card: only its back is drawn (the view carries no name for it). */
function cardBack() {
  return h("div", { class: "card small back", "aria-hidden": "true" }, h("span", { class: "sym" }, "✠"));
}

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
const SEALED = new Set(["bid", "pick", "ditch"]);

/** Whether seat `s` has sealed its move in the sealed phase now open. */
export function committed(ctx, s) {
  return !!(ctx.seal && ctx.seal.committed && s in ctx.seal.committed);
}

const names = (ctx, seats) => seats.flatMap((s, i) => [i ? ", " : "", who(ctx.room, ctx.view, s)]);

/** The status line: round, what happens now and who owes it, the clock. */
export function statusLine(ctx) {
  const { view: v, seat, seal, ended } = ctx;
  const parts = [h("span", { class: "round" }, t("lt.round_of", { round: v.round, rounds: v.rounds }))];
  let turn;
  const waiting = owing(v).filter((s) => !committed(ctx, s));
  if (ended) turn = ended;
  else if (v.phase === "over") turn = t("lt.game_over");
  else if (SEALED.has(v.phase)) {
    const what = t(`lt.phase.${v.phase}`, { row: (v.offer ?? 0) + 1, bid: v.tie_bid ?? 0 });
    if (seal && seal.open) turn = [what, " — ", t("lt.revealing")];
    else if (seat !== null && waiting.includes(seat)) turn = [what, " — ", h("strong", {}, t(`lt.your.${v.phase}`))];
    else turn = [what, " — ", t("lt.waiting_for"), " ", waiting.length ? names(ctx, waiting) : "—"];
  } else {
    const next = owing(v)[0];
    const what = t(`lt.phase.${v.phase}`, { row: (v.offer ?? 0) + 1, bid: v.tie_bid ?? 0 });
    turn = next === seat ? [what, " — ", h("strong", {}, t(`lt.your.${v.phase}`))]
      : [what, " — ", around(t("lt.to_move", { name: "\u0000" }), who(ctx.room, v, next))];
  }
  parts.push(h("span", { class: "turn", role: "status" }, turn));
  if (ctx.clock) parts.push(ctx.clock);
  return h("div", { class: "status-line" }, parts);
}

/** The auction's bids (or tie-break picks) just revealed, held on screen a moment
 * (module.js `hold`): every seat's at once, mine marked. Fixed at the top of the window;
 * the words are the hold's announcement. */
export function revealedMoment(ctx) {
  const held = ctx.held;
  if (!held || held.kind !== "auction") return null;
  const banner = h("div", { class: "moment-banner", dataset: { role: "auction-revealed" }, "aria-hidden": "true" },
    h("div", { class: "moment-card" },
      h("strong", { class: "moment-title" }, held.title),
      h("ul", { class: "moment-list" }, held.shown.map((x) => h("li", { class: x.seat === ctx.seat ? "me" : null, dataset: { seat: String(x.seat) } },
        h("span", { class: "who" }, who(ctx.room, ctx.view, x.seat)), " ",
        x.pick ? cardFace(x.pick, { small: true }) : h("strong", { class: "bid" }, String(x.bid)))))));
  banner.style.setProperty("--elapsed", `${Date.now() - held.at}ms`);  // a redraw does not pop it again
  return banner;
}

/** The row a seat took this round, or null. */
const rowOf = (v, s) => {
  const i = (v.rows || []).findIndex((r) => r.owner === s);
  return i >= 0 ? i : null;
};

/** One box per player: Go First, the row taken, cards in hand, prediction, tricks, the
 * sealed state, and loon (my own behind my screen; everyone's once the game is over). */
export function playersPanel(ctx) {
  const { view: v, room, seat, connected, away, ended } = ctx;
  const prompt = owing(v);
  const boxes = [];
  for (let s = 0; s < v.players; s++) {
    const sealedPhase = SEALED.has(v.phase) && prompt.includes(s) && !ended;
    const opened = ctx.seal && ctx.seal.opened && ctx.seal.opened[s];
    let sealedState = null;
    if (sealedPhase) {
      const done = committed(ctx, s);
      const shown = opened && "bid" in opened ? t("lt.bid_shown", { bid: opened.bid })
        : opened && opened.pick ? t("lt.pick_shown", { card: describe(opened.pick).label }) : null;
      sealedState = h("div", { class: "sealed-state", dataset: { committed: done ? "1" : "0" } },
        shown || (done ? `✓ ${t("lt.sealed")}` : t("lt.choosing")));
    }
    const isTurn = SEALED.has(v.phase) ? prompt.includes(s) && !committed(ctx, s) : prompt[0] === s;
    const online = !connected || connected.has(s) || (room.seats[s] && room.seats[s].bot);
    const row = rowOf(v, s);
    const loon = v.totals ? v.totals[s] : s === seat && v.loon !== null && v.loon !== undefined ? v.loon : null;
    boxes.push(h("div", { class: ["player", s === seat && "me", isTurn && "turn"], dataset: { seat: String(s) },
      role: "listitem", "aria-current": isTurn ? "true" : null },
    h("div", { class: "pname" }, who(room, v, s), s === seat ? h("span", { class: "you" }, ` (${t("common.you")})`) : null,
      v.go_first === s ? h("span", { class: "go-first", title: t("lt.go_first") }, ` ⚑ ${t("lt.go_first_short")}`) : null),
    away && away.has(s) ? h("div", { class: "offline", dataset: { away: "1" } }, t("lt.away"))
      : ctx.waiting && ctx.waiting.has(s) ? h("div", { class: "offline", dataset: { waiting: "1" } }, t("room.waiting"))
      : online ? null : h("div", { class: "offline" }, t("room.offline")),
    h("div", { class: "stats" },
      h("span", {}, `${t("lt.row")} `, h("strong", { class: "row-taken" }, row === null ? "–" : String(row + 1))),
      h("span", {}, `${t("lt.tricks")} `, h("strong", { class: "won" }, String((v.tricks || [])[s] ?? 0))),
      v.predictions && v.predictions[s] !== null && v.predictions[s] !== undefined
        ? h("span", {}, `${t("lt.predicted")} `, h("strong", { class: "prediction" }, String(v.predictions[s]))) : null),
    h("div", { class: "small" }, t("lt.in_hand", { count: (v.hand_sizes || [])[s] ?? 0 }),
      loon !== null ? [" · ", h("strong", { class: "loon", dataset: { loon: String(loon) } },
        t(v.totals ? "lt.loon_total" : "lt.loon_mine", { loon }))] : null),
    sealedState));
  }
  return h("div", { class: "players lt-players", role: "list", "aria-label": t("lt.players_aria") }, boxes);
}

/** One score card: its deck, title, text, and a house mark. */
function scoreCard(id, { small = false } = {}) {
  const card = SCORE_CARD.get(id);
  const deck = card ? card.deck : "";
  return h("div", { class: ["score-card", `d-${deck}`, small && "small"], dataset: { score: id } },
    h("div", { class: "deck small" }, t(`lt.deck.${deck || "recruitment"}`), card && card.house ? ` · ${t("lt.house")}` : ""),
    h("strong", { class: "title" }, scoreTitle(id)),
    small ? null : h("div", { class: "text small" }, scoreText(id)));
}

/** The score cards in play this round (and, smaller, those of earlier rounds). */
export function scoreCardsPanel(ctx) {
  const v = ctx.view;
  const now = (v.score_cards || []).find((c) => c.round === v.round);
  if (!now) return null;
  const earlier = (v.score_cards || []).filter((c) => c.round < v.round);
  return h("section", { class: "lt-box score-cards", "aria-label": t("lt.score_cards_aria") },
    h("h2", {}, t("lt.score_cards", { round: v.round })),
    h("div", { class: "score-row" }, [...now.recruitment, now.capture, now.treasure].map((id) => scoreCard(id))),
    earlier.length ? h("p", { class: "small muted" }, t("lt.earlier_cards"), " ",
      earlier.map((c) => `${c.round}: ${[...c.recruitment, c.capture, c.treasure].map(scoreTitle).join(", ")}`).join(" · ")) : null);
}

/** The rows: face-up cards, face-down backs, loon lying on them, who took them. `part`:
 * "offer" only the row on offer (drawn by the bid box), "rest" the others, else all. */
export function rowsPanel(ctx, part = "all") {
  const { view: v, room } = ctx;
  const rows = (v.rows || []).map((r, i) => {
    const isOffer = v.offer === i && ["bid", "pick", "award"].includes(v.phase);
    if ((part === "offer" && !isOffer) || (part === "rest" && isOffer)) return null;
    const onOffer = v.offer === i && ["bid", "pick", "award"].includes(v.phase);
    const taken = r.owner !== null && r.owner !== undefined;
    return h("div", { class: ["lt-row", onOffer && "on-offer", taken && "taken"], dataset: { row: String(i) },
      "aria-current": onOffer ? "true" : null },
    h("div", { class: "row-head" },
      h("strong", {}, t("lt.row_n", { n: i + 1 })),
      i === 0 ? h("span", { class: "go-first small", title: t("lt.go_first") }, ` ⚑ ${t("lt.go_first_short")}`) : null,
      onOffer ? h("span", { class: "offer-mark" }, ` ▶ ${t("lt.on_offer", { n: r.offers })}`) : null),
    h("div", { class: "row-cards" }, r.up.map((c) => cardFace(c, { small: true })),
      Array.from({ length: r.down || 0 }, () => cardBack())),
    h("div", { class: "small" },
      r.down ? `${t("lt.face_down", { count: r.down })} · ` : "",
      r.loon ? h("span", { class: "row-loon", dataset: { loon: String(r.loon) } }, `● ${t("lt.loon_on_row", { count: r.loon })} · `) : "",
      taken ? around(t("lt.taken_by", { name: "\u0000" }), who(room, v, r.owner)) : t("lt.not_taken")));
  });
  if (!rows.some(Boolean)) return null;
  return h("section", { class: ["lt-box", "rows", `part-${part}`], "aria-label": t(part === "rest" ? "lt.other_rows" : "lt.rows_aria") },
    part === "offer" ? null : h("h2", {}, t(part === "rest" ? "lt.other_rows" : "lt.rows")), h("div", { class: "lt-rows" }, rows));
}

/** This round's offers: every revealed bid, tie-break pick and outcome, in order. */
export function auctionPanel(ctx) {
  const { view: v, room } = ctx;
  const offers = v.auction || [];
  if (!offers.length) return null;
  const items = offers.map((o) => {
    const bids = (o.bids || []).map((b, s) => (b === null ? null : [who(room, v, s), ` ${b}`])).filter(Boolean);
    const picks = (o.picks || []).map((p, s) => (p === null ? null : [who(room, v, s), " ", cardFace(p, { small: true })])).filter(Boolean);
    let outcome;
    if (o.offer === 0) outcome = around(t("lt.took_free", { name: "\u0000" }), who(room, v, o.taker));
    else if (o.pending) outcome = t("lt.pending");
    else if (o.taker === null) outcome = t("lt.zero_tie");
    else if (o.awarded_by !== null) outcome = around(t("lt.awarded", { name: "\u0000", by: seatName(room, v, o.awarded_by) }), who(room, v, o.taker));
    else outcome = around(t("lt.took_for", { name: "\u0000", loon: o.paid }), who(room, v, o.taker));
    return h("li", { dataset: { row: String(o.row) } },
      h("strong", {}, t("lt.offer_line", { row: o.row + 1, n: o.offer })), " ",
      bids.length ? [t("lt.bids"), " ", bids.flatMap((b, i) => [i ? " · " : "", b])] : null,
      picks.length ? [" — ", t("lt.picks"), " ", picks.flatMap((p, i) => [i ? " · " : "", p])] : null,
      " → ", outcome);
  });
  return h("section", { class: "lt-box auction", "aria-label": t("lt.auction_aria") },
    h("h2", {}, t("lt.auction")), h("ol", { class: "auction-log" }, items));
}

/** The recruitment sets each player scored, card by card. */
export function recruitedPanel(ctx) {
  const { view: v, room } = ctx;
  if (!(v.recruited || []).length) return null;
  const items = v.recruited.map((r) => h("li", { dataset: { seat: String(r.seat), score: r.card } },
    who(room, v, r.seat), " — ", h("strong", {}, scoreTitle(r.card)), ": ",
    r.sets.length ? r.sets.map((set) => h("span", { class: "set" }, set.map((c) => cardFace(c, { small: true }))))
      : h("span", { class: "muted" }, t("lt.no_sets")),
    " ", h("strong", { class: "paid" }, t("lt.plus_loon", { loon: r.loon }))));
  return h("section", { class: "lt-box recruited", "aria-label": t("lt.recruited_aria") },
    h("h2", {}, t("lt.recruited")), h("ul", { class: "recruit-list" }, items));
}

/** The last trick won, faded and labelled: who played what, who won it. */
function lastTrickBox(ctx) {
  const { view: v, room } = ctx;
  const lt = v.last_trick;
  return h("div", { class: "previous-trick", role: "group", "aria-label": t("lt.last_trick_show"), dataset: { role: "last-trick" } },
    h("p", { class: "previous-label" }, around(t("lt.last_trick", { name: "\u0000" }), who(room, v, lt.winner))),
    h("div", { class: "previous-cards" }, lt.plays.map((p) => h("div", { class: ["played", "previous", p.seat === lt.winner && "winner"],
      dataset: { seat: String(p.seat) } },
    cardFace(p.card, { small: true }), h("span", { class: "by" }, who(room, v, p.seat)),
    p.seat === lt.winner ? h("span", { class: "wins" }, `★ ${t("lt.wins")}`) : null))));
}

/** "Last trick": a button opening (and closing) the last trick under the one being played;
 * the next won trick closes it (ctx.ui keeps which one is open). */
function lastTrickLook(ctx) {
  const v = ctx.view;
  const lt = v.last_trick;
  if (!lt || !lt.plays || !lt.plays.length || !ctx.ui || !ctx.rerender) return null;
  const key = `${v.round}:${lt.plays.map((p) => p.card).join(",")}`;
  const open = ctx.ui.lastTrickOpen === key;
  return h("div", { class: "last-trick-look" },
    h("button", { type: "button", class: "secondary", "aria-expanded": open ? "true" : "false", dataset: { key: "last-trick" },
      onclick: () => { ctx.ui.lastTrickOpen = open ? null : key; ctx.rerender(); } },
    t(open ? "lt.last_trick_hide" : "lt.last_trick_show")),
    open ? lastTrickBox(ctx) : null);
}

/** The trick in the middle: red is trump, the suit to follow. Between two tricks (after the
 * won trick was held, after a reload) the zone shows the last trick faded and labelled as
 * such; once the next trick has begun, "Last trick" opens it. */
export function trickPanel(ctx) {
  const { view: v, room } = ctx;
  if (!["play", "over"].includes(v.phase) && !(v.last_trick && v.phase === "predict")) return null;
  const lt = v.last_trick && v.last_trick.plays && v.last_trick.plays.length ? v.last_trick : null;
  const held = ctx.held && ctx.held.kind === "trick" && lt;
  const plays = held ? [] : v.trick || [];
  const led = plays.length ? describe(plays[0].card).suit : null;
  let items = plays.map((p) => h("div", { class: "played", dataset: { seat: String(p.seat) } },
    cardFace(p.card), h("span", { class: "by" }, who(room, v, p.seat))));
  const between = !!lt && !held && !plays.length && v.phase === "play";
  if (held) {
    // The trick just won, held on screen a moment: the winner marked.
    items = lt.plays.map((p) => h("div", { class: ["played", p.seat === lt.winner && "winner"], dataset: { seat: String(p.seat) } },
      cardFace(p.card), h("span", { class: "by" }, who(room, v, p.seat)),
      p.seat === lt.winner ? h("span", { class: "wins" }, `★ ${t("lt.wins")}`) : null));
  }
  const empty = h("span", { class: "empty" }, t("lt.no_card_yet"));
  return h("section", { class: "trick", "aria-label": t("lt.trick_aria") },
    h("p", { class: "trump small" }, h("span", { class: "s-red" }, "♥ "), t("lt.red_trump"),
      led ? [" · ", h("strong", { class: "follow", dataset: { suit: led } },
        t("lt.follow", { suit: `${t(`cards.suit.${led}`)} ${describe(plays[0].card).symbol}` }))] : null,
      v.phase === "play" ? ` · ${t("lt.trick_n", { n: (v.tricks || []).reduce((a, b) => a + b, 0) + 1 })}` : null),
    held ? h("p", { class: "trick-winner" }, h("strong", {}, around(t("lt.wins_trick", { name: "\u0000" }), who(room, v, lt.winner)))) : null,
    v.phase === "play" ? h("div", { class: ["trick-zone", between && "between"], "aria-live": "polite", dataset: { held: held ? "1" : null } },
      between ? [empty, lastTrickBox(ctx)] : items.length ? items : empty) : null,
    v.phase === "over" && lt ? lastTrickBox(ctx) : null,
    !between && !held && v.phase !== "over" ? lastTrickLook(ctx) : null);
}

/** What a ledger entry was for: a bid, loon lying on a row, a top-up or a score card. */
function entryWhat(what) {
  if (what === "bid" || what === "row" || what === "top-up") return t(`lt.ledger.${what}`);
  return scoreTitle(what);
}

/** Loon: mine behind my screen; every payment and collection of this round, as it happens. */
export function loonPanel(ctx) {
  const { view: v, room, seat } = ctx;
  // The latest payments (the end of a round's settlement stays in sight into the next round).
  const entries = (v.ledger || []).slice(-12).reverse();
  return h("section", { class: "lt-box loon", "aria-label": t("lt.loon_aria") },
    h("h2", {}, t("lt.loon")),
    seat !== null && v.loon !== null && v.loon !== undefined && !v.totals
      ? h("p", { class: "screen", dataset: { role: "my-loon" } }, t("lt.behind_screen", { loon: v.loon })) : null,
    entries.length ? h("ul", { class: "ledger", "aria-live": "polite" }, entries.map((e) => h("li", { dataset: { seat: String(e.seat) } },
      h("span", { class: "small muted" }, `${t("lt.round_short", { round: e.round })} `),
      around(t(e.amount >= 0 ? "lt.collects" : "lt.pays", { name: "\u0000", loon: Math.abs(e.amount), what: entryWhat(e.what) }),
        who(room, v, e.seat)))))
      : h("p", { class: "small muted" }, t("lt.no_payments")));
}

/** The final totals, most loon first. */
export function finalPanel(ctx) {
  const { view: v, room } = ctx;
  if (!v.totals) return null;
  const order = [...v.totals.keys()].sort((a, b) => v.totals[b] - v.totals[a]);
  const top = Math.max(...v.totals);
  return h("section", { class: "lt-box totals", "aria-label": t("lt.totals") },
    h("h2", {}, t("lt.totals")),
    h("ol", {}, order.map((s) => h("li", { dataset: { seat: String(s) } }, who(room, v, s), " ",
      h("strong", {}, t("lt.loon_total", { loon: v.totals[s] })), v.totals[s] === top ? ` ★ ${t("lt.winner")}` : ""))));
}

/**
 * My hand. `mode` says what a click does: "play" (view.legal plays), "pick" (a tie-break
 * card), "ditch" (choose two); `chosen` are the cards chosen so far. Arrow keys move
 * between cards, Enter/Space clicks.
 */
export function handPanel(ctx, mode, chosen, onCard) {
  const { view: v, busy } = ctx;
  const hand = sortHand(v.hand || []);
  const allowed = new Set();
  for (const m of v.legal || []) {
    if (mode === "play" && m.play) allowed.add(m.play);
    if (mode === "pick" && m.pick) allowed.add(m.pick);
    if (mode === "ditch" && m.ditch) m.ditch.forEach((c) => allowed.add(c));
  }
  const buttons = hand.map((name) => {
    const ok = !busy && allowed.has(name);
    const on = chosen.includes(name);
    const label = describe(name).label;
    return cardFace(name, { tag: "button", props: {
      type: "button", disabled: !ok, "aria-pressed": mode === "play" ? null : on ? "true" : "false",
      "aria-label": ok ? t(`lt.card_action.${mode}`, { card: label }) : label,
      class: ["card", `s-${describe(name).suit}`, "k-number", ok && "legal", on && "chosen"],
      dataset: { card: name, key: `card-${name}` },
      onclick: () => ok && onCard(name),
    } });
  });
  for (const b of buttons) {
    b.addEventListener("keydown", (ev) => {
      const i = buttons.indexOf(b);
      const j = ev.key === "ArrowRight" || ev.key === "ArrowDown" ? i + 1 : ev.key === "ArrowLeft" || ev.key === "ArrowUp" ? i - 1 : null;
      if (j === null) return;
      ev.preventDefault();
      const pool = buttons.filter((x) => !x.disabled);
      const list = pool.length ? pool : buttons;
      const k = (list.indexOf(buttons[Math.max(0, Math.min(buttons.length - 1, j))]) + list.length) % list.length;
      (list[k] || list[0]).focus();
    });
  }
  const active = allowed.size > 0 && !busy;
  const row = h("div", { class: ["hand", !active && "waiting", mode === "pick" || mode === "ditch" ? "lt-wrap" : null],
    role: "group", "aria-label": t("lt.hand_count", { count: hand.length }) },
  buttons.length ? buttons : h("span", { class: "muted" }, t("lt.no_cards")));
  row.style.setProperty("--n", String(Math.max(buttons.length, 2)));  // a phone overlaps the cards to fit them all (app.css)
  // My move (whatever it is) brings the hand into view, with the prompt box right above it.
  const mine = ctx.seat !== null && owing(v).includes(ctx.seat) && !committed(ctx, ctx.seat) && !busy;
  return h("section", { class: "hand-zone", "aria-label": t("lt.hand_aria"), dataset: { turnTarget: mine ? "1" : null } },
    h("h2", {}, active ? t(`lt.hand_${mode}`) : t("lt.hand")),
    row,
    v.ditched && v.ditched.length ? h("p", { class: "small muted", dataset: { role: "ditched" } }, t("lt.ditched"), " ",
      v.ditched.map((c) => describe(c).label).join(", ")) : null);
}

/** The payments of every round per seat, and the totals once the game is over. */
export function sheetPanel(ctx) {
  const { view: v, room } = ctx;
  const seats = [...Array(v.players).keys()];
  const rounds = [...new Set((v.ledger || []).map((e) => e.round))].sort((a, b) => a - b);
  const sum = (r, s) => (v.ledger || []).filter((e) => e.round === r && e.seat === s).reduce((a, e) => a + e.amount, 0);
  const signed = (n) => (n > 0 ? `+${n}` : String(n));
  return h("section", { class: "panel", "aria-label": t("lt.sheet_aria") },
    h("h2", {}, t("lt.sheet")),
    h("p", { class: "small muted" }, t("lt.sheet_legend")),
    h("div", { class: "scroll" }, h("table", { class: "sheet-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("lt.round")), seats.map((s) => h("th", { scope: "col" }, who(room, v, s))))),
      h("tbody", {}, rounds.map((r) => h("tr", {}, h("th", { scope: "row" }, String(r)),
        seats.map((s) => h("td", { title: (v.ledger || []).filter((e) => e.round === r && e.seat === s)
          .map((e) => `${signed(e.amount)} ${entryWhat(e.what)}`).join(", ") }, signed(sum(r, s)))))),
      v.totals ? h("tr", { class: "total" }, h("th", { scope: "row" }, t("lt.total")),
        seats.map((s) => h("td", {}, String(v.totals[s])))) : null))));
}
