// The client module of Skull King and Pirate Tricks: Bid & Make It (one module, two game
// ids). It draws the table from a seat's view (engines/skull_king/views.py) and turns clicks
// into moves taken from view.legal; the shell (room/, replay.js) does everything else.
// The contract is docs/CLIENT.md.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { describe, edition, playLabel } from "./cards.js";
import { dealRound, verifyDeals } from "./deal.js";
import {
  cardFace, choiceDialog, handPanel, playersPanel, revealedBids, seatName, sheetPanel, statusLine, trickPanel,
} from "./table.js";

/** The bid box of the sealed bidding: choose, then seal (ctx.seal commits it). */
function bidBox(ctx) {
  const { view: v, seal: s, seat, ui } = ctx;
  if (!s || !s.seats.includes(seat)) return h("div", { class: "prompt-box" }, h("p", {}, t("sk.bid.waiting_open")));
  const mine = s.committed[seat];
  const stored = ctx.sealedMove;
  if (mine === "default") {
    return h("div", { class: "prompt-box", dataset: { sealed: "default" } },
      h("h2", {}, t("sk.bid.timeout")), h("p", {}, t("sk.bid.timeout_text")));
  }
  if (mine) {
    const n = Object.keys(s.committed).length;
    return h("div", { class: "prompt-box", dataset: { sealed: "1" } },
      h("h2", {}, stored ? t("sk.bid.sealed_n", { bid: stored.bid }) : t("sk.bid.sealed")),
      h("p", {}, s.open ? t("sk.bid.revealing") : t("sk.bid.progress", { n, total: s.seats.length })),
      stored ? null : h("p", { class: "small" }, t("sk.bid.elsewhere")));
  }
  const bids = (v.legal || []).filter((m) => "bid" in m).map((m) => m.bid);
  if (ui.bid !== undefined && ui.bid !== null && !bids.includes(ui.bid)) ui.bid = null;
  const selected = ui.bid ?? null;
  const buttons = bids.map((b) => h("button", { type: "button", "aria-pressed": selected === b ? "true" : "false",
    dataset: { bid: String(b), key: `bid-${b}` }, "aria-label": t("sk.bid.one", { bid: b }),
    onclick: () => { ui.bid = b; ctx.rerender(); } }, String(b)));
  return h("div", { class: "prompt-box", role: "group", "aria-label": t("sk.bid.aria"), dataset: { turnTarget: "1" } },
    h("h2", {}, t("sk.bid.question", { max: bids[bids.length - 1] ?? 0 })),
    h("div", { class: "bids" }, buttons),
    h("div", { class: "row" },
      h("button", { type: "button", dataset: { key: "seal" }, disabled: selected === null || ctx.busy,
        onclick: () => ctx.commit({ bid: selected }) },
      selected === null ? t("sk.bid.choose") : t("sk.bid.seal", { bid: selected })),
      h("span", { class: "small" }, t("sk.bid.secret"))));
}

/** The moment the bids are revealed (the shell's `revealed`): each seat's bid, in seat order. */
function bidsMoment(moves, name) {
  const bids = Object.entries(moves || {}).filter(([, m]) => m && "bid" in m)
    .map(([s, m]) => ({ seat: Number(s), bid: m.bid })).sort((a, b) => a.seat - b.seat);
  if (!bids.length) return null;
  return { ms: 1800, kind: "bids", bids, sound: "reveal",
    text: t("sk.bids_revealed", { bids: bids.map((b) => `${name(b.seat)} ${b.bid}`).join(", ") }) };
}

/** Which keys play the game, on the page (closed until opened). */
function keysHelp() {
  return h("details", { class: "keys" }, h("summary", {}, t("sk.keys.title")),
    h("ul", {}, ["tab", "arrows", "enter", "digits", "esc", "click"].map((k) => h("li", {}, t(`sk.keys.${k}`)))));
}

/** A card click: one move, or Scary Mary / Rogue's choice (pirate or escape) first. */
function playCard(ctx, card, moves) {
  if (ctx.busy) return;
  if (moves.length > 1 || moves[0].as) {
    ctx.ui.choice = { card, moves };
    ctx.rerender();
    ctx.focus(".choice-dialog button");
    return;
  }
  ctx.act(moves[0]);
}

