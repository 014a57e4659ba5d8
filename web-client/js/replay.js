// The replay of a finished game: every version as seen after the end (all hands shown),
// stepped with buttons, a slider or the arrow keys. The deals are recomputed in this browser
// from the revealed seed and compared with the hands of every round. This is the frame; the
// game's module (games/registry.js) draws each step and recomputes the deals.

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { gameModule } from "./games/registry.js";
import { fromHex, sha256, toHex } from "./sha256.js";

export class ReplayPage {
  constructor(el, gameId) {
    this.el = el;
    this.gameId = gameId;
    this.data = null;
    this.record = null;
    this.at = 0;
    this.timer = null;
    this.check = null;
    this.start();
  }

  async start() {
    document.title = `Replay ${this.gameId} — Tortuga`;
    replaceChildren(this.el, h("p", { class: "muted" }, "Loading the replay…"));
    try {
      [this.data, this.record] = await Promise.all([
        api.replay(this.gameId),
        api.game(this.gameId).catch(() => null),
      ]);
    } catch (err) {
      const why = err.status === 409 ? "The game is still being played: its replay opens when it ends."
        : err.status === 404 ? "This game is not in the archive (yet: finished games are archived within seconds)."
          : `Could not load the replay: ${err.message}`;
      replaceChildren(this.el, h("div", { class: "panel" }, h("h1", {}, "Replay"),
        h("p", { role: "alert" }, why), h("p", {}, h("a", { href: "/" }, "Back to the lobby"))));
      return;
    }
    const frames = this.data.frames || [];
    const first = frames.find((f) => f.view && f.view.game);
    const gameId = (this.record && this.record.game) || (first && first.view.game);
    this.game = gameId ? await gameModule(gameId) : null;
    if (!this.game) {
      replaceChildren(this.el, h("div", { class: "panel" }, h("h1", {}, "Replay"),
        h("p", { role: "alert" }, "This client cannot draw this game's table yet."),
        h("p", {}, h("a", { href: "/" }, "Back to the lobby"))));
      return;
    }
    this.at = frames.length ? frames.length - 1 : 0;
    const q = new URLSearchParams(location.search).get("v");
    if (q !== null) {
      const i = frames.findIndex((f) => String(f.version) === q);
      if (i >= 0) this.at = i;
    }
    document.addEventListener("keydown", (ev) => {
      if (ev.target.closest("input, select, textarea")) return;
      if (ev.key === "ArrowRight") this.go(this.at + 1);
      if (ev.key === "ArrowLeft") this.go(this.at - 1);
      if (ev.key === "Home") this.go(0);
      if (ev.key === "End") this.go(frames.length - 1);
    });
    this.render();
    this.checkDeals();
  }

  name(seat, view) {
    const named = this.game.seatName ? this.game.seatName(this.room, view, seat) : null;
    const s = this.room.seats[seat];
    return named || (s && s.name) || `Seat ${seat + 1}`;
  }

  get room() {
    const seats = (this.record && this.record.seats) || [];
    return { seats: seats.map((s) => ({ seat: s.seat, name: s.name, bot: s.bot })) };
  }

  /** Recompute every round's deal from the seed and compare it with the hands replayed. */
  async checkDeals() {
    const seedHex = (this.record && this.record.seed) || this.data.seed;
    const frames = this.data.frames || [];
    if (!seedHex || !frames.length) return;
    try {
      const seed = fromHex(seedHex);
      const digestOk = !this.record || !this.record.seed_digest || toHex(await sha256(seed)) === this.record.seed_digest;
      const { rounds, bad } = await this.game.checkReplayDeals(frames, seed);
      this.check = { ok: digestOk && rounds > 0 && !bad.length, digestOk, rounds, bad };
    } catch (err) {
      this.check = { ok: false, error: err.message, rounds: 0, bad: [] };
    }
    this.render();
  }

