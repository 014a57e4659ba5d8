// After every new view: the deals this browser saw, "my rooms", the page title, and when my
// move begins a notification, a sound and the part of the table it needs scrolled into view.
// Methods of RoomPage (page.js mixes them in).

import { groupCode } from "../codes.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import * as sounds from "../sounds.js";
import { myRooms, notifyPref, seenDeals } from "../store.js";

const BASE_TITLE = "Tortuga";

export const myTurn = {
  afterView() {
    const v = this.view;
    if (!v || !this.room || !this.game) return;
    const dealt = this.game.dealSeen ? this.game.dealSeen(v) : null;
    if (dealt) {
      seenDeals.record(this.code, {
        game: v.game, players: v.players, seat: v.seat, round: dealt.round,
        seen: dealt, seedDigest: this.room.seed_digest,
      });
    }
    if (this.ended) {
      // Off "my rooms" (the server drops it too); the seed is out: check the deals so far.
      myRooms.remove(this.code);
      this.wasMyMove = false;
      document.title = `${t("room.doc_ended", { title: this.roomTitle(), code: groupCode(this.code) })} — ${BASE_TITLE}`;
      this.runVerify();
      this.checkArchive();
      this.runChainCheck();
      return;
    }
    const myMove = this.isMyMove();
    if (this.seat !== null && this.me) {
      const turn = v.phase === "over" ? "finished" : myMove ? "your move" : this.turnText();
      myRooms.put(this.code, {
        game: v.game, title: this.room.title || this.game.title(v.game), seat: this.seat,
        status: v.phase === "over" ? "finished" : "playing", yourMove: myMove, turn,
        round: v.round, rounds: v.rounds, version: this.version, latest: this.version,
      });
    }
    if (myMove && !this.wasMyMove) {
      this.notify();
      sounds.play("turn");
      this.bringTurnIntoView();
    }
    this.wasMyMove = myMove;
    document.title = myMove ? `▶ ${t("room.doc_your_move")} — ${BASE_TITLE}` : `${this.roomTitle()} ${groupCode(this.code)} — ${BASE_TITLE}`;
    if (v.phase === "over") {
      this.runVerify();
      this.checkArchive();
      this.runChainCheck();
    }
  },

  /** My move began: once drawn, scroll what the module marked (data-turn-target: the bid
   * box, the hand) into view if it is off screen -- on a phone it is below the fold. */
  bringTurnIntoView() {
    // Measured once the page is styled: a game's own sheet (table.css) may still be loading
    // at its first drawing, when everything lies lower than it will.
    const loading = [...document.querySelectorAll("link[rel='stylesheet']")].filter((l) => !l.sheet)
      .map((l) => new Promise((done) => { l.addEventListener("load", done, { once: true }); l.addEventListener("error", done, { once: true }); }));
    Promise.all(loading).then(() => requestAnimationFrame(() => {
      const el = this.el.querySelector("[data-turn-target]");
      if (!el) return;
      const r = el.getBoundingClientRect();
      if (r.top >= 0 && r.bottom <= window.innerHeight) return;
      const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
      el.scrollIntoView({ block: "nearest", behavior: still ? "auto" : "smooth" });
    }));
  },

  /** Whether the prompt waits for my seat (in a sealed phase: until I committed). */
  isMyMove() {
    const v = this.view;
    if (!v || this.seat === null || this.ended || !v.prompt) return false;
    if (!(v.prompt.seats || []).includes(this.seat)) return false;
    if (v.prompt.sealed) return !!(this.mySealSeat() && !this.seal.committed[this.seat]);
    return true;
  },

  turnText() {
    return this.view && this.game ? this.game.turnText(this.ctx()) : "";
  },

  notify() {
    if (!notifyPref.get() || !("Notification" in window) || Notification.permission !== "granted") return;
    if (!document.hidden) return;
    try {
      const n = new Notification(t("room.notify_title"), {
        body: `${this.roomTitle()} ${groupCode(this.code)}`, tag: `tortuga-${this.code}`,
      });
      n.onclick = () => { window.focus(); n.close(); };
    } catch {
      /* some browsers only notify from a service worker */
    }
  },

  notifyControl() {
    if (!("Notification" in window)) return null;
    const on = notifyPref.get() && Notification.permission === "granted";
    return h("label", { class: "check small" },
      h("input", { type: "checkbox", checked: on, dataset: { key: "notify" }, onchange: async (ev) => {
        if (ev.target.checked) {
          const p = await Notification.requestPermission();
          notifyPref.set(p === "granted");
        } else notifyPref.set(false);
        this.render();
      } }),
      t("room.notify_me"));
  },
};
