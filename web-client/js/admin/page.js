// The operators' console (/admin): an admin signs in with an admin account (never a player's
// identity) and sees every room of the site, refreshed every few seconds, filtered by status
// and game and searched by room, host or seat name; a room's seats and the actions on it
// (close, announce, reveal its hidden state, kick, ban, give a seat to a bot, mute, hide a
// chat message -- each audited with its reason); announcements to every room (standing until
// they expire or are cleared), the lobby lock, the site's bans and mutes, the live nodes (and
// draining one) and the audit log. Every name and text goes in as text (dom.js h()).
//
// AdminPage holds the sign-in, the tabs and the forms every tab uses; each tab is a module of
// this folder whose methods are mixed into AdminPage (rooms.js, room.js, moderation.js,
// nodes.js, audit.js); api.js talks to the server, tables.js draws the tables.

import { h, replaceChildren } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { call, TOKEN_KEY } from "./api.js";
import { auditTab } from "./audit.js";
import { moderationTab } from "./moderation.js";
import { nodesTab } from "./nodes.js";
import { roomDetail } from "./room.js";
import { roomsTab } from "./rooms.js";

const ANNOUNCE_MINUTES = [15, 60, 240, 1440];

export class AdminPage {
  constructor(el) {
    this.el = el;
    this.timer = null;
    this.filters = { status: "", game: "", q: "" };
    this.roomId = null; // the room whose detail is shown
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

  /** The signed-in console: its tabs, then ``content``. */
  shell(tab, ...content) {
    this.stop();
    const tabs = ["rooms", "moderation", "nodes", "audit"].map((name) =>
      h(
        "button",
        {
          type: "button",
          class: name === tab ? "tab" : "tab secondary",
          "aria-current": name === tab ? "page" : false,
          onclick: () => this.show(name),
        },
        t(`admin.tab.${name}`),
      ),
    );
    const signOut = h("button", { type: "button", class: "secondary sign-out", onclick: () => this.signOut() }, t("admin.sign_out"));
    replaceChildren(
      this.el,
      h("h1", {}, t("admin.title")),
      h("nav", { class: "admin-tabs", "aria-label": t("admin.title") }, tabs, signOut),
      ...content,
    );
  }

  show(tab) {
    if (tab === "nodes") this.showNodes();
    else if (tab === "moderation") this.showModeration();
    else if (tab === "audit") this.showAudit();
    else this.showRooms();
  }

  /** An answer that failed: back to the login when the session is over, else said in ``where``. */
  failed(err, where) {
    if (err.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      this.showLogin(errorText(err));
      return;
    }
    where.hidden = false;
    where.textContent = errorText(err);
  }

  /** A form of one text field and a button: ``act(text)`` runs on submit (never with an
   * empty text) and what it returns is said in the form's status line. */
  textForm({ cls, label, button, act, long = false, extra = null }) {
    const field = long
      ? h("textarea", { rows: 2, maxlength: 500, required: true })
      : h("input", { maxlength: 500, required: true });
    const said = h("p", { class: "admin-said", role: "status" });
    return h(
      "form",
      {
        class: ["admin-action", cls],
        onsubmit: async (ev) => {
          ev.preventDefault();
          const text = field.value.trim();
          if (!text) return;
          said.textContent = "";
          try {
            said.textContent = await act(text);
            field.value = "";
          } catch (err) {
            this.failed(err, said);
          }
        },
      },
      extra,
      h("label", {}, label, " ", field),
      h("button", { type: "submit", class: cls === "admin-close" ? "danger" : false }, button),
      said,
    );
  }

  announceForm(roomId) {
    const minutes = h(
      "select",
      { name: "announce-minutes" },
      ANNOUNCE_MINUTES.map((m) => h("option", { value: String(m), selected: m === 60 }, t(`admin.announce.for.${m}`))),
    );
    const form = this.textForm({
      cls: "admin-announce",
      label: roomId ? t("admin.announce.room") : t("admin.announce.all"),
      button: t("admin.announce.send"),
      long: true,
      extra: h("label", { class: "admin-extend-by" }, t("admin.announce.stands"), " ", minutes),
      act: async (text) => {
        const body = { text, minutes: Number(minutes.value), ...(roomId ? { room: roomId } : {}) };
        const answer = await call("POST", "/announce", body);
        return t("admin.announce.sent", { count: answer.rooms });
      },
    });
    const said = form.querySelector(".admin-said");
    const clear = h(
      "button",
      {
        type: "button",
        class: "secondary admin-unannounce",
        onclick: async () => {
          try {
            await call("POST", "/announce", { clear: true, ...(roomId ? { room: roomId } : {}) });
            said.textContent = t("admin.announce.cleared");
          } catch (err) {
            this.failed(err, said);
          }
        },
      },
      t("admin.announce.clear"),
    );
    form.insertBefore(clear, said);
    return form;
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

// The console's tabs, one module each (each a set of AdminPage methods).
Object.assign(AdminPage.prototype, roomsTab, roomDetail, moderationTab, nodesTab, auditTab);
