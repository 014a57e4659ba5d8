// The operators' console (/admin, issue 14): an admin signs in with an admin account (never a
// player's identity) and sees every room of the site, refreshed every few seconds, filtered by
// status and game and searched by room, host or seat name; a room's seats and the actions on
// it (close, announce, reveal its hidden state, kick, ban, give a seat to a bot, mute, hide a
// chat message -- each audited with its reason); announcements to every room (standing until
// they expire or are cleared), the lobby lock, the site's bans and mutes, the live nodes (and
// draining one) and the audit log. The admin session token
// lives in sessionStorage under its own key, apart from the player's identity. Every name and
// text goes in as text (dom.js h()). Routes: docs/PROTOCOL.md, "Admin routes".

import { h, replaceChildren } from "./dom.js";
import { errorText, formatDate, gameTitle, t } from "./i18n.js";

const TOKEN_KEY = "tortuga.admin.token";
const REFRESH_MS = 3000;
const STATUSES = ["", "lobby", "playing", "finished", "abandoned"];
const AUDIT_PAGES = [10, 50, 200];
const ROOM_COLUMNS = ["admin.col.room", "admin.col.game", "admin.col.status", "admin.col.clock", "admin.col.activity", "admin.col.host", "admin.col.seats", "admin.col.watching"];
const NODE_COLUMNS = ["admin.node.instance", "admin.node.alive", "admin.node.sockets", "admin.node.rooms", "admin.node.version", "admin.node.started", "admin.node.uptime", "admin.node.draining"];
const SEAT_COLUMNS = ["admin.seat.seat", "admin.seat.name", "admin.seat.bot", "admin.seat.connected", "admin.seat.stand_in", "admin.seat.actions"];
const SANCTION_COLUMNS = ["admin.mod.user", "admin.mod.reason", "admin.mod.by", "admin.mod.until", "admin.mod.actions"];
const ANNOUNCE_MINUTES = [15, 60, 240, 1440];
const AUDIT_COLUMNS = ["admin.audit.at", "admin.audit.admin", "admin.audit.action", "admin.audit.room", "admin.audit.reason", "admin.audit.text"];
const SHORT = { dateStyle: "short", timeStyle: "medium" }; // entries per page the audit offers
// The actions the audit knows today (a suggestion list: the filter takes any action name).
const AUDIT_ACTIONS = [
  "login",
  "logout",
  "close",
  "announce",
  "reveal",
  "pause",
  "resume",
  "extend",
  "lock-lobby",
  "unlock-lobby",
  "kick",
  "ban",
  "unban",
  "replace",
  "mute",
  "unmute",
  "hide-chat",
  "drain",
  "undrain",
  "clear-announcement",
];

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

/** "3 d 4 h", "2 h 5 min", "40 s": how long a node has been up. */
function uptime(seconds) {
  const d = Math.floor(seconds / 86400);
  const hrs = Math.floor((seconds % 86400) / 3600);
  const min = Math.floor((seconds % 3600) / 60);
  if (d) return t("admin.node.uptime.days", { d, h: hrs });
  if (hrs) return t("admin.node.uptime.hours", { h: hrs, min });
  if (min) return t("admin.node.uptime.minutes", { min });
  return t("admin.node.uptime.seconds", { s: seconds });
}

/** What an audit entry's details say in a line: an announcement's or a hidden message's text,
 * the user acted on (and seat), the node drained. */
function auditDetails(d) {
  const parts = [];
  if (d.user) parts.push(d.name ? `${d.name} (${d.user})` : d.user);
  if (typeof d.seat === "number") parts.push(t("admin.audit.seat", { seat: d.seat + 1 }));
  if (d.scope) parts.push(t(`admin.audit.scope.${d.scope}`));
  if (d.instance) parts.push(d.instance);
  if (d.text) parts.push(`“${d.text}”`);
  return parts.join(" · ");
}

const yesNo = (value) => (value ? t("admin.yes") : t("admin.no"));
/** A table row whose cells carry their column's name (data-label): on a phone each row is
 * drawn as a card of "name: value" lines (app.css). */
