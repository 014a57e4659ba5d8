// Held moments: a game module's `hold` keeps what just happened (a finished trick) on screen
// while later frames wait in order; a click anywhere goes on. Methods of RoomPage (page.js
// mixes them in).

import { announce } from "../dom.js";
import * as sounds from "../sounds.js";

// Messages that wait while the table holds a moment (a finished trick) on screen, in order.
export const HELD_TYPES = new Set(["event", "sealed", "committed", "open", "revealed", "resumed"]);

/** How long a held moment stays (the module's wish; a test may set tortuga.holdMs). */
function holdMs(wish) {
  const set = Number(localStorage.getItem("tortuga.holdMs"));
  return Number.isFinite(set) && set > 0 ? set : wish;
}

export const heldMoments = {
  /** Keep what just happened (a finished trick) on screen; later frames wait in order. */
  startHold(hold) {
    clearTimeout(this.holdTimer);
    this.held = { ...hold, at: Date.now() };
    if (hold.text) announce(hold.text);
    if (hold.sound) sounds.play(hold.sound);
    this.holdTimer = setTimeout(() => this.endHold(), holdMs(hold.ms || 1500));
  },

  /** Go on: draw the frames that waited (until one of them holds again). */
  endHold() {
    clearTimeout(this.holdTimer);
    this.held = null;
    while (this.queue.length && !this.held) this.onMessage(this.queue.shift());
    this.render();
  },

  dropHold() {
    clearTimeout(this.holdTimer);
    this.held = null;
    this.queue = [];
  },
};
