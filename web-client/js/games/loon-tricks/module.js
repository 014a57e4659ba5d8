// The client module of Pirate Tricks: Loon & Score Cards (game id `loon-tricks`). It draws
// the table from a seat's view (engines/loon_tricks/views.py) and turns clicks into moves
// taken from view.legal; the shell does the rest (docs/CLIENT.md). Sealed phases: the bid,
// the tie-break pick and the ditch (private: only its mover ever sees a ditched card).

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { describe, scoreTitle, sortCards } from "./cards.js";
import { dealRound, verifyDeals } from "./deal.js";
import {
  auctionPanel, cardFace, committed, finalPanel, handPanel, loonPanel, owing, playersPanel,
  recruitedPanel, revealedMoment, rowsPanel, scoreCardsPanel, seatName, sheetPanel, statusLine, trickPanel, who,
} from "./table.js";

const AUCTION = ["bid", "pick", "award"];

// The table's own styles, added once to the page (no build step: a sheet beside this module).
if (typeof document !== "undefined" && !document.querySelector("link[data-game='loon-tricks']")) {
  document.head.append(h("link", { rel: "stylesheet", href: new URL("./table.css", import.meta.url).href, dataset: { game: "loon-tricks" } }));
}

/** The box of a sealed phase once my move is sealed (or was made for me). */
function sealedBox(ctx, what) {
  const s = ctx.seal;
  const mine = s.committed[ctx.seat];
  if (mine === "default") {
    return h("div", { class: "prompt-box", dataset: { sealed: "default" } }, h("h2", {}, t("lt.timeout")));
  }
  const n = Object.keys(s.committed).length;
  return h("div", { class: "prompt-box", dataset: { sealed: "1" } },
    h("h2", {}, what),
    h("p", {}, s.open ? t("lt.revealing") : t("lt.progress", { n, total: s.seats.length })),
    ctx.sealedMove ? null : h("p", { class: "small" }, t("lt.sealed_elsewhere")));
}

/** Whether the sealed phase now open waits for my move. */
function mySealOpen(ctx) {
  const s = ctx.seal;
  return !!(s && ctx.seat !== null && s.seats.includes(ctx.seat));
}

/** The sealed bid: choose 0..my loon, then seal. */
function bidBox(ctx) {
  const { view: v, ui } = ctx;
  const row = (v.offer ?? 0) + 1;
  if (!mySealOpen(ctx)) return h("div", { class: "prompt-box" }, h("p", {}, t("lt.bid_not_yours", { row })));
  if (committed(ctx, ctx.seat)) {
    const m = ctx.sealedMove;
    return sealedBox(ctx, m && "bid" in m ? t("lt.bid_sealed_n", { bid: m.bid, row }) : t("lt.bid_sealed", { row }));
  }
  const bids = (v.legal || []).filter((m) => "bid" in m).map((m) => m.bid);
  if (ui.bid !== undefined && ui.bid !== null && !bids.includes(ui.bid)) ui.bid = null;
  const selected = ui.bid ?? null;
  return h("div", { class: "prompt-box", role: "group", "aria-label": t("lt.bid_aria"), dataset: { prompt: "bid" } },
    h("h2", {}, t("lt.bid_question", { row, max: bids[bids.length - 1] ?? 0 })),
    h("div", { class: "bids" }, bids.map((b) => h("button", {
      type: "button", "aria-pressed": selected === b ? "true" : "false", dataset: { bid: String(b), key: `bid-${b}` },
      "aria-label": t("lt.bid_one", { bid: b }), onclick: () => { ui.bid = b; ctx.rerender(); } }, String(b)))),
    h("div", { class: "row" },
      h("button", { type: "button", dataset: { key: "seal" }, disabled: selected === null || ctx.busy,
        onclick: () => ctx.commit({ bid: selected }) },
      selected === null ? t("lt.bid_choose") : t("lt.bid_seal", { bid: selected })),
      h("span", { class: "small hint" }, t("lt.bid_secret"))));
}

