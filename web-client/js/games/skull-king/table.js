// Drawing the table from a seat's view (engines/skull_king/views.py). Pure rendering: the
// rules are never decided here -- what may be played comes from view.legal.

import { describe, edition, sortHand } from "./cards.js";
import { emblem } from "./emblems.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { NAME, nameNode, placeName } from "../../names.js";

/** A card face. `as` ("pirate"/"escape") is written under a choice card that was played. */
export function cardFace(game, name, { small = false, as = null, tag = "div", props = {} } = {}) {
  const d = describe(game, name);
  const classes = ["card", small && "small", d.suit ? `s-${d.suit}` : "special", `k-${d.kind}`];
  const label = as ? t("cards.as", { card: d.label, choice: t(`cards.as.${as}`) }) : d.label;
  // A drawn card is an image with a name (a button says what playing it does).
  const el = h(tag, { class: classes, role: tag === "div" ? "img" : null, "aria-label": label, title: label,
    dataset: { card: name }, ...props },
    d.kind === "number"
      // (the spaces keep the visible text "7 red", as a button's name says it)
      ? [h("span", { class: "rank", "aria-hidden": "true" }, String(d.rank)), " ",
         h("span", { class: "sym", "aria-hidden": "true" }, emblem(d) || d.symbol), " ",
         h("span", { class: "name", "aria-hidden": "true" }, t(`cards.suit.${d.suit}`))]
      : [h("span", { class: "sym", "aria-hidden": "true" }, emblem(d) || d.icon),
         h("span", { class: "name", "aria-hidden": "true" }, d.label)]);
  return el;
}

export function seatName(room, view, seat) {
  if (view && view.ghost && seat === view.ghost.seat) return t("sk.ghost");
  const s = room && room.seats && room.seats[seat];
  if (!s) return t("common.seat", { n: seat + 1 });
  return s.name || (s.bot ? t("room.bot_named", { level: t(`room.level.${s.bot}`) }) : t("common.seat", { n: seat + 1 }));
}

/** A catalogue text with a node where its marker ("\u0000") was: [before, node, after]. */
function splitAround(text, node) {
  const [before, after] = text.split("\u0000");
  return [before, node, after ?? ""];
}

/** A seat's name as a node: with the bot mark and level for a bot (names.js). */
export function who(room, view, seat) {
  const info = view && view.ghost && seat === view.ghost.seat ? null : room && room.seats && room.seats[seat];
  return nameNode(seatName(room, view, seat), info);
}

/** Who owes a move now, as the seats of the prompt (the ghost is never prompted). */
export function owing(view) {
  return (view && view.prompt && view.prompt.seats) || [];
}

/** The status line: round, phase, whose turn (or why the game ended early), the clock. */
export function statusLine(ctx) {
  const { view, room, seat, seal, ended } = ctx;
  const parts = [];
  parts.push(h("span", { class: "round" }, t("sk.round_of", { round: view.round, rounds: view.rounds })));
  parts.push(h("span", {}, t("sk.cards_each", { count: view.cards })));
  parts.push(h("span", {}, t("sk.dealer"), " ", who(room, view, view.dealer)));
  let turn = "";  // text, or a list of nodes
  if (ended) {
    turn = ended;
  } else if (view.phase === "bid") {
    const waiting = owing(view).filter((s) => !(seal && seal.committed && s in seal.committed));
    if (seal && seal.open) turn = t("sk.revealing_bids");
    else if (seat !== null && waiting.includes(seat)) turn = t("sk.your_bid");
    else turn = [t("sk.waiting_bids"), " ", waiting.length ? waiting.flatMap((s, i) => [i ? ", " : "", who(room, view, s)]) : "—"];
  } else if (view.phase === "play") {
    const next = owing(view)[0];
    turn = next === seat ? t("sk.your_turn") : splitAround(t("lobby.turn.to_play", { name: "\u0000" }), who(room, view, next));
  } else if (view.phase === "over") {
    turn = t("sk.game_over");
  }
  parts.push(h("span", { class: "turn", role: "status" }, turn));
  if (ctx.clock) parts.push(ctx.clock);
  return h("div", { class: "status-line" }, parts);
}

