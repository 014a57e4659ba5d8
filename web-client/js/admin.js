// The operators' console (/admin, issue 14): an admin signs in with an admin account (never a
// player's identity) and sees every room of the site, refreshed every few seconds, filtered by
// status and game and searched by room, host or seat name. The admin session token lives in
// sessionStorage under its own key, apart from the player's identity. Routes:
// docs/PROTOCOL.md, "Admin routes".

import { h, replaceChildren } from "./dom.js";
import { errorText, gameTitle, t } from "./i18n.js";

const TOKEN_KEY = "tortuga.admin.token";
const REFRESH_MS = 3000;
const STATUSES = ["", "lobby", "playing", "finished", "abandoned"];

class AdminError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, body) {
  const headers = { "content-type": "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`/admin/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = data.error || {};
    throw new AdminError(res.status, err.code || "unavailable", err.message || res.statusText);
  }
  return data;
}

export class AdminPage {
  constructor(el) {
    this.el = el;
    this.timer = null;
    this.filters = { status: "", game: "", q: "" };
    document.title = `${t("admin.title")} — ${t("site.name")}`;
    if (sessionStorage.getItem(TOKEN_KEY)) this.showRooms();
    else this.showLogin();
  }

  showLogin(message = "") {
    this.stop();
    const name = h("input", { name: "name", autocomplete: "username", required: true });
    const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
    const error = h("p", { class: "error-box", role: "alert", hidden: !message }, message);
    const form = h(
      "form",
      {
        class: "admin-login",
        onsubmit: async (ev) => {
          ev.preventDefault();
          try {
            const answer = await call("POST", "/login", { name: name.value, password: password.value });
            sessionStorage.setItem(TOKEN_KEY, answer.token);
            this.showRooms();
          } catch (err) {
            error.hidden = false;
            error.textContent = errorText(err);
          }
        },
      },
      h("label", {}, t("admin.name"), " ", name),
      h("label", {}, t("admin.password"), " ", password),
      h("button", { type: "submit" }, t("admin.sign_in")),
      error,
    );
    replaceChildren(this.el, h("h1", {}, t("admin.title")), form);
  }

  showRooms() {
    const status = h(
      "select",
      { name: "status", onchange: () => { this.filters.status = status.value; this.refresh(); } },
      STATUSES.map((s) => h("option", { value: s }, s ? t(`admin.status.${s}`) : t("admin.all"))),
    );
    const game = h("input", { name: "game", placeholder: "skull-king", oninput: () => { this.filters.game = game.value.trim(); this.refresh(); } });
    const q = h("input", { name: "q", type: "search", oninput: () => { this.filters.q = q.value.trim(); this.refresh(); } });
    this.table = h("tbody");
    this.state = h("p", { class: "admin-state", role: "status" });
    const signOut = h("button", { type: "button", onclick: () => this.signOut() }, t("admin.sign_out"));
    replaceChildren(
      this.el,
      h("h1", {}, t("admin.title")),
      signOut,
      h("h2", {}, t("admin.rooms")),
      h(
        "div",
        { class: "admin-filters" },
        h("label", {}, t("admin.filter.status"), " ", status),
        h("label", {}, t("admin.filter.game"), " ", game),
        h("label", {}, t("admin.filter.search"), " ", q),
      ),
      this.state,
      h(
        "table",
        { class: "admin-rooms" },
        h(
          "thead",
          {},
          h("tr", {}, ["room", "game", "status", "host", "seats"].map((c) => h("th", { scope: "col" }, t(`admin.col.${c}`)))),
        ),
        this.table,
      ),
    );
    this.refresh();
    this.stop();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  async refresh() {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(this.filters)) if (v) params.set(k, v);
    try {
      const { rooms } = await call("GET", `/rooms?${params}`);
      this.state.textContent = rooms.length ? "" : t("admin.no_rooms");
      replaceChildren(
        this.table,
        rooms.map((r) =>
          h(
            "tr",
            { dataset: { room: r.id } },
            h("td", {}, h("code", {}, r.id)),
            h("td", {}, gameTitle(r.game, r.title)),
            h("td", {}, t(`admin.status.${r.status}`)),
            h("td", {}, r.host_name || ""),
            h("td", {}, r.seats.map((s) => (s.bot ? `${s.name} (${t("common.bot")})` : s.name || "—")).join(", ")),
          ),
        ),
      );
    } catch (err) {
      if (err.status === 401) {
        sessionStorage.removeItem(TOKEN_KEY);
        this.showLogin(errorText(err));
        return;
      }
      this.state.textContent = errorText(err);
    }
  }

  async signOut() {
    this.stop();
    try {
      await call("POST", "/logout");
    } catch {
      // already ended: nothing to end
    }
    sessionStorage.removeItem(TOKEN_KEY);
    this.showLogin();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
