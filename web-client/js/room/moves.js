// Open moves: sending one of view.legal (chosen by the game module, by click or key) and
// taking my own last move back when the room allows it. Methods of RoomPage (page.js mixes
// them in).

import { commitment } from "../chain.js";
import { h } from "../dom.js";
import * as sealing from "../seal.js";
import { t } from "../i18n.js";

export const openMoves = {
  /** Send an open move (one of view.legal, chosen by the game module). */
  act(move) {
    if (this.sending || this.ended) return;
    this.sending = true;
    this.sendAct(move);
    this.render();
  },

  /** The move with its version and, signed by this device, its commitment's salt. */
  async sendAct(move) {
    const version = this.version;
    if (!this.conn.kid || this.seat === null) {
      this.conn.send({ type: "act", move, version });
      return;
    }
    const salt = sealing.newSalt();
    const c = await commitment(`act@${version}`, this.seat, move, salt);
    this.conn.sendSigned({ type: "act", move, version, salt }, { kind: "act", version, seat: this.seat, c });
  },

  onKey(ev) {
    if (!this.view || !this.game || this.ended || ev.target.closest("input, textarea, select")) return;
    if (!this.game.key) return;
    // A key pressed during a held moment is meant for the table as it is now: the frames that
    // waited are drawn first (holding none), as for a click on a control (held.js). Keys that
    // type no character (Tab, arrows, modifiers) leave the moment alone.
    if (this.held && ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey) this.endHold({ all: true });
    if (this.game.key(ev, this.ctx())) this.render();
  },

  /** Whether the event is my own open move that the room may let me take back (the server
   * decides: the button goes once the version moves on, and a refusal explains why). */
  mayTakeBack(ev, previous) {
    if (!this.room || !this.room.takeback || this.seat === null || ev.kind !== "move") return false;
    if (!(ev.seats || []).length || ev.seats.some((s) => s !== this.seat)) return false;
    if ((ev.defaults || []).length || (ev.proxies || []).length) return false;
    if (!ev.moves || !(String(this.seat) in ev.moves)) return false;
    // A move that revealed something stands (the module knows what its game reveals).
    return !!(this.game && this.game.mayTakeBack && this.game.mayTakeBack(previous, this.view));
  },

  takeBack() {
    if (this.takeback === null || this.sending) return;
    this.sending = true;
    this.conn.send({ type: "takeback", version: this.takeback });
    this.render();
  },

  takeBackRow() {
    if (this.takeback === null || this.takeback !== this.version || this.ended) return null;
    return h("div", { class: "row takeback" },
      h("button", { type: "button", class: "secondary", dataset: { key: "takeback" }, disabled: this.sending,
        onclick: () => this.takeBack() }, `↶ ${t("room.take_back")}`),
      h("span", { class: "small hint" }, t("room.take_back_hint")));
  },
};