/** One box per player (and the ghost): bid, tricks, score, sealed state, presence. */
export function playersPanel(ctx) {
  const { view, room, seat, seal, connected, away, ended } = ctx;
  const boxes = [];
  // The bids flip over together, once, when they are revealed.
  const revealed = (view.bids || []).length > 0 && view.bids.every((b) => b !== null && b !== undefined);
  const flip = !!(revealed && ctx.ui && ctx.ui.bidsFlipped !== view.round && view.phase === "play"
    && (view.trick || []).length === 0 && !view.last_trick);
  if (revealed && ctx.ui) ctx.ui.bidsFlipped = view.round;
  const prompt = owing(view);
  for (let s = 0; s < view.players; s++) {
    const bid = view.bids ? view.bids[s] : null;
    let sealedState = null;
    if (view.phase === "bid" && !ended) {
      const done = seal && seal.committed && s in seal.committed;
      const opened = seal && seal.opened && seal.opened[s];
      const shown = opened && "bid" in opened ? opened.bid : null;
      sealedState = h("div", { class: "sealed-state", dataset: { committed: done ? "1" : "0" } },
        shown !== null ? t("sk.bid_shown", { bid: shown }) : done ? t("sk.bid_sealed") : t("sk.choosing"));
    }
    const isTurn = view.phase === "play" ? prompt[0] === s : prompt.includes(s) && !(seal && seal.committed && s in seal.committed);
    const online = !connected || connected.has(s) || (room.seats[s] && room.seats[s].bot);
    boxes.push(h("div", {
      class: ["player", s === seat && "me", isTurn && "turn"],
      dataset: { seat: String(s) },
      "aria-current": isTurn ? "true" : null,
    },
    h("div", { class: "pname" }, who(room, view, s), s === seat ? h("span", { class: "you" }, ` (${t("common.you")})`) : null),
    away && away.has(s) ? h("div", { class: "offline", dataset: { away: "1" } },
      room.absent === "default" ? t("sk.away_default") : t("sk.away_bot"))
      : ctx.waiting && ctx.waiting.has(s) ? h("div", { class: "offline", dataset: { waiting: "1" } }, t("room.waiting"))
      : online ? null : h("div", { class: "offline" }, t("room.offline")),
    h("div", { class: "stats" },
      h("span", {}, `${t("sk.bid")} `, h("strong", { class: ["bid", flip && "flip"] }, bid === null || bid === undefined ? "–" : String(bid))),
      h("span", {}, `${t("sk.won")} `, h("strong", { class: "won" }, String(view.tricks[s] ?? 0))),
      h("span", {}, `${t("sk.score")} `, h("strong", { class: "score" }, String(view.scores[s] ?? 0)))),
    sealedState,
    // (While bidding every hand holds the round's cards: the status line says how many.)
    view.hand_sizes && view.phase !== "bid" ? h("div", { class: "small" }, t("sk.in_hand", { count: view.hand_sizes[s] })) : null));
  }
  if (view.ghost) {
    const g = view.ghost;
    boxes.push(h("div", { class: ["player", "ghost", view.turn === g.seat && "turn"], dataset: { seat: String(g.seat) } },
      h("div", { class: "pname" }, t("sk.ghost_hand")),
      h("div", { class: "stats ghost-info" },
        h("span", {}, `${t("sk.pile")} `, h("strong", {}, String(g.pile))),
        h("span", {}, `${t("sk.won")} `, h("strong", {}, String(g.tricks))))));
  }
  return h("div", { class: "players", role: "list", "aria-label": t("sk.players_aria") },
    boxes.map((b) => { b.setAttribute("role", "listitem"); return b; }));
}

/** The bids just revealed, held on screen a moment (module.js `hold`): "Yo-ho-ho!" and every
 * seat's bid, mine marked. Fixed at the top of the window, over no control; the words are
 * the hold's announcement. */
