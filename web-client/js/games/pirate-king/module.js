// The client module of Pirate King!: the table drawn from a seat's view
// (engines/pirate_king/views.py), every prompt kind as buttons turned into moves of
// view.legal (prompts.js), the "1, 2, 3!" of each beat held on screen for everyone at once,
// and the deal check from the engine's named Rng streams (deal.js). Contract: docs/CLIENT.md.

import { cardTitle } from "./cards.js";
import { checkSeen, dealFromSeed, dealSeen, verifyDeals } from "./deal.js";
import { moveText, promptBox, sealPending, send } from "./prompts.js";
import { crownsOf, endPanel, myPile, owing, rowsPanel, seatName, statusLine, zonesPanel } from "./table.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

// The module's own styles, next to it (no build step; the shell's app.css stays general).
if (typeof document !== "undefined" && !document.querySelector("link[data-pk-css]")) {
  document.head.append(h("link", { rel: "stylesheet", href: new URL("./table.css", import.meta.url).href, dataset: { pkCss: "1" } }));
}

/** What the beat just revealed: the zone length each seat had before ({seat: n}), and in words. */
function beatNews(previous, view, name) {
  const fresh = {};
  const said = [];
  for (const s of view.table) {
    const before = previous && previous.round === view.round ? previous.table[s.seat] : null;
    const n = before ? before.zone.length : 0;
    fresh[s.seat] = Math.min(n, s.zone.length);
    if (s.status === "sunk" && (!before || before.status !== "sunk")) said.push(t("pk.news.sinks", { name: name(s.seat) }));
    else if (s.zone.length > n) said.push(t("pk.news.reveals", { name: name(s.seat), cards: s.zone.slice(n).map((e) => cardTitle(e.card)).join(", ") }));
    else if (s.status === "stopped" && before && before.status === "revealing") said.push(t("pk.news.stops", { name: name(s.seat) }));
  }
  return { fresh, text: said.join("; ") };
}

/** The cards given away that went back to their givers when the round ended (edition 2). */
function givenBack(previous, view, name) {
  if (!(view.rules > 1)) return [];
  return previous.table.flatMap((s) => s.zone.filter((e) => e.given_by !== null && e.given_by !== undefined)
    .map((e) => t("pk.news.given_back", { card: cardTitle(e.card), name: name(e.given_by) })));
}