/** The tie-break pick: choose a card of my hand (below), then seal. */
function pickBox(ctx) {
  const { view: v, ui } = ctx;
  if (!mySealOpen(ctx)) return h("div", { class: "prompt-box" }, h("p", {}, t("lt.pick_not_yours", { bid: v.tie_bid ?? 0 })));
  if (committed(ctx, ctx.seat)) {
    const m = ctx.sealedMove;
    return sealedBox(ctx, m && m.pick ? t("lt.pick_sealed_n", { card: describe(m.pick).label }) : t("lt.pick_sealed"));
  }
  const chosen = ui.pick || null;
  return h("div", { class: "prompt-box", role: "group", "aria-label": t("lt.pick_aria"), dataset: { prompt: "pick" } },
    h("h2", {}, t("lt.pick_question", { bid: v.tie_bid ?? 0, row: (v.offer ?? 0) + 1 })),
    h("p", { class: "small" }, t("lt.pick_help")),
    h("div", { class: "row" },
      h("button", { type: "button", dataset: { key: "seal" }, disabled: !chosen || ctx.busy,
        onclick: () => ctx.commit({ pick: chosen }) },
      chosen ? t("lt.pick_seal", { card: describe(chosen).label }) : t("lt.pick_choose"))));
}

/** The pick's winner gives the row to one of the tied seats (an open move). */
function awardBox(ctx) {
  const { view: v, room } = ctx;
  const moves = (v.legal || []).filter((m) => "award" in m);
  if (!moves.length) return null;
  return h("div", { class: "prompt-box", role: "group", "aria-label": t("lt.award_aria"), dataset: { prompt: "award" } },
    h("h2", {}, t("lt.award_question", { row: (v.offer ?? 0) + 1 })),
    h("div", { class: "row" }, moves.map((m) => h("button", { type: "button", disabled: ctx.busy,
      dataset: { award: String(m.award), key: `award-${m.award}` }, onclick: () => ctx.act(m) },
    m.award === ctx.seat ? t("lt.award_me") : who(room, v, m.award)))));
}

/** The ditch: choose two cards of my hand (below), then seal; nobody else ever sees them. */
function ditchBox(ctx) {
  const { ui } = ctx;
  if (!mySealOpen(ctx)) return null;
  if (committed(ctx, ctx.seat)) {
    const m = ctx.sealedMove;
    return sealedBox(ctx, m && m.ditch ? t("lt.ditch_sealed_n", { cards: m.ditch.map((c) => describe(c).label).join(", ") })
      : t("lt.ditch_sealed"));
  }
  const chosen = ui.ditch || [];
  const move = ditchMove(ctx, chosen);
  return h("div", { class: "prompt-box", role: "group", "aria-label": t("lt.ditch_aria"), dataset: { prompt: "ditch" } },
    h("h2", {}, t("lt.ditch_question")),
    h("p", { class: "small" }, t("lt.ditch_help")),
    h("div", { class: "row" },
      h("button", { type: "button", dataset: { key: "seal" }, disabled: !move || ctx.busy, onclick: () => move && ctx.commit(move) },
        move ? t("lt.ditch_seal", { cards: chosen.map((c) => describe(c).label).join(", ") }) : t("lt.ditch_choose", { count: 2 - chosen.length }))));
}

/** The legal ditch of exactly the chosen cards, or null. */
function ditchMove(ctx, chosen) {
  if (chosen.length !== 2) return null;
  const key = sortCards(chosen).join(" ");
  return (ctx.view.legal || []).find((m) => m.ditch && m.ditch.join(" ") === key) || null;
}

/** A prediction of 0-10 tricks (an open move: one click). */
function predictBox(ctx) {
  const moves = (ctx.view.legal || []).filter((m) => "predict" in m);
  if (!moves.length) return null;
  return h("div", { class: "prompt-box", role: "group", "aria-label": t("lt.predict_aria"), dataset: { prompt: "predict" } },
    h("h2", {}, t("lt.predict_question")),
    h("div", { class: "bids predict" }, moves.map((m) => h("button", { type: "button", disabled: ctx.busy,
      dataset: { predict: String(m.predict), key: `predict-${m.predict}` }, onclick: () => ctx.act(m) }, String(m.predict)))));
}

/** The moment a sealed phase of the auction opens (the shell's `revealed`): each seat's bid
 * or pick, in seat order. The ditch is private: nothing to show. */
