// The end of a game, and the host's ways out of a wait: "Let a bot play for …" on a seat a
// slow game waits for, the "End game" button, the abandoned table's scores so far, the
// final ranking with its score chart, and "Play again" (a new room with the same seats and
// bots; the others are invited in the chat, and by a push to their devices: the server knows
// the new room follows this one). Methods of RoomPage (page.js mixes them in).

import { api } from "../api.js";
import { scoreChart } from "../chart.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { rating, ratingChange, ratingRules, unratedText } from "../history_pages.js";
import { NAME, nameNode, placeName } from "../names.js";

export const gameEnd = {
  /** The host's "End game" button while the game is played, with a confirm step. */
  endControl() {
    const r = this.room;
    if (!r || r.status !== "playing" || !this.me || r.host !== this.me.id || !this.view || this.view.phase === "over") return null;
    if (!this.confirmEnd) {
      return h("div", { class: "row host-controls" },
        h("button", { type: "button", class: "danger", dataset: { key: "end-game" },
          onclick: () => {
            this.confirmEnd = true;
            this.render();
            const keep = this.el.querySelector("[data-key='end-keep']");
            if (keep) keep.focus();
          } }, t("room.end_game")));
    }
    return h("div", { class: "prompt-box end-confirm", role: "alertdialog", "aria-label": t("room.end_aria"),
      "aria-describedby": "end-confirm-text" },
      h("h2", {}, t("room.end_confirm")),
      h("p", { id: "end-confirm-text" }, t("room.end_confirm_text")),
      h("div", { class: "row" },
        h("button", { type: "button", class: "danger", dataset: { key: "end-yes" }, disabled: this.ending,
          onclick: () => {
            if (this.ending) return;
            this.ending = true;
            this.conn.send({ type: "abandon" });
            this.render();
          } }, this.ending ? t("room.ending") : t("room.end_yes")),
        h("button", { type: "button", class: "secondary", dataset: { key: "end-keep" },
          onclick: () => { this.confirmEnd = false; this.render(); } }, t("room.keep_playing"))));
  },

  /** The host's way out of a slow game's wait: for each seat the table waits for (held), a
   * button that lets the room's stand-in play it until its player is back, as the grace time
   * does in a room with deadlines. Without it only "End game" ends the wait. */
  standInControl() {
    const r = this.room;
    if (!r || r.status !== "playing" || !this.me || r.host !== this.me.id || this.ended) return null;
    if (!this.waiting || !this.waiting.size || !this.view || this.view.phase === "over") return null;
    const words = r.absent === "default" ? "room.stand_in_default" : "room.stand_in";
    return h("div", { class: "row host-controls stand-in" },
      [...this.waiting].sort((a, b) => a - b).map((seat) =>
        h("button", { type: "button", class: "secondary", dataset: { key: "stand-in", seat: String(seat) },
          onclick: () => this.conn.send({ type: "stand_in", seat }) },
          t(words, { name: this.name(seat) }))));
  },

  /** The game ended unfinished: why, the scores so far, the seed and its check, the replay. */
  abandonedPanel() {
    const v = this.view;
    const scores = this.game.scores(v);
    const order = [...Array(v.players).keys()].sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
    const gameId = this.room.game_id;
    const where = this.game.stoppedText ? this.game.stoppedText(v) : "";
    let replay = null;
    if (gameId && this.archived === true) replay = h("a", { href: `/replay/${encodeURIComponent(gameId)}` }, t("room.watch_replay"));
    else if (gameId && this.archived === "checking") replay = h("span", { class: "small muted" }, t("room.looking_replay"));
    return h("section", { class: "panel gameover abandoned", "aria-label": t("room.ended_aria"), dataset: { reason: this.endReason || "" } },
      h("h2", { role: "status" }, this.endedText()),
      h("p", { class: "small" }, where ? t("room.stopped_where", { where }) : t("room.stopped")),
      h("h3", {}, t("room.scores_so_far")),
      h("ol", { class: "final so-far" }, order.map((s) => h("li", { dataset: { seat: String(s) } },
        h("strong", {}, this.nameNode(s)), ` — ${this.scoreText(scores[s] ?? 0)}`, s === this.seat ? ` — ${t("common.you")}` : ""))),
      this.ratingLine(),
      h("p", {}, this.verifyBadge()),
      this.seedLines(),
      h("p", {}, replay, replay ? " · " : null, h("a", { href: "/" }, t("common.back_to_lobby"))));
  },

  /** Whether the game counts for the ratings -- for me: my rating's change, or that I am
   * new here -- or why it does not, with the rules (the archive's record says). */
  ratingLine() {
    const rec = this.record;
    if (!rec) {
      return this.archived === "checking" ? h("p", { class: "small muted rating-line" }, t("ratings.waiting")) : null;
    }
    const mine = this.seat !== null ? (rec.seats || []).find((s) => s.seat === this.seat) : null;
    let text;
    if (rec.unrated) text = unratedText(rec.unrated);  // a ladder game is rated, not for people
    else if (rec.rated && mine && mine.new) text = t("ratings.new_you");
    else if (rec.rated && mine && typeof mine.rating_after === "number") {
      text = t("ratings.rated_you", { change: ratingChange(mine.rating_before, mine.rating_after), rating: rating(mine.rating_after) });
    } else if (rec.rated) text = t("ratings.rated");
    else return null;
    const rules = rec.unrated || (mine && mine.new) ? ratingRules(rec.rating_rules) : [];
    return h("div", { class: "rating-line", dataset: { rated: rec.rated ? "1" : "0", unrated: rec.unrated || null } },
      h("p", {}, text),
      rules.length ? h("ul", { class: "small muted" }, rules.map((line) => h("li", {}, line))) : null);
  },

  /** A final score in words: the game's own unit (scoreText), else points. */
  scoreText(n) {
    return this.game && this.game.scoreText ? this.game.scoreText(n) : t("room.points", { count: n });
  },

  gameOver() {
    const v = this.view;
    const out = v.outcome || { scores: v.scores, ranks: [] };
    const order = [...Array(v.players).keys()].sort((a, b) => (out.ranks[a] ?? 0) - (out.ranks[b] ?? 0));
    const gameId = this.room.game_id;  // the archive id of this room's game, from the server
    return h("section", { class: "panel gameover", "aria-label": t("room.final_aria") },
      h("h2", {}, t("room.final_title")),
      h("ol", { class: "final" }, order.map((s) => h("li", { dataset: { seat: String(s), rank: String(out.ranks[s] ?? "") } },
        h("strong", {}, this.nameNode(s)), ` — ${this.scoreText(out.scores[s])}`,
        out.ranks[s] === 1 ? ` ★ ${t("room.winner")}` : "", ` (${t("room.rank", { rank: out.ranks[s] ?? "?" })})`, s === this.seat ? ` — ${t("common.you")}` : ""))),
      this.againControl(),
      this.ratingLine(),
      this.chartPanel(),
      h("p", {}, this.verifyBadge()),
      this.checkControl(),
      this.seedLines(),
      // The replay opens at its first step (the deal), not at the end just seen.
      h("p", {}, gameId ? h("a", { href: `/replay/${encodeURIComponent(gameId)}?v=1`, dataset: { key: "replay" } }, t("room.watch_replay")) : null,
        gameId ? " · " : null, h("a", { href: "/" }, t("common.back_to_lobby"))));
  },

  /** A game whose view holds no score history (Pearates) draws its chart from the archive's
   * replay once the archive has the game (the module's `replayScores`: the fields it reads
   * of each view, and the history from them). */
  async loadRoundHistory(gameId) {
    const hook = this.game && this.game.replayScores;
    if (!hook || this.roundHistory !== null) return;
    this.roundHistory = false;
    try {
      const data = await api.replay(gameId, hook.fields, { wait: 6 });
      this.roundHistory = hook.history(data.frames || []) || false;
    } catch {
      this.roundHistory = false;  // no chart: the rest of the panel stands
    }
    this.render();
  },

  /** Each player's cumulative score after every round, as SVG (chart.js), with a legend. */
  chartPanel() {
    const history = (this.game.scoreHistory ? this.game.scoreHistory(this.view) : null) || this.roundHistory || null;
    if (!history) return null;
    const chart = scoreChart({ rounds: history.rounds,
      series: history.totals.map((values, s) => ({ name: this.name(s), values })) }, { title: t("room.over.chart") });
    if (!chart) return null;
    const legend = h("ul", { class: "chart-legend" }, chart.legend.map((item, s) => {
      const mark = h("span", { class: "mark", "aria-hidden": "true" }, item.symbol);
      mark.style.color = item.colour;  // the shape says it too
      return h("li", { dataset: { seat: String(s) } }, mark, " ", this.nameNode(s), ` ${item.last}`);
    }));
    return h("figure", { class: "chart" }, chart.svg, h("figcaption", {}, t("room.over.chart"), legend));
  },

  /** "Play again" for a player of this table; for everyone, the way into the next game when
   * a player of this table opened one (their invitation in the chat). */
  againControl() {
    const parts = [];
    const invite = this.nextInvite();
    if (invite) {
      const text = t("room.again.join", { name: NAME });
      parts.push(h("a", { class: "button", href: invite.href, dataset: { key: "join-next" } },
        placeName(text, nameNode(invite.name, null))));
    }
    if (this.seat !== null && !(invite && invite.mine)) {
      parts.push(h("button", { type: "button", dataset: { key: "again" }, disabled: !!this.again,
        onclick: () => this.playAgain() }, this.again ? t("room.again.busy") : t("room.again.button")),
      h("span", { class: "small muted" }, t("room.again.hint")));
    }
    return parts.length ? h("div", { class: "row again" }, parts) : null;
  },

  /** The newest invitation to a next game in the chat, from a player of this table. */
  nextInvite() {
    const players = new Set((this.room.seats || []).map((s) => s.user).filter(Boolean));
    const re = new RegExp(`${location.origin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/r/([A-Za-z0-9_-]+)`);
    for (let i = this.chat.length - 1; i >= 0; i--) {
      const m = this.chat[i];
      const found = players.has(m.user) && m.text.match(re);
      if (found && found[1] !== this.code) {
        return { href: `/r/${found[1]}`, name: m.name, mine: !!(this.me && m.user === this.me.id) };
      }
    }
    return null;
  },

  /** A new room like this one: I sit where I sat, the bots sit where they sat (at their
   * levels); the others are invited by a link in this room's chat. */
  async playAgain() {
    if (this.again || this.seat === null) return;
    this.again = true;
    this.render();
    const r = this.room;
    try {
      const made = await api.createRoom({
        game: r.game, options: r.options || {}, seats: r.players, public: !!r.public,
        spectators: r.spectators !== false, deadlines: r.deadlines || {}, takeback: !!r.takeback,
        absent: r.absent || "bot", again: r.id,  // its players are invited (a push to their devices)
      });
      const code = made.id || (made.room && made.room.id) || made.code;
      const bots = (r.seats || []).filter((s) => s.bot).map((s) => ({ seat: s.seat, level: s.bot }));
      sessionStorage.setItem(`tortuga.created.${code}`, JSON.stringify({ seat: this.seat, bots }));
      const text = `⚓ ${t("room.again.chat")} ${location.origin}/r/${code}`;
      this.conn.send({ type: "chat", text });
      // Leave once the invitation is out (its echo), or after a moment.
      await new Promise((resolve) => {
        const until = Date.now() + 2000;
        const look = () => (this.chat.some((m) => m.text === text) || Date.now() > until ? resolve() : setTimeout(look, 50));
        look();
      });
      location.assign(`/r/${code}`);
    } catch (err) {
      this.again = false;
      this.flash(t("room.again.failed", { message: err.message }));
    }
  },
};
