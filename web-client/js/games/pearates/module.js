// The client module of Pearates: the table drawn from a seat's view (engines/pearates/
// views.py; table.js), every prompt kind as buttons turned into moves of view.legal
// (prompts.js; the hand-or-score choice sealed for all at once), the deal check from the
// engine's named Rng streams (deal.js). Deals and promises are table talk: the room's chat
// stands beside the table (`tableTalk`). Contract: docs/CLIENT.md.

import { cardFace } from "./cards.js";
import { checkOne, dealSeen, verifyDeals } from "./deal.js";
import { moveText, promptBox, send } from "./prompts.js";
import { asidePanel, endPanel, eventText, eventWords, handPanel, heldPanel, logPanel, owing, scoresOf, seatName, seatsPanel, statusLine, treasurePanel } from "./table.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

if (typeof document !== "undefined" && !document.querySelector("link[data-pe-css]")) {
  document.head.append(h("link", { rel: "stylesheet", href: new URL("./table.css", import.meta.url).href, dataset: { peCss: "1" } }));
}

// The split's public events (views.py EVENTS), those worth holding on screen, and those
// that give a seat cards.
const SPLIT = new Set(["mutiny", "divide", "winner", "share", "take", "take-bottom", "collect", "bids-lost", "returned", "leftovers"]);
const MOMENT = new Set(["mutiny", "share", "take", "take-bottom", "collect", "leftovers"]);
const GETS = new Set(["share", "take", "take-bottom", "collect", "returned"]);