function auctionMoment(view, event, name) {
  const shown = Object.entries(event.moves || {}).filter(([, m]) => m && ("bid" in m || m.pick))
    .map(([s, m]) => ({ seat: Number(s), bid: "bid" in m ? m.bid : null, pick: m.pick || null }))
    .sort((a, b) => a.seat - b.seat);
  if (event.private || !shown.length || !view) return null;
  const picks = shown.some((x) => x.pick);
  const title = picks ? t("lt.reveal.picks", { bid: view.tie_bid ?? 0 }) : t("lt.reveal.bids", { row: (view.offer ?? 0) + 1 });
  const said = (x) => `${name(x.seat)} ${x.pick ? describe(x.pick).label : x.bid}`;
  return { ms: 1800, kind: "auction", title, shown, sound: "reveal",
    text: `${title}. ${t("lt.revealed", { moves: shown.map(said).join(", ") })}` };
}

/** What a click on a card of my hand does now. */
function handMode(ctx) {
  const v = ctx.view;
  if (v.phase === "play") return "play";
  if (v.phase === "pick" && mySealOpen(ctx) && !committed(ctx, ctx.seat)) return "pick";
  if (v.phase === "ditch" && mySealOpen(ctx) && !committed(ctx, ctx.seat)) return "ditch";
  return "none";
}

function onCard(ctx, mode, card) {
  const ui = ctx.ui;
  if (ctx.busy) return;
  if (mode === "play") {
    const move = (ctx.view.legal || []).find((m) => m.play === card);
    if (move) ctx.act(move);
    return;
  }
  if (mode === "pick") ui.pick = ui.pick === card ? null : card;
  if (mode === "ditch") {
    const chosen = ui.ditch || [];
    ui.ditch = chosen.includes(card) ? chosen.filter((c) => c !== card) : [...chosen, card].slice(-2);
  }
  ctx.rerender();
}

function promptBox(ctx) {
  const v = ctx.view;
  if (v.phase === "bid") return bidBox(ctx);
  if (v.phase === "pick") return pickBox(ctx);
  if (v.phase === "award") return awardBox(ctx);
  if (v.phase === "ditch") return ditchBox(ctx);
  if (v.phase === "predict") return predictBox(ctx);
  return null;
}

function chosenCards(ctx, mode) {
  if (mode === "pick") return ctx.ui.pick ? [ctx.ui.pick] : [];
  if (mode === "ditch") return ctx.ui.ditch || [];
  return [];
}