export function revealedBids(ctx) {
  const held = ctx.held;
  if (!held || held.kind !== "bids") return null;
  const { view, room, seat } = ctx;
  const banner = h("div", { class: "moment-banner", dataset: { role: "bids-revealed" }, "aria-hidden": "true" },
    h("div", { class: "moment-card" },
      h("strong", { class: "moment-title" }, t("sk.reveal.title")),
      h("ul", { class: "moment-list" }, held.bids.map((b) => h("li", { class: b.seat === seat ? "me" : null, dataset: { seat: String(b.seat) } },
        h("span", { class: "who" }, who(room, view, b.seat)), " ", h("strong", { class: "bid" }, String(b.bid)))))));
  banner.style.setProperty("--elapsed", `${Date.now() - held.at}ms`);  // a redraw does not pop it again
  return banner;
}

/** One card on the table: the card, "as pirate" for a choice card, who played it. */
function playedCard(room, view, p, { classes = [], small = false, extra = null } = {}) {
  return h("div", { class: ["played", ...classes], dataset: { seat: String(p.seat) } },
    cardFace(view.game, p.card, { as: p.as || null, small }),
    p.as ? h("span", { class: "as" }, t("sk.as_choice", { choice: t(`cards.as.${p.as}`) })) : null,
    h("span", { class: "by" }, who(room, view, p.seat)),
    extra);
}

/** The suit to follow, as the view names it (engines/skull_king/views.py: led, led_open). */
function followLine(view) {
  if (view.phase !== "play" || !("led" in view)) return null;
  let text;
  if (view.led) {
    const e = edition(view.game);
    text = t("table.follow.suit", { symbol: e.symbols[view.led] || "", suit: t(`cards.suit.${view.led}`) });
  } else {
    text = t(view.led_open ? "table.follow.open" : "table.follow.none");
  }
  return h("p", { class: "follow", dataset: { follow: view.led || "" } }, text);
}

/** A trick just won, held on screen: who won, the winning card marked, the other cards
 * gathering to it (the shell holds later frames meanwhile; a click goes on). */
function heldTrick(ctx) {
  const { view, room } = ctx;
  const lt = view.last_trick;
  const winner = who(room, view, lt.winner);
  const elapsed = Date.now() - ctx.held.at;
  const items = lt.plays.map((p) => playedCard(room, view, p, {
    classes: [p.seat === lt.winner && "winner"],
    extra: p.seat === lt.winner ? h("span", { class: "wins" }, `★ ${t("sk.wins")}`) : null }));
  const zone = h("div", { class: "trick-zone gather" }, items);
  zone.style.setProperty("--elapsed", `${elapsed}ms`);  // a redraw does not restart the gathering
  // Each losing card slides toward the winning one (CSS animation; none with reduced motion).
  requestAnimationFrame(() => {
    const target = zone.querySelector(".played.winner .card");
    if (!target) return;
    const t = target.getBoundingClientRect();
    for (const card of zone.querySelectorAll(".played:not(.winner) .card")) {
      const r = card.getBoundingClientRect();
      card.style.setProperty("--dx", `${t.left - r.left}px`);
      card.style.setProperty("--dy", `${t.top - r.top}px`);
    }
  });
  return h("section", { class: "trick held", "aria-label": t("sk.trick_aria"), dataset: { held: "1" } },
    h("p", { class: "trick-winner" }, h("strong", {}, placeName(t("sk.wins_trick", { name: NAME }), winner))),
    zone,
    h("p", { class: "small go-on" }, t("sk.go_on")));
}

/** The last trick won, faded and labelled: who played what, who won it. */
function lastTrickBox(ctx) {
  const { view, room } = ctx;
  const lt = view.last_trick;
  return h("div", { class: "previous-trick", role: "group", "aria-label": t("sk.last_trick_aria"), dataset: { role: "last-trick" } },
    h("p", { class: "previous-label" }, splitAround(t("sk.last_trick", { name: "\u0000" }), who(room, view, lt.winner))),
    h("div", { class: "previous-cards" }, lt.plays.map((p) => playedCard(room, view, p, {
      classes: ["previous", p.seat === lt.winner && "winner"], small: true,
      extra: p.seat === lt.winner ? h("span", { class: "wins" }, `★ ${t("sk.wins")}`) : null }))));
}

/** "Last trick": a button that opens (and closes) the last trick under the one being played.
 * Open for one trick only: the next won trick closes it (ctx.ui keeps which one is open). */