const skullKing = {
  ids: ["skull-king", "bid-tricks"],

  title: (gameId) => edition(gameId).title,
  players: (gameId) => edition(gameId).players,

  seatName,

  table(ctx) {
    const v = ctx.view;
    const parts = [statusLine(ctx), revealedBids(ctx), playersPanel(ctx), trickPanel(ctx), ...ctx.notes];
    if (ctx.seat === null || !v.hand) {
      if (ctx.seat === null) {
        parts.push(h("p", { class: "small", dataset: { role: "spectator-note" } }, t("sk.watching")));
      }
      return parts;
    }
    if (ctx.ended || v.phase === "over") {
      if (ctx.ended) parts.push(handPanel(ctx, () => {}));
      return parts;
    }
    if (v.phase === "bid") parts.push(bidBox(ctx));
    // Scary Mary / Rogue's question sits in the hand's own panel, right above the cards: on a
    // phone that panel is pinned on screen, so the question never hides under it.
    const choice = ctx.ui.choice;
    const question = choice && v.phase === "play"
      ? h("div", { class: "prompt-box" }, choiceDialog(v.game, choice.card, choice.moves,
        (m) => { ctx.ui.choice = null; ctx.act(m); },
        () => { ctx.ui.choice = null; ctx.rerender(); }))
      : null;
    parts.push(...ctx.controls);
    parts.push(handPanel(ctx, (card, moves) => playCard(ctx, card, moves), question));
    parts.push(keysHelp());
    return parts;
  },

  sheet: (ctx) => sheetPanel(ctx),

  /** A new view arrived: forget a half-made choice. */
  viewChanged(ctx) {
    ctx.ui.choice = null;
  },

  turnText(ctx) {
    const v = ctx.view;
    if (v.phase === "bid") return t("lobby.turn.bidding");
    if (v.phase === "play") return t("lobby.turn.to_play", { name: seatName(ctx.room, v, (v.prompt && v.prompt.seats[0]) ?? v.turn) });
    return "";
  },

  revealText(ctx, moves) {
    const bids = Object.entries(moves).filter(([, m]) => m && "bid" in m);
    return bids.length ? t("sk.bids_revealed", { bids: bids.map(([s, m]) => `${ctx.name(Number(s))} ${m.bid}`).join(", ") }) : "";
  },

  /** Digits choose a bid; Escape closes the pirate-or-escape choice. True: handled. */
  key(ev, ctx) {
    const v = ctx.view;
    const s = ctx.seal;
    if (v.phase === "bid" && /^[0-9]$/.test(ev.key) && s && s.seats.includes(ctx.seat) && !s.committed[ctx.seat]) {
      const n = Number(ev.key);
      if ((v.legal || []).some((m) => m.bid === n)) {
        ctx.ui.bid = n;
        return true;
      }
    }
    if (ev.key === "Escape" && ctx.ui.choice) {
      ctx.ui.choice = null;
      return true;
    }
    return false;
  },

  /** The bids just revealed: every seat's bid at once ("Yo-ho-ho!"), held a moment before
   * the first card. A trick just won: hold it on screen (who won, the winning card marked,
   * the cards gathering to the winner) before later frames are drawn. The last trick of a
   * round too: the next round's view still carries it as last_trick. */
  hold(previous, view, event, name) {
    if (event && event.kind === "revealed") return bidsMoment(event.moves, name);
    if (!previous || previous.phase !== "play" || !view.last_trick || (view.trick || []).length) return null;
    if (JSON.stringify(previous.last_trick) === JSON.stringify(view.last_trick)) return null;
    return { ms: 1500, kind: "trick", sound: "trick", text: t("sk.wins_trick", { name: name(view.last_trick.winner) }) };
  },

  /** My own card may be taken back unless it ended the round or the ghost played after it. */
  mayTakeBack(previous, view) {
    if (!view || view.phase !== "play" || (previous && previous.round !== view.round)) return false;
    return !(previous && previous.ghost && view.ghost && previous.ghost.pile !== view.ghost.pile);
  },

  // -- the deal check (the verified badge) ------------------------------------------------
  /** What this browser saw of a deal, kept for the check once the seed is out; null: nothing new. */
  dealSeen(view) {
    if (view.phase !== "bid" || view.dealer === undefined) return null;
    const complete = view.seat !== null && view.hand && view.hand.length === view.cards;
    if (!complete && view.seat !== null) return null;
    return { round: view.round, hand: complete ? view.hand : null, dealer: view.dealer };
  },

  /** The deals seen, recomputed from the revealed seed: {ok, seedOk, checked, rounds}. */
  verifyDeals: (args) => verifyDeals(args),

  /** What `checked` counts, for the badge. */
  checkedText(n, spectator) {
    return spectator ? t("sk.checked_dealers", { count: n }) : t("sk.checked_hands", { count: n });
  },

  badRoundsText: (rounds) => t("sk.bad_rounds", { count: rounds.length, rounds: rounds.join(", ") }),

  // -- the end -------------------------------------------------------------------------------
  scores: (view) => view.scores || [],

  /** Each seat's cumulative score after every round of the sheet (the game-over chart). */
  scoreHistory(view) {
    const sheet = view.sheet || [];
    if (!sheet.length) return null;
    const totals = [...Array(view.players).keys()].map(() => []);
    const sums = Array(view.players).fill(0);
    for (const row of sheet) {
      for (let s = 0; s < view.players; s++) {
        sums[s] += row.points[s] ?? 0;
        totals[s].push(sums[s]);
      }
    }
    return { rounds: sheet.map((r) => r.round), totals };
  },

  /** Where an abandoned game stopped. */
  stoppedText(view) {
    return view.phase === "bid" ? t("sk.stopped_bids", { round: view.round, rounds: view.rounds })
      : view.phase === "play" ? t("sk.stopped_play", { round: view.round, rounds: view.rounds }) : "";
  },

  // -- the replay --------------------------------------------------------------------------
  replayTable(ctx) {
    const v = ctx.view;
    const hands = v.hands ? h("section", { class: "hands-all", "aria-label": t("sk.all_hands_aria") },
      h("h2", {}, t("sk.all_hands")),
      v.hands.map((hand, i) => h("div", { class: "hand-row", dataset: { seat: String(i) } },
        h("span", { class: "who" }, seatName(ctx.room, v, i)),
        hand.length ? hand.map((c) => cardFace(v.game, c, { small: true })) : h("span", { class: "small" }, "—")))) : null;
    return [statusLine(ctx), playersPanel(ctx), trickPanel(ctx), hands];
  },

  /** One step of the replay in words ("" when there is nothing to say). */
  describeStep(frame, name) {
    const v = frame.view;
    const moves = Object.entries(frame.moves || {});
    if (!moves.length) return frame.version === 1 ? t("sk.the_deal") : "";
    const proxies = frame.proxies || [];
    const by = (s) => (proxies.includes(Number(s)) ? ` (${t("sk.by_bot")})`
      : (frame.defaults || []).includes(Number(s)) ? ` (${t("sk.time_ran_out")})` : "");
    const bids = moves.filter(([, m]) => m && "bid" in m);
    if (bids.length) return t("sk.bids_revealed", { bids: bids.map(([s, m]) => `${name(Number(s))} ${m.bid}${by(s)}`).join(", ") });
    return moves.map(([s, m]) => t("sk.played", { name: name(Number(s)), card: m.play ? playLabel(v.game, { card: m.play, as: m.as }) : JSON.stringify(m) })
      + by(s)).join("; ");
  },

  /** Every round's deal recomputed from the seed against the replayed hands: {rounds, bad}. */
  async checkReplayDeals(frames, seed) {
    let rounds = 0;
    const bad = [];
    let seen = -1;
    for (const f of frames) {
      const v = f.view;
      if (!v || !v.hands || v.phase !== "bid" || v.round === seen) continue;
      seen = v.round;
      const dealt = await dealRound(v.game, seed, v.players, v.round);
      const same = dealt.length === v.hands.length && dealt.every((hand, i) =>
        [...hand].sort().join() === [...v.hands[i]].sort().join());
      rounds += 1;
      if (!same) bad.push(v.round);
    }
    return { rounds, bad };
  },

  describe,
};

export default skullKing;
