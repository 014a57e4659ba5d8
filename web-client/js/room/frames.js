// What the server's frames do to a room's state: a snapshot (a join, a reload), each event
// (a move, the start, an abandon, a take-back), a resume, presence, the room's summary and
// the errors. Methods of RoomPage (page.js mixes them in).

import { announce } from "../dom.js";
import { errorText, t } from "../i18n.js";
import * as sealing from "../seal.js";
import { endings } from "../store.js";
import { noteCommitment } from "../seeding.js";
import { heads } from "../chain.js";

export const frames = {
  onSnapshot(msg) {
    this.joined = true;
    this.dropHold();
    this.takeRoomState(msg);
    if (msg.role) this.as = msg.role;
    this.version = msg.version ?? this.version;
    heads.put(this.code, msg.version, msg.head);  // the chain's head: what this browser saw
    this.view = msg.view || null;
    this.moveDeadline = msg.deadline ?? null;
    this.seat = msg.seat ?? (this.view ? this.view.seat : null) ?? null;
    if (msg.presence) this.onPresence(msg.presence, false);
    if (Array.isArray(msg.chat)) this.takeChat(msg.chat);
    this.takeStanding(msg.announce);
    this.takeback = null;
    this.autoSit();
    this.rememberLobbySeat();
    this.loadGame();
    const sealed = msg.sealed || msg.seal || null;
    this.seal = null;
    if (sealed) this.onSealed(sealed, false);
    else this.afterView();
    this.render();
  },

  onEvent(msg) {
    if (this.version !== null && msg.version <= this.version) return;
    if (this.version !== null && msg.version > this.version + 1) {
      this.conn.send({ type: "resume", room: this.code, version: this.version, as: this.as });
      return;
    }
    const previous = this.view;
    this.version = msg.version;
    heads.put(this.code, msg.version, msg.head);
    this.view = msg.view;
    this.moveDeadline = msg.deadline ?? null;
    if (msg.seat !== undefined && msg.seat !== null) this.seat = msg.seat;
    else if (this.view) this.seat = this.view.seat;
    const ev = msg.event || {};
    this.takeback = this.mayTakeBack(ev, previous) ? msg.version : null;
    if (this.room) {
      if (ev.status) this.room.status = ev.status;
      if (ev.seed) this.room.seed = ev.seed;
      if (ev.seed_digest) this.room.seed_digest = ev.seed_digest;
      if (ev.contributions) this.room.contributions = ev.contributions;
      if (ev.server_seed) this.room.server_seed = ev.server_seed;
      if (ev.game_id) this.room.game_id = ev.game_id;
      if (ev.reason) this.room.reason = ev.reason;
      this.room.version = msg.version;
    }
    const proxies = ev.proxies || [];
    const timeouts = (ev.defaults || []).filter((s) => !proxies.includes(s));
    if (ev.kind === "abandon") {
      this.endReason = ev.reason || null;
      if (this.endReason) endings.set(this.code, this.endReason);
      this.confirmEnd = false;
      this.ending = false;
      this.takeback = null;
      sealing.forget(this.code);  // a sealed bid in progress ends unrevealed
      announce(this.endedText());
    } else if (ev.kind === "takeback") {
      const mine = (ev.seats || []).includes(this.seat);
      const who = (ev.seats || []).filter((s) => s !== this.seat).map((s) => this.name(s)).join(", ");
      const text = mine ? t("room.took_back_yours") : t("room.took_back", { who: who || t("common.a_player") });
      this.flash(text, "note");
      announce(text);
    } else if (proxies.length) {
      const who = proxies.map((s) => this.name(s)).join(", ");
      const by = this.room && this.room.absent === "default" ? t("room.by_default") : t("room.by_bot");
      this.flash(ev.kind === "reveal" ? t("room.proxy_bid", { who, by })
        : t("room.proxy_move", { who, by }), "note");
    } else if (timeouts.length) {
      const who = timeouts.map((s) => this.name(s)).join(", ");
      this.flash(ev.kind === "reveal" ? t("room.default_bid", { who })
        : t("room.default_move", { who }), "note");
    }
    if (!this.view || !this.view.prompt || !this.view.prompt.sealed || this.ended) this.seal = null;
    if (this.game && this.game.viewChanged) this.game.viewChanged(this.ctx());
    this.sending = false;
    const hold = this.game && this.game.hold && !this.ended ? this.game.hold(previous, this.view, ev, (s) => this.name(s)) : null;
    if (hold) this.startHold(hold);
    this.afterView();
    this.render();
  },

  /** The room summary and the seed fields that come with snapshots, rooms and resumes. */
  takeRoomState(msg) {
    const summary = msg.room_state || (typeof msg.room === "object" ? msg.room : null);
    if (summary) this.room = { ...summary, seed: summary.seed || (this.room && this.room.seed) || null };
    if (summary) this.paused = !!summary.paused;
    if (!this.room) return;
    if (msg.seed_digest) this.room.seed_digest = msg.seed_digest;
    if (msg.seed) this.room.seed = msg.seed;
    noteCommitment(this.code, this.room.seed_commitment);
    if (this.room.reason) this.endReason = this.room.reason;  // the server's word wins
  },

  onResumed(msg) {
    this.takeRoomState(msg);
    if (msg.seat !== undefined) this.seat = msg.seat;
    this.version = Math.max(this.version ?? 0, msg.version ?? 0);
    heads.put(this.code, msg.version, msg.head);
    if (msg.deadline !== undefined) this.moveDeadline = msg.deadline;
    if (Array.isArray(msg.chat)) this.takeChat(msg.chat);
    this.takeStanding(msg.announce);
    this.afterView();
    this.render();
  },

  onPresence(msg, render = true) {
    const data = msg.data || msg;
    if (Array.isArray(data.connected)) this.connected = new Set(data.connected);
    if (typeof data.watchers === "number") this.watchers = data.watchers;
    if (Array.isArray(data.away)) this.away = new Set(data.away);
    // Seats a slow game waits for: their player was told by a push (PROTOCOL.md, "Absent players").
    if (Array.isArray(data.held)) this.waiting = new Set(data.held);
    if (render) this.render();
  },

  onRoom(msg) {
    this.takeRoomState(msg);
    this.rememberLobbySeat();
    if (this.me && this.room && !this.view) {
      const mine = this.room.seats.find((s) => s.user === this.me.id);
      this.seat = mine ? mine.seat : null;
    }
    this.render();
  },

  onError(msg) {
    this.sending = false;
    const code = msg.code;
    if (this.ending) {
      this.ending = false;
      this.confirmEnd = false;
      const why = {
        "not-host": t("room.end.not-host"),
        "game-over": t("room.end.game-over"),
        "game-not-started": t("error.game-not-started"),
      }[code];
      if (why) {
        this.flash(why);
        return;
      }
    }
    if (code === "not-a-player" && this.as === "player" && !this.joined) {
      this.as = "spectator";
      this.conn.send({ type: "join", room: this.code, as: "spectator" });
      return;
    }
    if (code === "no-spectators" && !this.joined) {
      this.closedToSpectators = true;
      this.conn.close();
      this.render();
      return;
    }
    if (code === "banned-from-room") {
      this.removed = { ban: true, reason: (this.removed && this.removed.reason) || "" };
      if (this.conn) this.conn.close();
      this.render();
      return;
    }
    if (code === "banned") {
      this.removed = { site: true, reason: "" };
      this.render();
      return;
    }
    if (code === "no-such-room") {
      this.notFound = true;
      this.render();
      return;
    }
    if (code === "rate-limited" && msg.room === this.code && Number(msg.retry_after_ms) > 0) {
      // A join or resume the server prices refused it for now: ask again when it said.
      clearTimeout(this.entryTimer);
      this.entryTimer = setTimeout(() => this.onOpen(), Number(msg.retry_after_ms) + Math.random() * 250);
      return;
    }
    if (code === "stale-version" || code === "bad-version") {
      this.conn.send({ type: "resume", room: this.code, version: this.version ?? 0, as: this.as });
    }
    if (code === "already-committed" || code === "already-revealed") return;
    if (code && code.startsWith("takeback-")) {
      this.takeback = null;
      const why = {
        "takeback-too-late": t("room.takeback.too-late"),
        "takeback-reveals": t("room.takeback.reveals"),
        "takeback-not-yours": t("room.takeback.not-yours"),
        "takeback-off": t("room.takeback.off"),
      }[code];
      this.flash(why || errorText(msg));
      return;
    }
    this.flash(errorText(msg));
  },
};