function lastTrickLook(ctx) {
  const v = ctx.view;
  const lt = v.last_trick;
  if (!lt || !lt.plays || !lt.plays.length || !ctx.ui || !ctx.rerender) return null;
  const key = `${v.round}:${lt.plays.map((p) => p.card).join(",")}`;
  const open = ctx.ui.lastTrickOpen === key;
  return h("div", { class: "last-trick-look" },
    h("button", { type: "button", class: "secondary", "aria-expanded": open ? "true" : "false", dataset: { key: "last-trick" },
      onclick: () => { ctx.ui.lastTrickOpen = open ? null : key; ctx.rerender(); } },
    t(open ? "sk.last_trick_hide" : "sk.last_trick_show")),
    open ? lastTrickBox(ctx) : null);
}

/** The trick in the middle. Between two tricks (after the won trick was held, after a
 * reload) the zone shows the last trick faded and labelled as such; once the next trick has
 * begun, "Last trick" opens it. */
export function trickPanel(ctx) {
  const { view, room } = ctx;
  if (ctx.held && ctx.held.kind === "trick" && view.last_trick) return heldTrick(ctx);
  const plays = view.trick || [];
  // A card just played flies in (once: a redraw does not replay it).
  const key = plays.length ? `${view.round}:${plays[0].seat}:${plays[0].card}` : "";
  const seen = ctx.ui && ctx.ui.trickKey === key ? ctx.ui.trickSeen : 0;
  if (ctx.ui) Object.assign(ctx.ui, { trickKey: key, trickSeen: plays.length });
  const items = plays.map((p, i) => playedCard(room, view, p, { classes: [i >= seen && "fresh"] }));
  const last = view.last_trick && view.last_trick.plays && view.last_trick.plays.length ? view.last_trick : null;
  if (view.phase === "over") return h("section", { class: "trick", "aria-label": t("sk.the_last_trick_aria") }, last && lastTrickBox(ctx));
  const between = !!last && !plays.length && view.phase === "play";
  const empty = h("span", { class: "empty" }, view.phase === "bid" ? t("sk.bids_first") : t("sk.no_card_yet"));
  return h("section", { class: "trick", "aria-label": t("sk.trick_aria") },
    h("div", { class: ["trick-zone", between && "between"], "aria-live": "polite" },
      between ? [empty, lastTrickBox(ctx)] : items.length ? items : empty),
    followLine(view),
    !between && view.phase === "play" ? lastTrickLook(ctx) : null);
}

/**
 * Your hand: sorted, legal cards enabled (from view.legal) and playable by click or keyboard
 * (arrow keys move between cards, Enter/Space plays).
 */
