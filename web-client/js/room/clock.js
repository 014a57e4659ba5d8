// The clock: the deadline the table waits for (a move, a commit, a reveal), shown every
// second; an operator's pause stops it. Methods of RoomPage (page.js mixes them in).

import { h } from "../dom.js";
import { t } from "../i18n.js";

export const clock = {
  /** The due time (epoch ms) of what the table waits for now, or null (no deadline). */
  deadline() {
    const v = this.view;
    if (!v || v.phase === "over" || this.ended) return null;
    let value = this.moveDeadline;
    if (v.prompt && v.prompt.sealed && this.seal) value = this.seal.open ? this.seal.open_by : this.seal.commit_by;
    if (value === undefined || value === null) return null;
    const t = typeof value === "number" ? (value < 1e12 ? value * 1000 : value) : Date.parse(value);
    return Number.isFinite(t) ? t : null;
  },

  /** What the clock says: "time left 0:42", or that an operator paused it. */
  clockText() {
    if (this.paused) return { text: t("room.clock_paused"), low: false };
    const due = this.deadline();
    if (!due) return null;
    const left = Math.max(0, Math.round((due - Date.now()) / 1000));
    const m = Math.floor(left / 60), s = left % 60;
    const time = m >= 60 ? `${Math.floor(m / 60)}h ${m % 60}m` : `${m}:${String(s).padStart(2, "0")}`;
    return { text: t("room.time_left", { time }), low: left <= 10 };
  },

  tick() {
    const el = this.el.querySelector(".clock");
    const c = this.clockText();
    if (el && c) {
      el.textContent = c.text;
      el.classList.toggle("low", c.low);
    }
  },
};