  go(i) {
    const n = (this.data.frames || []).length;
    const next = Math.max(0, Math.min(n - 1, i));
    if (next === this.at) return;
    this.at = next;
    this.render();
  }

  toggle() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else {
      this.timer = setInterval(() => {
        if (this.at >= this.data.frames.length - 1) this.toggle();
        else this.go(this.at + 1);
      }, 900);
    }
    this.render();
  }

  describeStep(frame) {
    const v = frame.view;
    const name = (s) => this.name(s, v);
    if (frame.takeback) {
      const who = (frame.seats || []).map(name).join(", ") || "A player";
      return `${who} took back their move (version ${frame.takeback})`;
    }
    return this.game.describeStep(frame, name);
  }

  render() {
    const frames = this.data.frames || [];
    if (!frames.length) {
      replaceChildren(this.el, h("p", {}, "This game has no recorded steps."));
      return;
    }
    const frame = frames[this.at];
    const v = frame.view;
    const room = this.room;
    const ctx = { view: v, room, seat: null, seal: null, connected: null, away: null, ui: {}, notes: [], controls: [],
      name: (s) => this.name(s, v), clock: null, ended: null, busy: true };
    const title = this.game.title(v.game);
    const slider = h("input", { type: "range", min: "0", max: String(frames.length - 1), value: String(this.at),
      "aria-label": "step", oninput: (ev) => this.go(Number(ev.target.value)) });
    const report = this.data.report || {};
    let deals;
    if (!this.check) deals = h("span", { class: "badge" }, "recomputing the deals…");
    else if (this.check.ok) deals = h("span", { class: "badge ok", dataset: { verified: "1" } }, `✓ all ${this.check.rounds} deals recomputed in your browser from the seed`);
    else deals = h("span", { class: "badge bad", dataset: { verified: "0" } }, this.check.error || (!this.check.digestOk ? "✗ the seed does not match its fingerprint" : `✗ deals that differ: round ${this.check.bad.join(", ")}`));
    replaceChildren(this.el,
      h("div", { class: "row" }, h("h1", {}, `Replay — ${title}, game ${this.gameId}`),
        h("span", { class: report.ok || this.data.verified ? "badge ok" : "badge bad" },
          this.data.verified ? "✓ server log verified" : `✗ ${report.message || "not verified"}`), deals),
      h("div", { class: "panel replay-controls", role: "group", "aria-label": "replay controls" },
        h("button", { type: "button", "aria-label": "first step", onclick: () => this.go(0) }, "|◀"),
        h("button", { type: "button", "aria-label": "previous step", onclick: () => this.go(this.at - 1) }, "◀"),
        h("button", { type: "button", "aria-label": this.timer ? "pause" : "play", onclick: () => this.toggle() }, this.timer ? "❚❚" : "▶"),
        h("button", { type: "button", "aria-label": "next step", onclick: () => this.go(this.at + 1) }, "▶▶"),
        h("button", { type: "button", "aria-label": "last step", onclick: () => this.go(frames.length - 1) }, "▶|"),
        slider,
        h("span", { class: "small", role: "status" }, `Step ${this.at + 1} of ${frames.length} (version ${frame.version})`)),
      this.record && this.record.status === "abandoned"
        ? h("p", { class: "note", dataset: { status: "abandoned" } },
          "This game was ended before the finish (abandoned): the replay stops where it was left; no winner, no rating.")
        : null,
      h("p", { class: "note", "aria-live": "polite" }, this.describeStep(frame) || "—"),
      h("section", { class: "table-area", "aria-label": "the table", dataset: { phase: v.phase } },
        this.game.replayTable(ctx)),
      this.game.sheet ? this.game.sheet(ctx) : null,
      this.record && this.record.seed ? h("p", { class: "small" }, "Seed: ", h("span", { class: "seed" }, this.record.seed)) : null,
      h("p", {}, h("a", { href: "/" }, "Back to the lobby")));
  }
}
