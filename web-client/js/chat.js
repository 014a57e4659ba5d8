// The room's chat: built once per page and never redrawn as a whole, so a game update never
// touches a message being typed (its text, focus and selection stay); only the log changes.
// Its heading folds it away (kept in this browser); a message that comes while the log is
// folded or out of view is counted as unread -- on the heading and, when the panel itself is
// out of view (a phone, the chat below the table), on a small button that brings it in --
// until the log is seen.

import { h, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";
import { chatFolded } from "./store.js";

export class ChatPanel {
  /** `send(text)`: post a message. */
  constructor(send) {
    this.shown = null;
    this.unread = 0;
    this.logInView = false;
    this.panelInView = false;
    this.log = h("div", { class: "chat-log", role: "log", "aria-label": t("chat.aria"), "aria-live": "polite" });
    this.input = h("input", { type: "text", maxlength: "500", "aria-label": t("chat.message"), id: "chat-text",
      dataset: { key: "chat" } });
    const form = h("form", { class: "row", onsubmit: (ev) => {
      ev.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      send(text);
      this.input.value = "";
    } }, this.input, h("button", { type: "submit", class: "secondary" }, t("chat.send")));
    this.mark = h("span", { class: "unread", dataset: { unread: "0" }, hidden: true });
    this.toggle = h("button", { type: "button", class: "chat-toggle", title: t("chat.fold_hint"), dataset: { key: "chat-toggle" },
      onclick: () => this.fold(!this.folded) },
    h("span", {}, t("chat.title")), this.mark, h("span", { class: "fold-mark", "aria-hidden": "true" }));
    this.body = h("div", { class: "chat-body" }, this.log, form);
    this.jumpCount = h("span", {});
    this.jump = h("button", { type: "button", class: "chat-jump", title: t("chat.jump"), hidden: true,
      onclick: () => this.bringIn() }, h("span", { "aria-hidden": "true" }, "✉ "), this.jumpCount);
    this.el = h("section", { class: "panel chat-panel", "aria-label": t("chat.section") },
      h("h2", {}, this.toggle), this.body, this.jump);
    this.fold(chatFolded.get(), { keep: true });
    if (typeof IntersectionObserver !== "undefined") {
      const seen = new IntersectionObserver((entries) => {
        for (const e of entries) {
          if (e.target === this.log) this.logInView = e.isIntersecting && e.intersectionRatio >= 0.5;
          else this.panelInView = e.isIntersecting;
        }
        this.look();
      }, { threshold: [0, 0.5, 1] });
      seen.observe(this.log);
      seen.observe(this.el);
    } else {
      this.logInView = this.panelInView = true;  // nothing tells: never counted unread
    }
  }

  /** Show `messages` ({name, text, at, user}, oldest first); nothing is redrawn if unchanged. */
  update(messages) {
    const last = messages[messages.length - 1];
    const key = `${messages.length}|${last ? `${last.at}|${last.user}|${last.text}` : ""}`;
    if (key === this.shown) return;
    this.shown = key;
    const atBottom = this.log.scrollTop + this.log.clientHeight >= this.log.scrollHeight - 4;
    replaceChildren(this.log, messages.length
      ? messages.map((m) => h("p", {}, h("span", { class: "from" }, `${m.name}:`), m.text))
      : h("p", { class: "muted" }, t("chat.empty")));
    if (atBottom) this.log.scrollTop = this.log.scrollHeight;
  }

  /** A message came (live, not the history a join brings): unread unless the log is seen now
   * or I wrote it. */
  arrived(mine) {
    if (mine || (!this.folded && this.logInView)) return;
    this.unread += 1;
    this.look();
  }

  /** Fold the chat to its heading, or open it (kept in this browser). */
  fold(on, { keep = false } = {}) {
    this.folded = !!on;
    if (!keep) chatFolded.set(this.folded);
    this.body.hidden = this.folded;
    this.el.classList.toggle("folded", this.folded);
    this.toggle.setAttribute("aria-expanded", this.folded ? "false" : "true");
    this.toggle.lastChild.textContent = this.folded ? " ▸" : " ▾";
    this.look();
  }

  /** The unread button: open the chat and bring it into view (the mark clears once seen). */
  bringIn() {
    if (this.folded) this.fold(false);
    const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.el.scrollIntoView({ block: "end", behavior: still ? "auto" : "smooth" });
    this.toggle.focus({ preventScroll: true });
  }

  /** Clear the count once the log is seen; draw the marks. */
  look() {
    if (!this.folded && this.logInView) this.unread = 0;
    const n = this.unread;
    const text = t("chat.unread", { count: n });
    this.mark.hidden = n === 0;
    this.mark.dataset.unread = String(n);
    this.mark.textContent = n ? text : "";
    this.jump.hidden = n === 0 || this.panelInView;
    this.jumpCount.textContent = n ? text : "";
  }
}