const pirateKing = {
  ids: ["pirate-king"],
  title: () => t("games.pirate-king.title"),
  players: () => [2, 5],
  seatName,

  table(ctx) {
    const v = ctx.view;
    // On a phone the prompt comes right under the status line (table.css orders it), so
    // what I may do is seen without scrolling; on a wide screen it stays under the zones.
    const parts = [statusLine(ctx), rowsPanel(ctx), zonesPanel(ctx), endPanel(ctx), ...ctx.notes];
    if (ctx.seat === null) {
      parts.push(h("p", { class: "small", dataset: { role: "spectator-note" } }, t("pk.watching")));
    } else {
      parts.push(myPile(ctx));
      if (v.phase !== "over") parts.push(promptBox(ctx));
      parts.push(...ctx.controls);
    }
    return [h("div", { class: "pk-table" }, parts)];
  },

  viewChanged(ctx) {
    ctx.ui.pk = null;
  },

  turnText(ctx) {
    const v = ctx.view;
    const seats = owing(v);
    if (!seats.length || !v.prompt) return "";
    if (v.prompt.kind === "reveal" && seats.length > 1) return t("pk.turn.beat");
    return t("pk.turn.one", { name: seatName(ctx.room, v, seats[0]), what: t(`pk.kind.${v.prompt.kind}`) });
  },

  revealText(ctx, moves) {
    const words = Object.entries(moves || {}).filter(([, m]) => m && "do" in m)
      .map(([s, m]) => `${ctx.name(Number(s))}: ${moveText(ctx, m)}`);
    return words.length ? t("pk.choices_revealed", { list: words.join(", ") }) : "";
  },

  /** My open move may be taken back when it brought nothing into view: no card left a pile
   * (a reveal, a Choose, Red's Loot), I looked at nothing new, no new round was dealt -- a
   * Pirate picked before the last, a Monster or Loot taken mid-step, a tie ordered, a Flip,
   * a Give, cards put back after a Look. (The server judges it again: `takeback-reveals`.) */
  mayTakeBack(previous, view) {
    if (!previous || !view || previous.round !== view.round || view.phase === "over") return false;
    const sorted = (cards) => JSON.stringify([...(cards || [])].sort());
    return view.loot_pile === previous.loot_pile && sorted(view.known) === sorted(previous.known) &&
      view.table.every((s, i) => s.pile === previous.table[i].pile);
  },

  /** R reveals, S stops (when that is my move now). */
  key(ev, ctx) {
    const v = ctx.view;
    if (ctx.seat === null || v.decision || !v.prompt || v.prompt.kind !== "reveal") return false;
    const word = { r: "reveal", s: "stop" }[ev.key.toLowerCase()];
    if (!word || !(v.legal || []).some((m) => m.do === word)) return false;
    if (sealPending(ctx) || (ctx.seal && ctx.seal.committed[ctx.seat])) return false;
    send(ctx, { do: word });
    return true;
  },

  /** A beat was played ("1, 2, 3!"): hold the new cards on screen, for everyone at once. */
  hold(previous, view, event, name) {
    if (!previous || view.phase === "pick") return null;
    const newRound = view.round !== previous.round && view.phase === "play";
    const newBeat = view.round === previous.round && view.beat > previous.beat;
    if (!newRound && !newBeat) return null;
    const news = beatNews(newRound ? null : previous, view, name);
    const back = newRound ? givenBack(previous, view, name) : [];
    // A sealed beat's reveal already sounds (the shell); a round's first beat and a lone
    // player's open beat sound here.
    const sealed = !newRound && previous.prompt && previous.prompt.sealed;
    const text = [...back, `${t("pk.one_two_three")} ${news.text}`].join(". ");
    return { ms: 1400, kind: "beat", fresh: news.fresh, text, sound: sealed ? null : "reveal" };
  },

  // -- the deal check ------------------------------------------------------------------------
  dealSeen,
  verifyDeals: (args) => verifyDeals(args),
  checkedText: (n) => t("pk.checked", { count: n }),
  badRoundsText: (rounds) => t("pk.bad_rounds", { count: rounds.length, rounds: rounds.map((r) => (r === 0 ? t("pk.the_start") : r)).join(", ") }),

  // -- the end -------------------------------------------------------------------------------
  scores: (view) => crownsOf(view),
  stoppedText: (view) => (view.round ? t("pk.stopped", { round: view.round, rounds: view.rounds }) : t("pk.picking")),
  /** Each seat's crowns at the end of every round played (views.py `tallies`). */
  scoreHistory(view) {
    const rows = view.tallies || [];
    if (!rows.length) return null;
    return { rounds: rows.map((_, i) => i + 1), totals: [...Array(view.players).keys()].map((s) => rows.map((r) => r[s])) };
  },
  scoreText: (n) => t("pk.crowns_total", { count: n }),

  // -- the replay ----------------------------------------------------------------------------
  replayTable(ctx) {
    const v = ctx.view;
    const piles = v.piles ? h("section", { class: "pk-piles", "aria-label": t("pk.piles_aria") },
      h("h2", {}, t("pk.piles")),
      v.piles.map((pile, s) => h("p", { class: "small", dataset: { seat: String(s) } },
        h("strong", {}, seatName(ctx.room, v, s)), ": ", pile.length ? pile.map(cardTitle).join(", ") : "—"))) : null;
    return [statusLine(ctx), rowsPanel(ctx), zonesPanel(ctx), endPanel(ctx), piles];
  },

  describeStep(frame, name) {
    const moves = Object.entries(frame.moves || {});
    if (!moves.length) return frame.version === 1 ? t("pk.the_start") : "";
    const ctx = { room: null, view: frame.view };
    return moves.map(([s, m]) => `${name(Number(s))}: ${moveText(ctx, m, name)}`).join("; ");
  },

  /** Each round's rows (and the first Captain) recomputed from the seed: {rounds, bad}. */
  async checkReplayDeals(frames, seed) {
    const seen = {};
    for (const f of frames) {
      const v = f.view;
      if (!v) continue;
      const d = dealSeen(v);
      if (d) seen[d.round] = { ...d, ...(seen[d.round] || {}) };  // the first value of each key
    }
    const first = frames.find((f) => f.view);
    if (!first) return { rounds: 0, bad: [] };
    const rounds = await checkSeen(await dealFromSeed(seed, first.view.players), seen);
    return { rounds: rounds.length, bad: rounds.filter((r) => !r.ok).map((r) => r.round) };
  },
};

export default pirateKing;