const row = (keys, attrs, cells) =>
  h("tr", attrs, cells.map((cell, i) => h("td", { "data-label": t(keys[i]) }, cell)));
const headRow = (keys) => h("thead", {}, h("tr", {}, keys.map((key) => h("th", { scope: "col" }, t(key)))));

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

  // -- rooms -----------------------------------------------------------------------------------
  showRooms() {
    this.roomId = null;
    const status = h(
      "select",
      { name: "status", onchange: () => { this.filters.status = status.value; this.refresh(); } },
      STATUSES.map((s) =>
        h("option", { value: s, selected: s === this.filters.status }, s ? t(`admin.status.${s}`) : t("admin.all")),
      ),
    );
    const game = h("input", { name: "game", value: this.filters.game, placeholder: "skull-king", oninput: () => { this.filters.game = game.value.trim(); this.refresh(); } });
    const q = h("input", { name: "q", type: "search", value: this.filters.q, oninput: () => { this.filters.q = q.value.trim(); this.refresh(); } });
    this.table = h("tbody");
    this.state = h("p", { class: "admin-state", role: "status" });
    this.updated = h("p", { class: "admin-updated muted" });
    this.shell(
      "rooms",
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
        "div",
        { class: "table-scroll" },
        h(
          "table",
          { class: "admin-rooms" },
          headRow(ROOM_COLUMNS),
          this.table,
        ),
      ),
      this.updated,
      this.lobbyPanel(),
      h("section", { class: "panel" }, h("h2", {}, t("admin.announce.title")), this.announceForm(null)),
    );
    this.refresh();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  async refresh() {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(this.filters)) if (v) params.set(k, v);
    try {
      const { rooms } = await call("GET", `/rooms?${params}`);
      if (this.roomId !== null || !this.table.isConnected) return;
      this.state.textContent = rooms.length ? "" : t("admin.no_rooms");
      this.updated.textContent = t("admin.updated", { time: formatDate(new Date(), { timeStyle: "medium" }) });
      replaceChildren(
        this.table,
        rooms.map((r) =>
          row(ROOM_COLUMNS, { dataset: { room: r.id }, class: r.paused_at ? "room-paused" : false }, [
            h("button", { type: "button", class: "secondary", onclick: () => this.showRoom(r.id) }, r.id),
            gameTitle(r.game, r.title),
            h("span", { class: `status status-${r.status}` }, t(`admin.status.${r.status}`)),
            this.clockCell(r),
            r.last_activity ? formatDate(new Date(r.last_activity), { timeStyle: "medium" }) : "",
            r.host_name || "",
            h(
              "div",
              { class: "admin-seat-list" },
              r.seats.map((s) =>
                h(
                  "span",
                  { class: ["seat-chip", s.bot ? "bot" : "", s.connected || s.bot ? "on" : "off", s.stand_in ? "stand-in" : ""] },
                  s.bot ? `${s.name} (${t("common.bot")})` : s.name || "—",
                ),
              ),
            ),
            String(r.spectators),
          ]),
        ),
      );
    } catch (err) {
      this.failed(err, this.state);
    }
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

  lobbyPanel() {
    const panel = h("section", { class: "panel admin-lobby" }, h("h2", {}, t("admin.lobby.title")), h("p", {}, t("common.loading")));
    call("GET", "/lobby")
      .then((lobby) => {
        const state = lobby.locked
          ? h("p", { class: "locked" }, t("admin.lobby.locked", { reason: lobby.reason }))
          : h("p", {}, t("admin.lobby.open"));
        const form = this.textForm({
          cls: "admin-lock",
          label: t("admin.reason"),
          button: lobby.locked ? t("admin.lobby.unlock") : t("admin.lobby.lock"),
          act: async (reason) => {
            await call("POST", "/lobby", { locked: !lobby.locked, reason });
            panel.replaceWith(this.lobbyPanel());
            return "";
          },
        });
        replaceChildren(panel, h("h2", {}, t("admin.lobby.title")), state, form);
      })
      .catch((err) => this.failed(err, panel));
    return panel;
  }

  // -- one room --------------------------------------------------------------------------------
  /** One room: its seats (refreshed every few seconds) and the actions on it. */
  showRoom(roomId) {
    this.roomId = roomId;
    this.detail = h("div", { class: "admin-room" }, h("p", {}, t("common.loading")));
    this.clockPanel = h("section", { class: "panel admin-clock" }, h("h3", {}, t("admin.clock.title")));
    this.clockShown = undefined; // the clock panel is drawn again only when the pause changes
    this.chatShown = undefined; // the chat lines are drawn again only when they change
    this.clockSaid = h("p", { class: "admin-said", role: "status" });
    const path = `/rooms/${encodeURIComponent(roomId)}`;
    const reveal = h("div", { class: "admin-reveal" });
    const askReveal = h(
      "button",
      {
        type: "button",
        onclick: () => {
          askReveal.remove();
          replaceChildren(
            reveal,
            h("p", {}, t("admin.reveal.warning")),
            this.textForm({
              cls: "admin-reveal-form",
              label: t("admin.reason"),
              button: t("admin.reveal.confirm"),
              act: async (reason) => {
                const answer = await call("POST", `${path}/reveal`, { reason });
                reveal.append(this.revealed(answer));
                return t("admin.reveal.done", { version: answer.version });
              },
            }),
          );
        },
      },
      t("admin.reveal.ask"),
    );
    // One reason for the actions on seats, users and chat lines (kept while the rest redraws).
    this.modReason = h("input", { name: "mod-reason", maxlength: 500, autocomplete: "off", dataset: { key: "mod-reason" } });
    this.modSaid = h("p", { class: "admin-said", role: "status" });
    this.chatList = h("div", { class: "admin-chat" });
    this.shell(
      "rooms",
      h("p", {}, h("button", { type: "button", class: "secondary", onclick: () => this.showRooms() }, t("admin.back"))),
      h("h2", {}, t("admin.room.title", { room: roomId })),
      h(
        "section",
        { class: "panel admin-moderate" },
        h("h3", {}, t("admin.mod.title")),
        h("label", { class: "admin-mod-reason" }, t("admin.mod.reason_label"), " ", this.modReason),
        this.modSaid,
        this.detail,
        h("h3", {}, t("admin.chat.title")),
        this.chatList,
      ),
      this.clockPanel,
      h("section", { class: "panel" }, h("h3", {}, t("admin.announce.title")), this.announceForm(roomId)),
      h("section", { class: "panel" }, h("h3", {}, t("admin.reveal.title")), askReveal, reveal),
      h(
        "section",
        { class: "panel admin-danger" },
        h("h3", {}, t("admin.close.title")),
        this.textForm({
          cls: "admin-close",
          label: t("admin.reason"),
          button: t("admin.close.button"),
          act: async (reason) => {
            await call("POST", `${path}/close`, { reason });
            this.refreshRoom();
            return t("admin.close.done");
          },
        }),
      ),
    );
    this.refreshRoom();
    this.timer = setInterval(() => this.refreshRoom(), REFRESH_MS);
  }

  async refreshRoom() {
    const roomId = this.roomId;
    try {
      const path = `/rooms/${encodeURIComponent(roomId)}`;
      const [{ room }, { messages }] = await Promise.all([call("GET", path), call("GET", `${path}/chat`)]);
      if (roomId !== this.roomId || !this.detail.isConnected) return;
      this.drawClock(room);
      const live = room.status === "lobby" || room.status === "playing";
      replaceChildren(
        this.detail,
        h(
          "p",
          { class: "admin-room-status" },
          gameTitle(room.game, room.title),
          " · ",
          t(`admin.status.${room.status}`),
          room.reason ? ` (${room.reason})` : "",
          " · ",
          t("admin.room.spectators", { count: room.spectators }),
          room.last_activity ? ` · ${t("admin.room.activity", { time: formatDate(new Date(room.last_activity), { timeStyle: "medium" }) })}` : "",
        ),
        room.announcement
          ? h("p", { class: "admin-standing" }, t("admin.announce.standing", { text: room.announcement.text, until: formatDate(new Date(room.announcement.until), { timeStyle: "short" }) }))
          : null,
        h(
          "div",
          { class: "table-scroll" },
          h(
            "table",
            { class: "admin-seats" },
            headRow(SEAT_COLUMNS),
            h(
              "tbody",
              {},
              room.seats.map((s) =>
                row(SEAT_COLUMNS, { dataset: { seat: String(s.seat) } }, [
                  String(s.seat + 1),
                  s.name || "—",
                  s.bot || t("admin.no"),
                  yesNo(s.connected),
                  s.stand_in ? t("admin.yes") : s.takeover_at ? t("admin.seat.takeover", { time: formatDate(new Date(s.takeover_at), { timeStyle: "medium" }) }) : t("admin.no"),
                  s.user && live ? this.seatActions(room, s) : "",
                ]),
              ),
            ),
          ),
        ),
        this.sanctionList("admin.mod.room_bans", room.banned, (u) => ({ path: `/users/${encodeURIComponent(u.user)}/unban`, body: { room: room.id }, label: "admin.mod.unban" })),
        this.sanctionList("admin.mod.room_mutes", room.muted, (u) => ({ path: `/users/${encodeURIComponent(u.user)}/unmute`, body: { room: room.id }, label: "admin.mod.unmute" })),
      );
      this.drawChat(room, messages);
    } catch (err) {
      this.failed(err, this.detail);
    }
  }

  /** Run a moderation action with the reason typed above the seats; what happened is said
   * in the panel's status line, and the room is read again. */
  async moderate(path, body, done) {
    const reason = this.modReason.value.trim();
    if (!reason) {
      this.modSaid.textContent = t("error.reason-required");
      this.modReason.focus();
      return;
    }
    this.modSaid.textContent = "";
    try {
      const answer = await call("POST", path, { ...body, reason });
      this.modSaid.textContent = done(answer);
      this.modReason.value = "";
      if (this.roomId) await this.refreshRoom();
    } catch (err) {
      this.failed(err, this.modSaid);
    }
  }

  /** The buttons of a human's seat: kick, ban from the room, give the seat to a bot, mute
   * here or everywhere, ban from the site. */
  seatActions(room, seat) {
    const user = encodeURIComponent(seat.user);
    const roomPath = `/rooms/${encodeURIComponent(room.id)}`;
    const who = seat.name || seat.user;
    const button = (key, cls, act) => h("button", { type: "button", class: ["small", cls], dataset: { act: key }, onclick: act }, t(`admin.mod.${key}`));
    return h(
      "div",
      { class: "admin-seat-actions" },
      button("kick", "secondary", () => this.moderate(`${roomPath}/kick`, { user: seat.user }, (a) => a.bot ? t("admin.mod.kicked_bot", { name: who, bot: a.bot }) : t("admin.mod.kicked", { name: who }))),
      button("ban_room", "secondary", () => this.moderate(`/users/${user}/ban`, { room: room.id, name: seat.name }, () => t("admin.mod.banned_room", { name: who }))),
      room.status === "playing"
        ? button("replace", "secondary", () => this.moderate(`${roomPath}/replace`, { seat: seat.seat }, (a) => t("admin.mod.replaced", { seat: seat.seat + 1, bot: a.name })))
        : null,
      button("mute_room", "secondary", () => this.moderate(`/users/${user}/mute`, { room: room.id, name: seat.name }, () => t("admin.mod.muted_room", { name: who }))),
      button("mute_site", "secondary", () => this.moderate(`/users/${user}/mute`, { name: seat.name }, () => t("admin.mod.muted_site", { name: who }))),
      button("ban_site", "danger", () => this.moderate(`/users/${user}/ban`, { name: seat.name }, () => t("admin.mod.banned_site", { name: who }))),
    );
  }

  /** A list of bans or mutes (``[{user, name, reason, by, until}]``) with a button each to
   * lift it: ``lift(entry)`` is ``{path, body, label}``; ``act(path, body, entry)`` runs it
   * (the room's reason field by default). Nothing when the list is empty. */
  sanctionList(titleKey, entries, lift, act = null) {
    if (!entries || !entries.length) return null;
    const run = act || ((path, body, e) => this.moderate(path, body, () => t("admin.mod.lifted", { name: e.name || e.user })));
    return h(
      "div",
      { class: "admin-sanctions" },
      h("h4", {}, t(titleKey)),
      h(
        "table",
        { class: "admin-sanction-list" },
        headRow(SANCTION_COLUMNS),
        h(
          "tbody",
          {},
          entries.map((e) => {
            const how = lift(e);
            return row(SANCTION_COLUMNS, { dataset: { user: e.user } }, [
              e.name ? `${e.name} (${e.user})` : e.user,
              e.address ? `${e.reason || ""} · ${t("admin.mod.address_banned")}` : e.reason || "",
              e.by || "",
              e.until ? formatDate(new Date(e.until), SHORT) : t("admin.mod.for_good"),
              h("button", { type: "button", class: "small secondary", onclick: () => run(how.path, how.body, e) }, t(how.label)),
            ]);
          }),
        ),
      ),
    );
  }

  /** The room's kept chat, each line with a button to hide it (the audit keeps its text). */
  drawChat(room, messages) {
    const shown = messages.filter((m) => m.id);
    const key = shown.map((m) => m.id).join(",");
    if (key === this.chatShown) return;
    this.chatShown = key;
    replaceChildren(
      this.chatList,
      shown.length
        ? h(
            "ul",
            { class: "admin-chat-lines" },
            shown.map((m) =>
              h(
                "li",
                { dataset: { message: m.id } },
                h("span", { class: "from" }, `${m.name}:`),
                " ",
                h("span", { class: "text" }, m.text),
                " ",
                h(
                  "button",
                  {
                    type: "button",
                    class: "small secondary",
                    onclick: () => this.moderate(`/rooms/${encodeURIComponent(room.id)}/chat/hide`, { id: m.id }, () => t("admin.chat.hidden")),
                  },
                  t("admin.chat.hide"),
                ),
                " ",
                h(
                  "button",
                  {
                    type: "button",
                    class: "small secondary",
                    onclick: () => this.moderate(`/users/${encodeURIComponent(m.user)}/mute`, { room: room.id, name: m.name }, () => t("admin.mod.muted_room", { name: m.name })),
                  },
                  t("admin.mod.mute_room"),
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, t("admin.chat.empty")),
    );
  }

  /** The room's clocks: paused or running (and the deadline the table waits for), and the
   * actions on them -- pause, resume, extend the deadline -- each with its reason. The forms
   * are drawn again only when the room's state changes, so a reason being typed survives
   * the refresh. */
  drawClock(room) {
    const key = `${room.status}|${room.paused_at ?? ""}`;
    if (key === this.clockShown) {
      // Only the deadline may have moved: the line is updated, the forms are kept.
      const line = this.clockPanel.querySelector(".admin-clock-state");
      if (line) line.textContent = this.clockState(room);
      return;
    }
    this.clockShown = key;
    const path = `/rooms/${encodeURIComponent(room.id)}`;
    const state = h("p", { class: ["admin-clock-state", room.paused_at ? "paused" : ""], role: "status" }, this.clockState(room));
    const parts = [h("h3", {}, t("admin.clock.title")), state];
    const done = async (message) => {
      await this.refreshRoom();
      this.clockSaid.textContent = message;
      return "";
    };
    if (room.status === "playing") {
      const resume = !!room.paused_at;
      parts.push(
        this.textForm({
          cls: resume ? "admin-resume" : "admin-pause",
          label: t("admin.reason"),
          button: t(resume ? "admin.clock.resume" : "admin.clock.pause"),
          act: async (reason) => {
            await call("POST", `${path}/${resume ? "resume" : "pause"}`, { reason });
            return done(t(resume ? "admin.clock.resumed" : "admin.clock.paused_done"));
          },
        }),
      );
      if (!resume) {
        const by = h(
          "select",
          { name: "extend-seconds" },
          [60, 300, 900, 3600, 86400].map((sec) => h("option", { value: String(sec) }, t(`admin.clock.by.${sec}`))),
        );
        parts.push(
          h("h4", {}, t("admin.clock.extend_title")),
          this.textForm({
            cls: "admin-extend",
            label: t("admin.reason"),
            button: t("admin.clock.extend"),
            extra: h("label", { class: "admin-extend-by" }, t("admin.clock.extend_by"), " ", by),
            act: async (reason) => {
              const answer = await call("POST", `${path}/extend`, { seconds: Number(by.value), reason });
              return done(t("admin.clock.extended", { time: formatDate(new Date(answer.deadline), { timeStyle: "medium" }) }));
            },
          }),
        );
      }
    }
    this.clockSaid.textContent = "";
    replaceChildren(this.clockPanel, ...parts, this.clockSaid);
  }

  /** A room's clock in the rooms list: paused, the time the table waits until, or nothing. */
  clockCell(room) {
    if (room.status !== "playing") return "";
    if (room.paused_at) return h("span", { class: "clock-paused" }, t("admin.clock.paused_short"));
    const due = room.pending ? room.pending.deadline : room.deadline;
    if (due) {
      const stage = room.pending ? t(`admin.stage.${room.pending.stage}`) : "";
      return `${formatDate(new Date(due), { timeStyle: "medium" })}${stage ? ` (${stage})` : ""}`;
    }
    return "—";
  }

  clockState(room) {
    if (room.status !== "playing") return t("admin.clock.no_game");
    if (room.paused_at) return t("admin.clock.paused", { since: formatDate(new Date(room.paused_at), { timeStyle: "medium" }) });
    const due = room.pending ? room.pending.deadline : room.deadline;
    if (due) return t("admin.clock.running_until", { time: formatDate(new Date(due), { timeStyle: "medium" }) });
    return t("admin.clock.running");
  }

  /** The server's answer to a reveal: every seat's view, as text. */
  revealed(answer) {
    return h(
      "div",
      { class: "admin-views" },
      answer.views.map((view, seat) =>
        h(
          "details",
          { open: true },
          h("summary", {}, t("admin.reveal.seat", { seat: seat + 1 })),
          h("pre", {}, JSON.stringify(view, null, 2)),
        ),
      ),
    );
  }

  // -- the site's bans and mutes ----------------------------------------------------------------
  /** Bans and mutes on the whole site: a form to ban or mute a user by id (from a room's
   * seats, a chat line or the audit), and the lists with a button to lift each. */
  showModeration() {
    this.roomId = null;
    const reason = h("input", { name: "site-reason", maxlength: 500, required: true, autocomplete: "off" });
    const said = h("p", { class: "admin-said", role: "status" });
    const lists = h("div", { class: "admin-site-lists" }, h("p", {}, t("common.loading")));
    let load = async () => {};
    const act = async (path, body, done) => {
      const why = reason.value.trim();
      if (!why) {
        said.textContent = t("error.reason-required");
        reason.focus();
        return;
      }
      said.textContent = "";
      try {
        const answer = await call("POST", path, { ...body, reason: why });
        said.textContent = done(answer);
        reason.value = "";
        await load();
      } catch (err) {
        this.failed(err, said);
      }
    };
    const user = h("input", { name: "mod-user", maxlength: 64, required: true, autocomplete: "off", placeholder: "g_…" });
    const what = h("select", { name: "mod-what" }, ["ban", "mute"].map((w) => h("option", { value: w }, t(`admin.mod.site_${w}`))));
    // A site ban may also refuse new guests from the address the banned guest came from.
    const address = h("input", { type: "checkbox", name: "mod-address" });
    const minutes = h(
      "select",
      { name: "mod-minutes" },
      ["", "60", "1440", "10080"].map((m) => h("option", { value: m }, m ? t(`admin.mod.for.${m}`) : t("admin.mod.for_good"))),
    );
    const form = h(
      "form",
      {
        class: "admin-action admin-site-form",
        onsubmit: (ev) => {
          ev.preventDefault();
          const id = user.value.trim();
          if (!id) return;
          const body = what.value === "mute" && minutes.value ? { minutes: Number(minutes.value) } : {};
          if (what.value === "ban" && address.checked) body.address = true;
          act(`/users/${encodeURIComponent(id)}/${what.value}`, body, () => t(what.value === "ban" ? "admin.mod.banned_site" : "admin.mod.muted_site", { name: id }));
        },
      },
      h("label", {}, t("admin.mod.user_id"), " ", user),
      h("label", { class: "admin-extend-by" }, t("admin.mod.what"), " ", what),
      h("label", { class: "admin-extend-by" }, t("admin.mod.how_long"), " ", minutes),
      h("label", { class: "admin-extend-by" }, address, " ", t("admin.mod.address")),
      h("label", {}, t("admin.reason"), " ", reason),
      h("button", { type: "submit", class: "danger" }, t("admin.mod.apply")),
      said,
    );
    load = async () => {
      try {
        const { bans, mutes } = await call("GET", "/moderation");
        const lifted = (e) => () => t("admin.mod.lifted", { name: e.name || e.user });
        replaceChildren(
          lists,
          this.sanctionList("admin.mod.site_bans", bans, (e) => ({ path: `/users/${encodeURIComponent(e.user)}/unban`, body: {}, label: "admin.mod.unban" }), (path, body, e) => act(path, body, lifted(e))) ||
            h("p", { class: "muted" }, t("admin.mod.no_bans")),
          this.sanctionList("admin.mod.site_mutes", mutes, (e) => ({ path: `/users/${encodeURIComponent(e.user)}/unmute`, body: {}, label: "admin.mod.unmute" }), (path, body, e) => act(path, body, lifted(e))) ||
            h("p", { class: "muted" }, t("admin.mod.no_mutes")),
        );
      } catch (err) {
        this.failed(err, lists);
      }
    };
    this.shell("moderation", h("h2", {}, t("admin.tab.moderation")), h("p", { class: "muted" }, t("admin.mod.intro")), h("section", { class: "panel" }, form), lists);
    load();
  }

  // -- nodes and audit -------------------------------------------------------------------------
  showNodes() {
    this.roomId = null;
    const body = h("tbody");
    const said = h("p", { role: "status" });
    const reason = h("input", { name: "drain-reason", maxlength: 500, autocomplete: "off", dataset: { key: "drain-reason" } });
    const drainSaid = h("p", { class: "admin-said", role: "status" });
    // Drain a node, or lift an admin's drain (`lift`): either way with a reason (audited).
    const drain = async (instance, lift = false) => {
      const why = reason.value.trim();
      if (!why) {
        drainSaid.textContent = t("error.reason-required");
        reason.focus();
        return;
      }
      try {
        await call("POST", `/nodes/${encodeURIComponent(instance)}/${lift ? "undrain" : "drain"}`, { reason: why });
        drainSaid.textContent = t(lift ? "admin.node.undrain_asked" : "admin.node.drain_asked", { node: instance });
        reason.value = "";
        load();
      } catch (err) {
        this.failed(err, drainSaid);
      }
    };
    this.shell(
      "nodes",
      h("h2", {}, t("admin.tab.nodes")),
      said,
      h(
        "section",
        { class: "panel admin-drain" },
        h("p", { class: "muted" }, t("admin.node.drain_intro")),
        h("label", { class: "admin-mod-reason" }, t("admin.reason"), " ", reason),
        drainSaid,
      ),
      h(
        "table",
        { class: "admin-nodes" },
        headRow(NODE_COLUMNS),
        body,
      ),
    );
    const load = async () => {
      try {
        const { nodes } = await call("GET", "/nodes");
        said.textContent = nodes.length ? "" : t("admin.node.none");
        replaceChildren(
          body,
          nodes.map((n) =>
            row(NODE_COLUMNS, { class: n.alive ? "node-alive" : "node-dead", dataset: { instance: n.instance } }, [
              h("code", {}, n.instance),
              h("span", { class: "node-state" }, t(n.alive ? "admin.node.up" : "admin.node.dead")),
              n.sockets == null ? "" : String(n.sockets),
              String(n.rooms),
              h("code", {}, n.version || ""),
              n.started_at ? formatDate(new Date(n.started_at), SHORT) : "",
              n.uptime_seconds == null ? "" : uptime(n.uptime_seconds),
              n.draining
                ? h("span", { class: "node-draining" },
                  n.draining.kind === "admin" ? t("admin.node.draining_by", { by: n.draining.by, reason: n.draining.reason || "" }) : t("admin.node.stopping"),
                  n.alive && n.draining.kind === "admin"
                    ? [" ", h("button", { type: "button", class: "small", dataset: { act: "undrain" }, onclick: () => drain(n.instance, true) }, t("admin.node.undrain"))]
                    : null)
                : n.alive
                  ? h("button", { type: "button", class: "small danger", dataset: { act: "drain" }, onclick: () => drain(n.instance) }, t("admin.node.drain"))
                  : "",
            ]),
          ),
        );
      } catch (err) {
        this.failed(err, said);
      }
    };
    load();
    this.timer = setInterval(load, REFRESH_MS);
  }

  /** The audit log, newest first: filtered by admin, action, room and a text in the room or
   * the reason; a page at a time ("Older entries" asks for the entries before the last one
   * shown). Read only: the console has no way to change an entry. */
  showAudit(preset = {}) {
    this.roomId = null;
    const body = h("tbody");
    const said = h("p", { class: "admin-state", role: "status" });
    const field = (name, value, attrs = {}) => h("input", { name: `audit-${name}`, value: value || "", ...attrs });
    const admin = field("admin", preset.admin, { autocomplete: "off" });
    const action = field("action", preset.action, { list: "admin-actions", autocomplete: "off" });
    const room = field("room", preset.room, { autocomplete: "off" });
    const q = field("q", preset.q, { type: "search" });
    const actions = h("datalist", { id: "admin-actions" }, AUDIT_ACTIONS.map((a) => h("option", { value: a })));
    const perPage = h(
      "select",
      { name: "audit-per-page" },
      AUDIT_PAGES.map((n) => h("option", { value: String(n), selected: n === 50 }, String(n))),
    );
    const older = h("button", { type: "button", class: "secondary admin-older", hidden: true }, t("admin.audit.older"));
    let asked = 0;
    let last = null; // the id of the oldest entry shown
    const entry = (e) =>
      row(AUDIT_COLUMNS, { dataset: { action: e.action } }, [
        formatDate(e.at, SHORT),
        e.admin,
        h("code", {}, e.action),
        e.target ? h("button", { type: "button", class: "link", onclick: () => this.showRoom(e.target) }, e.target) : "",
        e.reason || "",
        auditDetails(e.details || {}),
      ]);
    const load = async (more = false) => {
      const mine = ++asked;
      const page = Number(perPage.value);
      const params = new URLSearchParams({ limit: String(page) });
      for (const [key, input] of [["admin", admin], ["action", action], ["room", room], ["q", q]]) {
        if (input.value.trim()) params.set(key, input.value.trim());
      }
      if (more && last !== null) params.set("before", String(last));
      try {
        const { entries } = await call("GET", `/audit?${params}`);
        if (mine !== asked) return; // a later search answered or will answer
        if (!more) replaceChildren(body);
        body.append(...entries.map(entry));
        if (entries.length) last = entries[entries.length - 1].id;
        older.hidden = entries.length < page;
        said.textContent = body.children.length ? t("admin.audit.shown", { count: body.children.length }) : t("admin.audit.none");
      } catch (err) {
        this.failed(err, said);
      }
    };
    older.addEventListener("click", () => load(true));
    const again = () => {
      last = null;
      load(false);
    };
    for (const input of [admin, action, room, q]) input.addEventListener("input", again);
    perPage.addEventListener("change", again);
    this.shell(
      "audit",
      h("h2", {}, t("admin.tab.audit")),
      h(
        "div",
        { class: "admin-filters" },
        h("label", {}, t("admin.audit.by_admin"), " ", admin),
        h("label", {}, t("admin.audit.by_action"), " ", action, actions),
        h("label", {}, t("admin.audit.by_room"), " ", room),
        h("label", {}, t("admin.audit.search"), " ", q),
        h("label", {}, t("admin.audit.per_page"), " ", perPage),
      ),
      said,
      h(
        "div",
        { class: "table-scroll" },
        h("table", { class: "admin-audit" }, headRow(AUDIT_COLUMNS), body),
      ),
      older,
    );
    load();
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
