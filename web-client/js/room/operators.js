// What the site's operators do to a room, as its players see it: announcements, a deadline
// pushed, a chat message hidden, a seat given to a bot, a player taken out or banned.
// Methods of RoomPage (page.js mixes them in).

import { announce, h } from "../dom.js";
import { formatDate, t } from "../i18n.js";

export const operators = {
  /** The operators' standing announcement a snapshot or resume carries (or null): shown
   * again after a reload until it expires or is cleared. */
  takeStanding(standing) {
    if (standing === undefined) return;
    this.announcements = this.announcements.filter((a) => !a.standing);
    if (standing && typeof standing.text === "string" && !this.announcements.some((a) => a.text === standing.text)) {
      this.announcements.push({ text: standing.text, at: standing.at, until: standing.until, standing: true });
    }
  },

  /** A message from the site's operators: shown above the table until dismissed. */
  onAnnounce(msg) {
    if (typeof msg.text !== "string") return;
    if (this.announcements.some((a) => a.text === msg.text && a.at === msg.at)) return;
    this.announcements.push({ text: msg.text, at: msg.at, until: msg.until });
    if (this.announcements.length > 3) this.announcements.shift();
    this.render();
  },

  announcementBanner() {
    const now = Date.now();
    const shown = this.announcements.filter((a) => !(typeof a.until === "number" && a.until <= now));
    if (!shown.length) return null;
    return h("section", { class: "panel announce", role: "status", "aria-label": t("room.announce_aria") },
      shown.map((a) => h("p", {}, h("strong", {}, t("room.announce_from")), " ", a.text)),
      h("button", { type: "button", class: "small", onclick: () => { this.announcements = []; this.render(); } },
        t("room.announce_dismiss")));
  },

  /** An operator looked at this game's hidden cards: said above the table (and counted in
   * the room's summary, so a player who was away when it happened is told on return). */
  onInspected(msg) {
    if (this.room) {
      const kept = this.room.inspected || { count: 0, at: [] };
      this.room.inspected = { count: kept.count + 1, at: [...kept.at, msg.at].filter(Boolean) };
    }
    this.onAnnounce({ text: t("room.inspected"), at: msg.at });
  },

  /** The lasting line that an operator looked at this game's hidden cards (how often, the
   * last time), from the room's summary; null when nobody did. */
  inspectedNotice() {
    const looked = this.room && this.room.inspected;
    if (!looked || !(looked.count > 0)) return null;
    const last = Array.isArray(looked.at) && looked.at.length ? looked.at[looked.at.length - 1] : null;
    return h("p", { class: "note inspected-notice", role: "status", dataset: { inspected: String(looked.count) } },
      t("room.inspected_kept", { count: looked.count, at: last ? formatDate(last) : "" }));
  },

  /** An operator pushed the current deadline: the clock shows the new time. */
  onDeadline(msg, note = "room.extended") {
    if (typeof msg.deadline === "number") {
      if (msg.stage === "move") this.moveDeadline = msg.deadline;
      else if (this.seal && msg.stage === "reveal") this.seal.open_by = msg.deadline;
      else if (this.seal && msg.stage === "commit") this.seal.commit_by = msg.deadline;
    }
    this.onAnnounce({ text: t(note) });
  },

  /** An operator hid a chat message: it leaves the log. */
  onChatHidden(msg) {
    this.chat = this.chat.filter((m) => m.id !== msg.id);
    this.render();
  },

  /** An operator gave a seat to a bot: it plays that seat from now on. */
  onReplaced(msg) {
    const text = t("room.replaced", { seat: msg.seat + 1, name: msg.name || t("common.bot") });
    this.flash(text, "note");
    announce(text);
  },

  /** An operator took this player out of the room (and maybe banned them from it). */
  onKicked(msg) {
    this.removed = { ban: !!msg.ban, reason: msg.reason || "" };
    announce(this.removedText());
    if (this.conn) this.conn.close();
    this.render();
  },

  removedText() {
    const r = this.removed || {};
    if (r.site) return t("room.banned_site");
    return t(r.ban ? "room.banned_room" : "room.kicked");
  },
};
