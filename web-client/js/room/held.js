// Held moments: a game module's `hold` keeps what just happened (a finished trick, the bids
// revealed) on screen while later frames wait in order; a click anywhere goes on, a click on
// a control does what it says, and a key the game reads acts on the table as it is now
// (RoomPage.onKey, moves.js). How long a moment lasts is the player's choice (store.js
// `holdSpeed`). Methods of RoomPage (page.js mixes them in).

import { announce } from "../dom.js";
import { t } from "../i18n.js";
import * as sounds from "../sounds.js";
import { holdSpeed } from "../store.js";

// Messages that wait while the table holds a moment (a finished trick) on screen, in order.
export const HELD_TYPES = new Set(["event", "sealed", "committed", "open", "revealed", "resumed"]);

// What a click may land on that does something of its own.
const CONTROL = "button, a[href], input, select, textarea, summary, label, [role='button']";

/** How long a held moment stays: the module's wish scaled by the player's choice (0: not
 * held at all); a test may set tortuga.holdMs, which wins. */
export function holdMs(wish) {
  const set = Number(localStorage.getItem("tortuga.holdMs"));
  if (Number.isFinite(set) && set > 0) return set;
  return Math.round(wish * holdSpeed.factor());
}

/** What finds a control again once the page is redrawn: its data-key (its own, or a keyed
 * control inside it, as a label holds its checkbox), else its tag, text and name. */
function controlKey(el) {
  const keyed = el.matches("[data-key]") ? el : el.querySelector("[data-key]");
  if (keyed) return { key: keyed.dataset.key };
  return { tag: el.tagName, text: el.textContent.trim(), label: el.getAttribute("aria-label") };
}

function findControl(root, k) {
  if (k.key) return root.querySelector(`[data-key="${CSS.escape(k.key)}"]`);
  return [...root.querySelectorAll(k.tag)].find((e) => e.textContent.trim() === k.text
    && e.getAttribute("aria-label") === k.label) || null;
}

export const heldMoments = {
  /** Keep what just happened (a finished trick) on screen; later frames wait in order. With
   * moments off (or while a click skips them), only its words and sound are given. */
  startHold(hold) {
    clearTimeout(this.holdTimer);
    if (hold.text) announce(hold.text);
    const ms = this.skippingHolds ? 0 : holdMs(hold.ms || 1500);
    if (hold.sound && !this.skippingHolds) sounds.play(hold.sound);
    if (ms <= 0) return;
    this.held = { ...hold, at: Date.now() };
    this.holdTimer = setTimeout(() => this.endHold(), ms);
  },

  /** Go on: draw the frames that waited (until one of them holds again; `all`: holding
   * none of them). */
  endHold({ all = false } = {}) {
    clearTimeout(this.holdTimer);
    this.held = null;
    this.skippingHolds = all;
    try {
      while (this.queue.length && !this.held) this.onMessage(this.queue.shift());
    } finally {
      this.skippingHolds = false;
    }
    this.render();
  },

  dropHold() {
    clearTimeout(this.holdTimer);
    this.held = null;
    this.queue = [];
  },

  /** A click during a held moment goes on at once. On a control of the room it does what
   * the control says on the page as it is now: the frames that waited (the page under the
   * click was out of date) are drawn first, holding none, then the same control is clicked
   * there (a redraw replaced the one under the pointer); when it is gone or disabled there,
   * a note says so. Typing in a field or choosing in a list is not a "go on". */
  clickDuringHold(ev) {
    if (this.lateClick && ev.isTrusted) {
      // The click that may follow a press on a disabled control: pressDuringHold did it.
      const late = this.lateClick;
      this.lateClick = null;
      const el = ev.target instanceof Element ? ev.target.closest(CONTROL) : null;
      if (late.until > Date.now() && el && el.dataset.key === late.key) {
        ev.preventDefault();
        ev.stopImmediatePropagation();
        return;
      }
    }
    if (!this.held) return;
    const target = ev.target instanceof Element ? ev.target : null;
    if (target && target.closest("input[type='text'], textarea, select")) return;
    const control = target && target.closest(CONTROL);
    if (!control || !this.bodyEl || !this.bodyEl.contains(control)) {
      this.endHold();
      return;
    }
    ev.preventDefault();
    ev.stopImmediatePropagation();
    this.clickAgain(controlKey(control));
  },

  /** A press on a control disabled only while the moment is held (a choice whose phase
   * waits behind it): go on, then click it as it is now. A disabled control gets no click. */
  pressDuringHold(ev) {
    if (!this.held || ev.button !== 0) return;
    const control = ev.target instanceof Element ? ev.target.closest("button, input") : null;
    if (!control || !control.disabled || !this.bodyEl || !this.bodyEl.contains(control)) return;
    const key = controlKey(control);
    if (key.key) this.lateClick = { key: key.key, until: Date.now() + 1500 };
    this.clickAgain(key, { quiet: true });
  },

  /** Draw every waiting frame at once, then click the control `key` finds; when it is gone
   * or disabled, say so (`quiet`: it was disabled already, nothing was promised). */
  clickAgain(key, { quiet = false } = {}) {
    this.endHold({ all: true });
    const again = findControl(this.bodyEl, key);
    if (again && !again.disabled) again.click();
    else if (!quiet) this.flash(t("room.click_missed"), "note");
  },
};
