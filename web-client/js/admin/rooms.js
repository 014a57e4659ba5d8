// The rooms tab: every room of the site, refreshed every few seconds, filtered by status and
// game and searched by room, host or seat name; the lobby lock and an announcement to every
// room. Methods of AdminPage (page.js mixes them in).

import { h, replaceChildren } from "../dom.js";
import { formatDate, gameTitle, t } from "../i18n.js";
import { call, REFRESH_MS } from "./api.js";
import { headRow, row } from "./tables.js";

const STATUSES = ["", "lobby", "playing", "finished", "abandoned"];
const ROOM_COLUMNS = ["admin.col.room", "admin.col.game", "admin.col.status", "admin.col.clock", "admin.col.activity", "admin.col.host", "admin.col.seats", "admin.col.watching"];

export const roomsTab = {
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
  },

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
  },

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
  },

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
  },
};
