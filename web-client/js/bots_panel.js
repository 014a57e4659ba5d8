// "Your bots" on a player's own page: their bot accounts (POST/GET /api/me/bots), each with
// Revoke; a new one's token is shown once, here, and never again (docs/BOTS.md).

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { formatDate, t } from "./i18n.js";

export class BotsPanel {
  constructor() {
    this.el = h("section", { class: "panel bots-panel", "aria-label": t("player.bots") });
    this.bots = [];
    this.fresh = null; // {name, token}: the token of the bot just made, shown this once
    this.error = null;
    this.load();
  }

  async load() {
    try {
      this.bots = (await api.myBots()).bots || [];
      this.error = null;
    } catch (err) {
      this.error = err.message;
    }
    this.render();
  }

  async create(name) {
    try {
      const made = await api.createBot(name);
      this.fresh = { name: made.bot.name, token: made.token };
      this.error = null;
    } catch (err) {
      this.error = err.code ? t(`error.${err.code}`) : err.message;
    }
    await this.load();
  }

  async revoke(id) {
    try {
      await api.revokeBot(id);
    } catch (err) {
      this.error = err.code ? t(`error.${err.code}`) : err.message;
    }
    await this.load();
  }

  render() {
    const name = h("input", { id: "bot-name", maxlength: "32", autocomplete: "off", required: true });
    const form = h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); if (name.value.trim()) this.create(name.value.trim()); } },
      h("label", { class: "field", for: "bot-name" }, t("player.bot_name"), name),
      h("button", { type: "submit" }, t("player.bot_create")));
    const token = this.fresh
      ? h("div", { class: "bot-token", role: "status" },
        h("p", { class: "small" }, t("player.bot_token", { name: this.fresh.name })),
        h("input", { readonly: true, value: this.fresh.token, class: "token", "aria-label": t("player.bot_token", { name: this.fresh.name }),
          onfocus: (e) => e.target.select() }))
      : null;
    this.fresh = null; // shown once: the next render forgets it
    const list = this.bots.length
      ? h("ul", { class: "bots" }, this.bots.map((b) => h("li", { dataset: { bot: b.id } },
        h("strong", {}, b.name), " ",
        h("span", { class: "small muted" }, formatDate(b.created_at, { dateStyle: "medium" })), " ",
        b.revoked ? h("span", { class: "small muted" }, t("player.bot_revoked"))
          : h("button", { type: "button", class: "danger", onclick: () => this.revoke(b.id) }, t("player.bot_revoke")))))
      : h("p", { class: "muted" }, t("player.no_bots"));
    replaceChildren(this.el,
      h("h2", {}, t("player.bots")),
      h("p", { class: "small muted" }, t("player.bots_intro")),
      token, list, form,
      this.error ? h("p", { class: "error-box", role: "alert" }, this.error) : null);
  }
}
