// One room (from the rooms tab or the audit): its seats and the actions on them (kick, ban,
// give a seat to a bot, mute), its chat lines to hide, its clocks (pause, resume, extend),
// an announcement to it, its hidden state revealed, closing it -- each with a reason the
// audit keeps. Methods of AdminPage (page.js mixes them in).

import { h, replaceChildren } from "../dom.js";
import { formatDate, gameTitle, t } from "../i18n.js";
import { call, REFRESH_MS } from "./api.js";
import { headRow, row, SHORT, yesNo } from "./tables.js";

const SEAT_COLUMNS = ["admin.seat.seat", "admin.seat.name", "admin.seat.bot", "admin.seat.connected", "admin.seat.stand_in", "admin.seat.actions"];
const SANCTION_COLUMNS = ["admin.mod.user", "admin.mod.reason", "admin.mod.by", "admin.mod.until", "admin.mod.actions"];

export const roomDetail = {
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
  },

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
                  s.stand_in ? t("admin.yes") : s.held ? t("admin.seat.held") : s.takeover_at ? t("admin.seat.takeover", { time: formatDate(new Date(s.takeover_at), { timeStyle: "medium" }) }) : t("admin.no"),
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
  },

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
  },

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
  },

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
  },

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
  },

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
  },

  clockState(room) {
    if (room.status !== "playing") return t("admin.clock.no_game");
    if (room.paused_at) return t("admin.clock.paused", { since: formatDate(new Date(room.paused_at), { timeStyle: "medium" }) });
    const due = room.pending ? room.pending.deadline : room.deadline;
    if (due) return t("admin.clock.running_until", { time: formatDate(new Date(due), { timeStyle: "medium" }) });
    return t("admin.clock.running");
  },

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
  },
};
