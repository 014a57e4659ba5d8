// The room's chat: built once per page and never redrawn as a whole, so a game update never
// touches a message being typed (its text, focus and selection stay); only the log changes.

import { h, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";

export class ChatPanel {
  /** `send(text)`: post a message. */
  constructor(send) {
    this.shown = null;
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
    this.el = h("section", { class: "panel chat-panel", "aria-label": t("chat.section") }, h("h2", {}, t("chat.title")), this.log, form);
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
}