const loonTricks = {
  ids: ["loon-tricks"],
  title: () => t("games.loon-tricks.title"),
  players: () => [3, 5],
  seatName,

  /** Top to bottom: who and what now; what decides the move (the rows in the auction, the
   * trick in play); the prompt and my hand; then the rest (recruitment, payments, the log). */
  table(ctx) {
    const v = ctx.view;
    const auction = AUCTION.includes(v.phase);
    const head = [statusLine(ctx), revealedMoment(ctx), playersPanel(ctx)];
    const side = h("div", { class: "lt-side" }, h("div", {}, recruitedPanel(ctx), auctionPanel(ctx)), loonPanel(ctx));
    if (v.phase === "over") {
      return [...head, finalPanel(ctx), ...ctx.notes, trickPanel(ctx), scoreCardsPanel(ctx), side, rowsPanel(ctx)];
    }
    const mine = ctx.seat !== null && v.hand;
    const parts = [...head];
    if (v.phase === "play") parts.push(trickPanel(ctx));
    if (auction) parts.push(rowsPanel(ctx, "offer"));
    parts.push(...ctx.notes);
    if (!mine) {
      if (ctx.seat === null) parts.push(h("p", { class: "small", dataset: { role: "spectator-note" } }, t("lt.watching")));
    } else {
      const mode = ctx.ended ? "none" : handMode(ctx);
      if (!ctx.ended) parts.push(promptBox(ctx));
      parts.push(...ctx.controls);
      parts.push(handPanel(ctx, mode, chosenCards(ctx, mode), (card) => onCard(ctx, mode, card)));
    }
    parts.push(auction ? rowsPanel(ctx, "rest") : null, scoreCardsPanel(ctx), side);
    if (!auction) parts.push(rowsPanel(ctx));
    return parts;
  },

  sheet: (ctx) => sheetPanel(ctx),

  viewChanged(ctx) {
    const v = ctx.view;
    if (v.phase !== "pick") ctx.ui.pick = null;
    if (v.phase !== "ditch") ctx.ui.ditch = [];
  },

  turnText(ctx) {
    const v = ctx.view;
    if (v.phase === "over") return "";
    if (["bid", "pick", "ditch"].includes(v.phase)) return t(`lt.phase.${v.phase}`, { row: (v.offer ?? 0) + 1, bid: v.tie_bid ?? 0 });
    return t("lt.to_move", { name: seatName(ctx.room, v, owing(v)[0]) });
  },

  /** My card or prediction may be taken back while it revealed nothing: not when it ended
   * the round (the score cards were paid) nor when it was the last prediction (the
   * recruitment sets were laid face up). An award gives away a row: it stands. */
  mayTakeBack(previous, view) {
    if (!previous || !view || previous.round !== view.round) return false;
    if (previous.phase === "play") return view.phase === "play";
    if (previous.phase === "predict") return view.phase === "predict";
    return false;
  },

  /** The row auction's sealed bids (or the tie-break picks) just revealed: everyone's at
   * once, held a moment. A trick was just won: hold it on screen (the winner marked) before
   * later frames. */
  hold(previous, view, event, name) {
    if (event && event.kind === "revealed") return auctionMoment(view, event, name);
    if (!previous || previous.phase !== "play" || !view.last_trick || (view.trick || []).length) return null;
    if (JSON.stringify(previous.last_trick) === JSON.stringify(view.last_trick)) return null;
    return { ms: 1200, kind: "trick", text: t("lt.wins_trick", { name: name(view.last_trick.winner) }) };
  },

  revealText(ctx, moves) {
    const shown = Object.entries(moves).filter(([, m]) => m && ("bid" in m || m.pick));
    if (!shown.length) return "";
    return t("lt.revealed", { moves: shown.map(([s, m]) => `${ctx.name(Number(s))} ${"bid" in m ? m.bid : describe(m.pick).label}`).join(", ") });
  },

  /** Digits choose a bid (0-9) or make a prediction; Escape drops the chosen cards. */
  key(ev, ctx) {
    const v = ctx.view;
    if (/^[0-9]$/.test(ev.key)) {
      const n = Number(ev.key);
      if (v.phase === "bid" && mySealOpen(ctx) && !committed(ctx, ctx.seat) && (v.legal || []).some((m) => m.bid === n)) {
        ctx.ui.bid = n;
        return true;
      }
      const move = v.phase === "predict" && !ctx.busy && (v.legal || []).find((m) => m.predict === n);
      if (move) {
        ctx.act(move);
        return true;
      }
    }
    if (ev.key === "Escape" && (ctx.ui.pick || (ctx.ui.ditch || []).length)) {
      ctx.ui.pick = null;
      ctx.ui.ditch = [];
      return true;
    }
    return false;
  },

  // -- the deal check (the verified badge) ------------------------------------------------
  /** What this view shows of its round's deal: the score cards, every row's face-up cards,
   * my 5 dealt cards (before any row is taken) and, once I took a row, my hand holding it
   * (its face-down cards too) until the ditch. */
  dealSeen(view) {
    if (!view || !view.rows || !view.round) return null;
    const out = { round: view.round };
    const sc = (view.score_cards || []).find((c) => c.round === view.round);
    if (sc) out.scores = { recruitment: sc.recruitment, capture: sc.capture, treasure: sc.treasure };
    if (view.rows.every((r) => r.up && r.up.length === 5)) out.rows = view.rows.map((r) => r.up);
    if (view.seat !== null && view.hand) {
      const auction = AUCTION.includes(view.phase);
      if (auction && view.rows.every((r) => r.owner === null) && view.hand.length === 5) out.hand = view.hand;
      const row = view.rows.findIndex((r) => r.owner === view.seat);
      if ((auction || view.phase === "ditch") && row >= 0 && view.hand.length === 12) {
        out.row = row;
        out.held = view.hand;
      }
    }
    return out;
  },

  verifyDeals: (args) => verifyDeals(args),

  checkedText: (n, spectator) => (spectator ? t("lt.checked_rows", { count: n }) : t("lt.checked_deals", { count: n })),
  badRoundsText: (rounds) => t("lt.bad_rounds", { count: rounds.length, rounds: rounds.join(", ") }),

  // -- the end -------------------------------------------------------------------------------
  /** Everyone's loon: the totals once the game is over; before (an abandoned game) the sum
   * anyone can make of the public ledger (12 at the start plus every payment). */
  scores: (view) => view.totals || [...Array(view.players).keys()].map((s) => 12 + (view.ledger || [])
    .filter((e) => e.seat === s).reduce((a, e) => a + e.amount, 0)),

  /** Each seat's loon after every round, from the public ledger (12 at the start plus every
   * payment and collection): the game-over chart. Drawn once the totals are out. */
  scoreHistory(view) {
    if (!view.totals) return null;
    const rounds = [...Array(view.round).keys()].map((i) => i + 1);
    const totals = [...Array(view.players).keys()].map((s) => rounds.map((r) => 12 + (view.ledger || [])
      .filter((e) => e.seat === s && e.round <= r).reduce((a, e) => a + e.amount, 0)));
    return { rounds, totals };
  },

  /** A final score in the game's unit: loon. */
  scoreText: (n) => t("lt.loon_total", { loon: n }),

  stoppedText: (view) => t("lt.stopped", { round: view.round, rounds: view.rounds }),

  // -- the replay --------------------------------------------------------------------------
  replayTable(ctx) {
    const v = ctx.view;
    const hands = v.hands ? h("section", { class: "hands-all panel", "aria-label": t("lt.all_hands") },
      h("h2", {}, t("lt.all_hands")),
      v.hands.map((hand, i) => h("div", { class: "hand-row", dataset: { seat: String(i) } },
        h("span", { class: "who" }, seatName(ctx.room, v, i)), " ",
        hand.length ? hand.map((c) => cardFace(c, { small: true })) : h("span", { class: "small" }, "—")))) : null;
    return [statusLine(ctx), playersPanel(ctx), trickPanel(ctx), hands, finalPanel(ctx), scoreCardsPanel(ctx),
      rowsPanel(ctx), auctionPanel(ctx), recruitedPanel(ctx), loonPanel(ctx)];
  },

  describeStep(frame, name) {
    const moves = Object.entries(frame.moves || {});
    if (!moves.length) return frame.version === 1 ? t("lt.the_deal") : "";
    const by = (s) => ((frame.proxies || []).includes(Number(s)) ? ` (${t("lt.by_bot")})`
      : (frame.defaults || []).includes(Number(s)) ? ` (${t("lt.time_ran_out")})` : "");
    return moves.map(([s, m]) => {
      const n = name(Number(s));
      let text;
      if (!m) text = t("lt.step.ditch", { name: n });
      else if ("bid" in m) text = t("lt.step.bid", { name: n, bid: m.bid });
      else if (m.pick) text = t("lt.step.pick", { name: n, card: describe(m.pick).label });
      else if ("award" in m) text = t("lt.step.award", { name: n, to: name(m.award) });
      else if ("predict" in m) text = t("lt.step.predict", { name: n, count: m.predict });
      else if (m.play) text = t("lt.step.play", { name: n, card: describe(m.play).label });
      else text = t("lt.step.ditch", { name: n });  // the ditched cards are never shown
      return text + by(s);
    }).join("; ");
  },

  /** Every round's deal recomputed from the seed against the replay's first view of it:
   * the face-up row cards (the hands too, from a replay that shows them before the ditch;
   * this server's keeps a hand hidden until its ditched cards are out of it, for good). */
  async checkReplayDeals(frames, seed) {
    let rounds = 0;
    const bad = [];
    let seen = -1;
    for (const f of frames) {
      const v = f.view;
      if (!v || v.phase !== "bid" || v.round === seen || !(v.rows || []).every((r) => r.owner === null)) continue;
      seen = v.round;
      const dealt = await dealRound(seed, v.players, v.round);
      const same = (a, b) => [...a].sort().join() === [...b].sort().join();
      const ok = (!v.hands || dealt.hands.every((hand, i) => same(hand, v.hands[i] || [])))
        && dealt.rows.every((r, i) => same(r.up, v.rows[i].up));
      rounds += 1;
      if (!ok) bad.push(v.round);
    }
    return { rounds, bad };
  },

  describe,
  scoreTitle,
};

export default loonTricks;