const pearates = {
  ids: ["pearates"],
  title: () => t("games.pearates.title"),
  players: () => [2, 7],
  tableTalk: true,
  seatName,

  table(ctx) {
    const v = ctx.view;
    const parts = [statusLine(ctx), heldPanel(ctx)];
    if (ctx.seat !== null && v.phase !== "over") parts.push(promptBox(ctx), ...ctx.controls);
    parts.push(treasurePanel(ctx), seatsPanel(ctx), handPanel(ctx), endPanel(ctx), logPanel(ctx), asidePanel(ctx), ...ctx.notes);
    if (ctx.seat === null) parts.push(h("p", { class: "small", dataset: { role: "spectator-note" } }, t("pe.watching")));
    else parts.push(h("details", { class: "keys" }, h("summary", {}, t("pe.keys.title")),
      h("ul", {}, ["tab", "ends", "pass", "keep"].map((k) => h("li", {}, t(`pe.keys.${k}`))))));
    return [h("div", { class: "pe-table" }, parts)];
  },

  /** T / B: the top or bottom end (put, take, steal); P: pass; K / S: all into hand or all
   * scored -- each only when it is one of my legal moves now. */
  key(ev, ctx) {
    if (ctx.seat === null || ctx.busy) return false;
    const k = ev.key.toLowerCase();
    const legal = ctx.view.legal || [];
    const pick = {
      t: (m) => ["put", "take", "steal"].includes(m.move) && m.end === "top",
      b: (m) => ["put", "take", "steal"].includes(m.move) && m.end === "bottom",
      p: (m) => m.move === "pass",
      k: (m) => m.move === "keep" && m.card === undefined,
      s: (m) => m.move === "score" && m.card === undefined,
    }[k];
    const found = pick ? legal.filter(pick) : [];
    if (found.length !== 1) return false;
    if (ctx.seal && ctx.seal.committed[ctx.seat]) return false;
    send(ctx, found[0]);
    return true;
  },

  turnText(ctx) {
    const v = ctx.view;
    const seats = owing(v);
    if (!seats.length || !v.prompt) return "";
    if (seats.length > 1) return t("pe.turn.all", { what: t(`pe.kind.${v.prompt.kind}`) });
    return t("pe.turn.one", { name: seatName(ctx.room, v, seats[0]), what: t(`pe.kind.${v.prompt.kind}`) });
  },

  revealText(ctx, moves) {
    const words = Object.entries(moves || {}).filter(([, m]) => m && m.move)
      .map(([s, m]) => `${ctx.name(Number(s))}: ${moveText(ctx, m)}`);
    return words.length ? t("pe.choices_revealed", { list: words.join(", ") }) : "";
  },

  /** Only a pass or a face-down bid is taken back: nothing once a card was shown (a Play, a
   * bid while the bids are open), a share taken, or the round ended. */
  mayTakeBack(previous, view) {
    const quiet = ["turn", "bid"];
    return previous.round === view.round && quiet.includes(previous.phase) && quiet.includes(view.phase) && !view.action &&
      !(view.effects || []).includes("open-bids");
  },

  /** The split (a Mutiny, each take of a divide, the leftovers): hold what happened on
   * screen -- who took what from which end, the bids to the start player, the leftovers
   * discarded -- for everyone at once. */
  hold(previous, view, event, name) {
    if (!previous || !previous.log) return null;
    const log = view.round === previous.round ? view.log : view.round === previous.round + 1 ? view.last_log : null;
    if (!log || log.length < previous.log.length) return null;
    const fresh = log.slice(previous.log.length).filter((e) => SPLIT.has(e.what));
    if (!fresh.some((e) => MOMENT.has(e.what))) return null;
    const mutiny = fresh.find((e) => e.what === "mutiny");
    const divide = fresh.find((e) => e.what === "divide");
    const size = previous.treasure.length;
    const bid = previous.bids.reduce((n, b) => n + b.size, 0);
    const head = mutiny ? t("pe.hold.mutiny", { total: mutiny.n ?? bid, count: size })
      : divide ? t("pe.hold.divide", { total: divide.n ?? bid, count: size })
        : t("pe.hold.split", { count: size });
    const lines = fresh.filter((e) => e.what !== "mutiny" && e.what !== "divide").map((e) => eventWords(e, name));
    const got = {};
    for (const e of fresh) {
      if (GETS.has(e.what) && e.seat !== null) got[e.seat] = (got[e.seat] || 0) + (e.n ?? 0);
    }
    return { ms: 3000, kind: "split", mutiny: Boolean(mutiny), head, lines, got, text: [head, ...lines].join(". ") };
  },

  // -- the deal check ------------------------------------------------------------------------
  dealSeen,
  verifyDeals: (args) => verifyDeals(args),
  checkedText: (n, spectator) => (spectator ? t("pe.checked_spectator", { count: n }) : t("pe.checked", { count: n })),
  badRoundsText: (rounds) => t("pe.bad_deal"),

  // -- the end -------------------------------------------------------------------------------
  scores: (view) => scoresOf(view),
  stoppedText: (view) => t("pe.stopped", { round: view.round }),
  scoreHistory: () => null,
  /** The game-over chart from the archive's replay (the view holds the scores now, not
   * each round's): every player's score after the last version of each round, the final
   * scores after the last. `fields`: what of each replayed view it reads. */
  replayScores: {
    fields: ["round", "scores", "outcome"],
    history(frames) {
      const after = new Map();
      for (const f of frames) {
        const v = f.view || {};
        if (typeof v.round !== "number" || !Array.isArray(v.scores)) continue;
        after.set(v.round, v.outcome && Array.isArray(v.outcome.scores) ? v.outcome.scores : v.scores);
      }
      if (!after.size) return null;
      const rounds = [...after.keys()].sort((a, b) => a - b);
      const players = after.get(rounds[rounds.length - 1]).length;
      return { rounds, totals: [...Array(players).keys()].map((s) => rounds.map((r) => after.get(r)[s] ?? 0)) };
    },
  },

  // -- the replay ----------------------------------------------------------------------------
  /** One replay step: every card where it lies (the final view's zones) drawn face up. */
  replayTable(ctx) {
    const v = ctx.view;
    if (!v.zones) return [statusLine(ctx), treasurePanel(ctx), seatsPanel(ctx), endPanel(ctx), logPanel(ctx)];
    const z = v.zones;
    const open = (key) => ({ size: (z[key] || []).length, known: z[key] || [] });
    const seats = Array.from({ length: v.players }, (_, s) => s);
    const shown = { ...ctx, view: { ...v, treasure: z.treasure || [], bids: seats.map((s) => open(`bid:${s}`)), received: seats.map((s) => open(`received:${s}`)) } };
    const hands = h("section", { class: "pe-zones", "aria-label": t("pe.zones_aria") }, seats.map((s) => h("div", { dataset: { seat: String(s) } },
      h("strong", {}, seatName(ctx.room, v, s)), " ", h("span", { class: "small" }, t("pe.hand_size", { count: (z[`hand:${s}`] || []).length })),
      h("div", { class: "pe-row" }, (z[`hand:${s}`] || []).map((c) => cardFace(c, { extra: "small" }))))));
    return [statusLine(shown), treasurePanel(shown, { open: true }), seatsPanel(shown), hands, endPanel(shown), logPanel(shown)];
  },

  describeStep(frame, name) {
    const moves = Object.entries(frame.moves || {});
    if (!moves.length) return frame.version === 1 ? t("pe.the_deal") : "";
    const ctx = { room: null, view: frame.view };
    return moves.map(([s, m]) => `${name(Number(s))}: ${moveText(ctx, m, name)}`).join("; ");
  },

  /** The first deal recomputed from the seed against the replayed hands: {rounds, bad}. */
  async checkReplayDeals(frames, seed) {
    const first = frames.find((f) => f.view && f.view.zones && f.view.round === 1);
    if (!first) return { rounds: 0, bad: [] };
    const v = first.view;
    const hands = {};
    for (let s = 0; s < v.players; s++) hands[s] = v.zones[`hand:${s}`];
    const what = { ...dealSeen({ ...v, phase: "arrange", round: 1 }), seat: null, hand: null, hands };
    const ok = await checkOne(seed, v.players, what);
    return { rounds: 1, bad: ok ? [] : [1] };
  },
};

export { eventText };
export default pearates;
