// The replay of a finished game: every version as seen after the end (all hands shown),
// stepped with buttons, a slider or the arrow keys. The deals are recomputed in this browser
// from the revealed seed and compared with the hands of every round. This is the frame; the
// game's module (games/registry.js) draws each step and recomputes the deals.

import { checkRecord, heads } from "./chain.js";
import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { gameModule } from "./games/registry.js";
import { errorText, formatDate, t } from "./i18n.js";
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
    document.title = `${t("replay.doc_title", { game: this.gameId })} — Tortuga`;
    replaceChildren(this.el, h("p", { class: "muted" }, t("replay.loading")));
    try {
      [this.data, this.record] = await Promise.all([
        api.replay(this.gameId),
        api.game(this.gameId).catch(() => null),
      ]);
    } catch (err) {
      const why = err.status === 409 ? t("replay.not_over")
        : err.status === 404 ? t("replay.not_archived")
          : t("replay.failed", { message: errorText(err) });
      replaceChildren(this.el, h("div", { class: "panel" }, h("h1", {}, t("replay.heading")),
        h("p", { role: "alert" }, why), h("p", {}, h("a", { href: "/" }, t("common.back_to_lobby")))));
      return;
    }
    const frames = this.data.frames || [];
    const first = frames.find((f) => f.view && f.view.game);
    const gameId = (this.record && this.record.game) || (first && first.view.game);
    this.game = gameId ? await gameModule(gameId) : null;
    if (!this.game) {
      replaceChildren(this.el, h("div", { class: "panel" }, h("h1", {}, t("replay.heading")),
        h("p", { role: "alert" }, t("replay.no_client")),
        h("p", {}, h("a", { href: "/" }, t("common.back_to_lobby")))));
      return;
    }
    // The archived record's move chain and signatures, and the heads this browser kept if it
    // played or watched the game (chain.js).
    this.chain = this.record ? await checkRecord(this.record, await heads.get(this.record.room)).catch(() => null) : null;
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
    return named || (s && s.name) || t("common.seat", { n: seat + 1 });
  }

  get room() {
    const seats = (this.record && this.record.seats) || [];
    return { seats: seats.map((s) => ({ seat: s.seat, name: s.name, bot: s.bot })) };
  }

  /** Recompute every round's deal from the seed and compare it with the hands replayed. */
  /** What the browser's own check of the move chain found (room/verify.js says the same). */
  chainBadge() {
    const c = this.chain;
    if (!c) return null;
    const bad = !c.ok;
    const text = c.differsAt !== null ? `✗ ${t("room.chain.differs", { version: c.differsAt })}`
      : !c.chained ? t("room.chain.unchained")
        : bad ? `✗ ${t("room.chain.broken", { version: c.version })}`
          : `✓ ${t("room.chain.signed", { signed: c.signed, made: c.made, unsigned: c.unsigned })}`;
    return h("span", { class: ["badge", bad ? "bad" : "ok", "chain-check"], dataset: { chain: bad ? "bad" : c.chained ? "ok" : "unchained" },
      title: c.problem || null }, text);
  }

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
      const who = (frame.seats || []).map(name).join(", ") || t("common.a_player");
      return t("replay.took_back", { who });
    }
    return this.game.describeStep(frame, name);
  }

  /** That operators looked at the game's hidden cards while it was played (the record's
   * ``inspected``: how often, the last time), or null. */
  inspectedNote() {
    const looked = this.record && this.record.inspected;
    if (!looked || !(looked.count > 0)) return null;
    const last = Array.isArray(looked.at) && looked.at.length ? looked.at[looked.at.length - 1] : null;
    return h("p", { class: "note inspected-notice", dataset: { inspected: String(looked.count) } },
      t("room.inspected_kept", { count: looked.count, at: last ? formatDate(last) : "" }));
  }

  render() {
    const frames = this.data.frames || [];
    if (!frames.length) {
      replaceChildren(this.el, h("p", {}, t("replay.no_steps")));
      return;
    }
    const frame = frames[this.at];
    const v = frame.view;
    const room = this.room;
    const ctx = { view: v, room, seat: null, seal: null, connected: null, away: null, ui: this.ui || (this.ui = {}), notes: [], controls: [],
      name: (s) => this.name(s, v), clock: null, ended: null, busy: true };
    const title = this.game.title(v.game);
    const slider = h("input", { type: "range", min: "0", max: String(frames.length - 1), value: String(this.at),
      "aria-label": t("replay.step_label"), oninput: (ev) => this.go(Number(ev.target.value)) });
    const report = this.data.report || {};
    let deals;
    if (!this.check) deals = h("span", { class: "badge" }, t("replay.recomputing"));
    else if (this.check.ok) deals = h("span", { class: "badge ok", dataset: { verified: "1" } }, `✓ ${t("replay.deals_ok", { count: this.check.rounds })}`);
    else deals = h("span", { class: "badge bad", dataset: { verified: "0" } }, this.check.error || (!this.check.digestOk ? `✗ ${t("replay.seed_mismatch")}` : `✗ ${t("replay.deals_differ", { rounds: this.check.bad.join(", ") })}`));
    replaceChildren(this.el,
      h("div", { class: "row" }, h("h1", {}, t("replay.title", { title, game: this.gameId })),
        // What differs is the server's report in its own words: a tooltip, not the badge.
        h("span", { class: report.ok || this.data.verified ? "badge ok" : "badge bad", title: this.data.verified ? null : report.message || null },
          this.data.verified ? `✓ ${t("replay.log_verified")}` : `✗ ${t("replay.not_verified")}`), deals,
        this.chainBadge()),
      h("div", { class: "panel replay-controls", role: "group", "aria-label": t("replay.controls") },
        h("button", { type: "button", "aria-label": t("replay.first"), onclick: () => this.go(0) }, "|◀"),
        h("button", { type: "button", "aria-label": t("replay.previous"), onclick: () => this.go(this.at - 1) }, "◀"),
        h("button", { type: "button", "aria-label": this.timer ? t("replay.pause") : t("replay.play"), onclick: () => this.toggle() }, this.timer ? "❚❚" : "▶"),
        h("button", { type: "button", "aria-label": t("replay.next"), onclick: () => this.go(this.at + 1) }, "▶▶"),
        h("button", { type: "button", "aria-label": t("replay.last"), onclick: () => this.go(frames.length - 1) }, "▶|"),
        slider,
        h("span", { class: "small", role: "status" }, t("replay.position", { step: this.at + 1, steps: frames.length }))),
      this.record && this.record.status === "abandoned"
        ? h("p", { class: "note", dataset: { status: "abandoned" } },
          t("replay.abandoned"))
        : null,
      this.inspectedNote(),
      h("p", { class: "note", "aria-live": "polite" }, this.describeStep(frame) || "—"),
      h("section", { class: "table-area", "aria-label": t("common.the_table"), dataset: { phase: v.phase } },
        this.game.replayTable(ctx)),
      this.game.sheet ? this.game.sheet(ctx) : null,
      this.record && this.record.seed ? h("p", { class: "small" }, t("replay.seed"), " ", h("span", { class: "seed" }, this.record.seed)) : null,
      h("p", {}, h("a", { href: "/" }, t("common.back_to_lobby"))));
  }
}