export function handPanel(ctx, onPlay, above = null) {
  const { view, busy } = ctx;
  const game = view.game;
  const hand = sortHand(game, view.hand || []);
  const legalPlays = new Map();
  for (const m of view.legal || []) if (m.play) legalPlays.set(m.play, [...(legalPlays.get(m.play) || []), m]);
  const myTurn = view.phase === "play" && legalPlays.size > 0 && !busy;
  const whyNot = (name) => {
    if (view.phase === "bid") return t("table.why.bid");
    if (!myTurn) return view.phase === "play" ? t("table.why.turn") : null;
    return view.led && describe(game, name).kind === "number" ? t("table.why.follow", { suit: t(`cards.suit.${view.led}`) }) : null;
  };
  let greyed = false;
  const buttons = hand.map((name) => {
    const moves = busy ? null : legalPlays.get(name);
    // Spoken as shown ("7 yellow"): a button's name contains its visible text (WCAG 2.5.3).
    const d = describe(game, name);
    const label = d.kind === "number"
      ? `${d.rank} ${t(`cards.suit.${d.suit}`)}${d.trump ? ` ${t("cards.trump")}` : ""}` : d.label;
    const why = moves ? null : whyNot(name);
    if (!moves && myTurn) greyed = true;
    return cardFace(game, name, {
      tag: "button",
      props: {
        type: "button",
        disabled: !moves,
        title: why ? `${label} — ${why}` : label,
        "aria-label": moves ? t("sk.play_card", { card: label }) : why ? `${label} — ${why}` : label,
        dataset: { card: name, key: `card-${name}` },
        onclick: () => moves && onPlay(name, moves),
      },
    });
  });
  for (const b of buttons) {
    if (!b.disabled) b.classList.add("legal");
    b.addEventListener("keydown", (ev) => {
      const i = buttons.indexOf(b);
      let j = null;
      if (ev.key === "ArrowRight" || ev.key === "ArrowDown") j = i + 1;
      if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") j = i - 1;
      if (j === null) return;
      ev.preventDefault();
      const enabled = buttons.filter((x) => !x.disabled);
      const pool = enabled.length ? enabled : buttons;
      const k = (pool.indexOf(buttons[Math.max(0, Math.min(buttons.length - 1, j))]) + pool.length) % pool.length;
      (pool[k] || pool[0]).focus();
    });
  }
  // My bid is asked: the hand is what my turn brings into view, right under the bid box (on a
  // phone both then fit on the screen; the box alone would leave the cards below it).
  const seal = ctx.seal;
  const bidding = view.phase === "bid" && !busy && !!seal && seal.seats.includes(ctx.seat) && !(ctx.seat in seal.committed);
  const row = h("div", { class: ["hand", !myTurn && "waiting"], role: "group", "aria-label": t("sk.hand_count", { count: hand.length }) },
    buttons.length ? buttons : h("span", { class: "muted" }, t("sk.no_cards")));
  row.style.setProperty("--n", String(Math.max(buttons.length, 2)));  // a phone overlaps the cards to fit them all (app.css)
  return h("section", { class: "hand-zone", "aria-label": t("sk.hand_aria"), dataset: { turnTarget: myTurn || bidding ? "1" : null } },
    above,
    h("h2", {}, myTurn ? t("sk.hand_choose") : t("sk.hand")),
    row,
    // Why cards are greyed, in words (a phone has no hover to show a card's tooltip).
    greyed && view.led ? h("p", { class: "small hand-why" }, t("table.why.hint", { suit: t(`cards.suit.${view.led}`) })) : null);
}

/** "Scary Mary / Rogue: pirate or escape?" */
export function choiceDialog(game, name, moves, onChoose, onCancel) {
  const d = describe(game, name);
  return h("div", { class: "choice-dialog", role: "dialog", "aria-label": t("sk.choice_aria", { card: d.label }) },
    h("p", {}, t("sk.choice_question", { card: d.label })),
    h("div", { class: "row" },
      moves.map((m) => h("button", { type: "button", dataset: { as: m.as, key: `as-${m.as}` }, onclick: () => onChoose(m) },
        m.as === "pirate" ? `⚔ ${t("cards.pirate")}` : `⚐ ${t("cards.escape")}`)),
      h("button", { type: "button", class: "secondary", onclick: onCancel }, t("sk.cancel"))));
}

/** The score sheet: one row per round, bid / won / points per seat, and the totals. */
export function sheetPanel(ctx) {
  const { view, room } = ctx;
  const seats = [...Array(view.players).keys()];
  const head = h("tr", {}, h("th", { scope: "col" }, t("sk.round")),
    seats.map((s) => h("th", { scope: "col" }, who(room, view, s))));
  const rows = (view.sheet || []).map((r) => h("tr", {},
    h("th", { scope: "row" }, `${r.round}`),
    seats.map((s) => {
      const made = r.bids[s] === r.tricks[s];
      return h("td", { class: made ? "made" : "missed",
        title: t(r.bonus[s] && made ? "sk.sheet_cell_bonus" : "sk.sheet_cell", { bid: r.bids[s], won: r.tricks[s], bonus: r.bonus[s] }) },
      `${r.bids[s]}/${r.tricks[s]} `, h("strong", {}, `${r.points[s] > 0 ? "+" : ""}${r.points[s]}`),
      made ? " ✓" : " ✗");
    })));
  const total = h("tr", { class: "total" }, h("th", { scope: "row" }, t("sk.total")),
    seats.map((s) => h("td", {}, String(view.scores[s] ?? 0))));
  return h("section", { class: "panel", "aria-label": t("sk.sheet_aria") },
    h("h2", {}, t("sk.sheet")),
    h("p", { class: "small muted" }, t("sk.sheet_legend")),
    h("div", { class: "scroll" }, h("table", { class: "sheet-table" },
      h("thead", {}, head), h("tbody", {}, rows, total))));
}
