// Before the start: the seats (sit, bots and their levels, ready, kick, start), the host's
// automatic seat after creating a room, and the invite link. Methods of RoomPage (page.js
// mixes them in).

import { groupCode } from "../codes.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { nameNode } from "../names.js";
import { myRooms } from "../store.js";
import { contributionFor } from "../seeding.js";

export const beforeStart = {
  /** The host who just created the room sits down at once (in the first empty seat; after
   * "Play again": in the seat they had, with the same bots around them). */
  autoSit() {
    const flag = `tortuga.created.${this.code}`;
    const raw = sessionStorage.getItem(flag);
    if (!raw || !this.room || this.room.status !== "lobby" || !this.me) return;
    sessionStorage.removeItem(flag);
    let plan = null;
    try {
      plan = JSON.parse(raw);
    } catch {
      plan = null;
    }
    const seats = this.room.seats;
    if (!seats.some((s) => s.user === this.me.id)) {
      const want = plan && typeof plan === "object" ? seats[plan.seat] : null;
      const free = want && !want.user && !want.bot ? want : seats.find((s) => !s.user && !s.bot);
      if (free) this.conn.send({ type: "sit", seat: free.seat });
    }
    for (const bot of (plan && plan.bots) || []) {
      if (seats[bot.seat] && !seats[bot.seat].user && !seats[bot.seat].bot) {
        this.conn.send({ type: "add_bot", seat: bot.seat, level: bot.level });
      }
    }
  },

  /** Ready (or not), with this browser's bytes for the deal seed -- only once it has seen the
   * room's seed commitment: before it, the server would not be bound to its seed yet. */
  sendReady(ready) {
    const entropy = contributionFor(this.code, this.room && this.room.seed_commitment);
    const mine = ((this.room && this.room.seats) || []).find((x) => this.me && x.user === this.me.id);
    if (!entropy || !mine) this.conn.send({ type: "ready", ready });
    else this.conn.sendSigned({ type: "ready", ready, entropy }, { kind: "entropy", version: 0, seat: mine.seat, c: entropy });
  },

  /** Before the start: remember (or forget) this room in "my rooms" as the seat changes. */
  rememberLobbySeat() {
    const r = this.room;
    if (!r || r.status !== "lobby" || !this.me) return;
    const mine = r.seats.find((s) => s.user === this.me.id);
    if (mine) {
      myRooms.put(this.code, { game: r.game, title: r.title, seat: mine.seat, status: "lobby",
        yourMove: false, turn: "waiting for players", version: r.version, latest: r.version });
    } else if (myRooms.get(this.code)) myRooms.remove(this.code);
  },

  /** The seats panel before the start: who sits where, the buttons each seat offers me (sit,
   * a bot and its level for the host, ready, stand up, kick) and the host's Start. */
  lobby() {
    const r = this.room;
    const me = this.me;
    const host = me && r.host === me.id;
    const mySeat = me ? r.seats.find((s) => s.user === me.id) : null;
    const levels = ["heuristic", "random"];
    const seats = r.seats.map((s) => {
      const isMe = me && s.user === me.id;
      const actions = [];
      if (!s.user && !s.bot) {
        actions.push(h("button", { type: "button", dataset: { key: `sit-${s.seat}` },
          onclick: () => this.conn.send({ type: "sit", seat: s.seat }) }, mySeat ? t("room.move_here") : t("room.sit_here")));
        if (host) {
          // The level chosen survives redraws (another player sitting down redraws the seats).
          const chosen = this.botLevels[s.seat] || levels[0];
          const select = h("select", { "aria-label": t("room.bot_level_for", { n: s.seat + 1 }), dataset: { key: `lvl-${s.seat}` },
            onchange: (ev) => { this.botLevels[s.seat] = ev.target.value; } },
          levels.map((l) => h("option", { value: l, selected: l === chosen }, t(`room.level.${l}`))));
          actions.push(select, h("button", { type: "button", class: "secondary", dataset: { key: `bot-${s.seat}` },
            onclick: () => this.conn.send({ type: "add_bot", seat: s.seat, level: select.value }) }, t("room.add_bot")));
        }
      } else if (s.bot) {
        if (host) actions.push(h("button", { type: "button", class: "danger", dataset: { key: `unbot-${s.seat}` },
          onclick: () => this.conn.send({ type: "remove_bot", seat: s.seat }) }, t("room.remove_bot")));
      } else if (isMe) {
        actions.push(h("button", { type: "button", dataset: { key: "ready" }, "aria-pressed": s.ready ? "true" : "false",
          onclick: () => this.sendReady(!s.ready) }, s.ready ? t("room.ready_undo") : t("room.im_ready")));
        actions.push(h("button", { type: "button", class: "secondary", dataset: { key: "stand" },
          onclick: () => this.conn.send({ type: "stand" }) }, t("room.stand_up")));
      } else if (host) {
        actions.push(h("button", { type: "button", class: "danger", dataset: { key: `kick-${s.seat}` },
          onclick: () => this.conn.send({ type: "kick", seat: s.seat }) }, t("room.kick")));
      }
      const who = s.bot ? nameNode(s.name || t("room.bot_named", { level: t(`room.level.${s.bot}`) }), s)
        : s.owner ? t("room.bot_of", { name: s.name, owner: s.owner.name }) : s.user ? s.name : t("room.empty");
      const state = s.bot ? t("room.ready") : s.user ? (s.ready ? t("room.ready_check") : t("room.not_ready")) : "";
      return h("li", { class: [isMe && "me"], dataset: { seat: String(s.seat), bot: s.bot || null } },
        h("div", { class: "seat-head" }, h("strong", {}, t("common.seat", { n: s.seat + 1 })),
          h("span", { class: "small" }, state, s.user && !s.bot && (isMe ? this.connState !== "open" : s.connected === false) ? ` · ${t("room.offline")}` : "")),
        h("div", { class: "seat-who" }, who, r.host && s.user === r.host ? ` (${t("room.host")})` : "", isMe ? ` — ${t("common.you")}` : ""),
        h("div", { class: "actions" }, actions));
    });
    const everyone = r.seats.every((s) => s.user || s.bot) && r.seats.every((s) => s.bot || s.ready);
    const opts = r.options || {};
    const deadlines = r.deadlines && Object.keys(r.deadlines).length
      ? Object.entries(r.deadlines).map(([k, v]) => t("room.deadline_item", { what: t(`room.deadline.${k}`), s: v })).join(", ") : t("room.deadlines_none");
    return h("section", { class: "panel", "aria-label": t("room.seats_aria") },
      h("h2", {}, t("room.seats")),
      h("p", { class: "small muted" },
        `${t("room.players_count", { count: r.players })} · ${opts.rounds === undefined ? "" : `${t("room.rounds_count", { count: opts.rounds })} · `}${r.public ? t("room.public") : t("room.private")} · `,
        `${r.spectators ? t("room.spectators_allowed") : t("room.spectators_not_allowed")} · ${t("room.deadlines", { deadlines })}`,
        r.takeback ? ` · ${t("room.takeback_allowed")}` : "",
        r.absent ? ` · ${r.absent === "bot" ? t("room.absent_bot") : t("room.absent_default")}` : ""),
      h("ol", { class: "seats" }, seats),
      h("div", { class: "row", style: null },
        host ? h("button", { type: "button", dataset: { key: "start" }, disabled: !everyone,
          onclick: () => this.conn.send({ type: "start" }) }, t("room.start")) : null,
        host && !everyone ? h("span", { class: "small muted" }, t("room.start_needs")) : null,
        !host ? h("span", { class: "small muted" }, t("room.host_starts")) : null));
  },

  invitePanel() {
    const link = this.room.invite && /^https?:/.test(this.room.invite) ? this.room.invite : `${location.origin}/r/${this.code}`;
    const input = h("input", { type: "text", readonly: true, value: link, id: "invite", "aria-label": t("room.invite_link") });
    const status = h("span", { class: "small", role: "status" });
    return h("section", { class: "panel", "aria-label": t("room.invite_aria") },
      h("h2", {}, t("room.invite")),
      h("p", { class: "small" }, t("room.invite_text", { code: groupCode(this.code) })),
      h("div", { class: "row" }, input,
        h("button", { type: "button", class: "secondary", dataset: { key: "copy" }, onclick: async () => {
          try {
            await navigator.clipboard.writeText(link);
            status.textContent = t("room.copied");
          } catch {
            input.select();
            status.textContent = t("room.press_copy");
          }
        } }, t("room.copy_link")), status),
      this.seat !== null || (this.room.seats || []).some((x) => this.me && x.user === this.me.id) ? this.notifyControl() : null,
      this.view && !this.room.seed ? this.contributionLine() : null);
  },
};
