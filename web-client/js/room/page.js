// A room: the seats before the start, then the table, then the final scores -- or, when the
// host ends the game (or nobody plays for a long time), the abandoned table: scores so far,
// the revealed seed, no more moves.
//
// The server is the authority: this page shows the view its seat receives and sends what
// the player chooses among view.legal. This is the game-independent shell: RoomPage holds the
// room's state, follows the socket (conn.js) and draws the page; each part of the room's life
// is a module of this folder whose methods are mixed into RoomPage (each names what it does:
// frames.js, seats.js, sealed.js, moves.js, my-turn.js, held.js, clock.js, chat.js,
// operators.js, verify.js, game-end.js). The table itself is drawn by the game's module
// (games/registry.js; the contract is docs/CLIENT.md).

import { api } from "../api.js";
import { ChatPanel } from "../chat.js";
import { groupCode } from "../codes.js";
import { Connection } from "../conn.js";
import { h, replaceChildren } from "../dom.js";
import { gameModule } from "../games/registry.js";
import { gameTitle, t } from "../i18n.js";
import { nameNode } from "../names.js";
import * as sealing from "../seal.js";
import * as sounds from "../sounds.js";
import { chatFolded, endings, HOLD_SPEEDS, holdSpeed, identity } from "../store.js";
import { nameForm, setConnState, setWho } from "../ui.js";
import { chat } from "./chat.js";
import { clock } from "./clock.js";
import { frames } from "./frames.js";
import { gameEnd } from "./game-end.js";
import { HELD_TYPES, heldMoments } from "./held.js";
import { myTurn } from "./my-turn.js";
import { openMoves } from "./moves.js";
import { operators } from "./operators.js";
import { sealedMoves } from "./sealed.js";
import { beforeStart } from "./seats.js";
import { verification } from "./verify.js";

export class RoomPage {
  constructor(el, code) {
    this.el = el;
    this.code = code;
    this.room = null;
    this.version = null;
    this.view = null;
    this.seat = null;
    this.as = "player";
    this.seal = null;
    this.revealCheck = null;
    this.chat = [];
    this.announcements = []; // from the site's operators (announce frames), newest last
    this.connected = null;
    this.away = null;
    this.waiting = null;  // seats a slow game waits for (presence.held)
    this.watchers = 0;
    this.game = null;  // the game's client module (games/registry.js)
    this.noClient = false;  // the server has this game, this client has no table for it
    this.botLevels = {};  // seat -> the bot level the host chose there (before adding it)
    this.connState = null;  // my socket: "open", "reconnecting", ...
    this.ui = {};  // the game module's own state between renders (a chosen bid, a dialog)
    this.sending = false;
    this.held = null;  // a moment the module holds on screen: {ms, at, ...}; later frames queue
    this.queue = [];
    this.error = null;
    this.verify = null;
    this.verifying = false;
    this.gameCheck = null;  // "Check this game": {state: "running" | "ok" | "bad" | ...}
    this.moveDeadline = null;
    this.paused = false; // an operator stopped the clocks (a `paused` frame; `unpaused` ends it)
    this.takeback = null;  // the version of my own open move that I may still take back
    this.wasMyMove = false;
    this.joined = false;
    this.notFound = false;
    this.confirmEnd = false;  // the host clicked "End game…": ask before ending it for everyone
    this.ending = false;  // the abandon message is on its way
    this.endReason = endings.get(code);  // "host" or "idle" once abandoned (the event says)
    this.archived = null;  // null: not looked up; "checking"; true/false: the archive has it
    this.record = null;  // the game over as the archive has it (GET /api/history/games/{id})
    this.roundHistory = null;  // a chart's history from the archive's replay (replayScores)
    this.start();
  }

  /** The game was abandoned: nothing more is played (the server refuses it with game-over). */
  get ended() {
    return !!(this.room && this.room.status === "abandoned");
  }

  /** The room's game title in the player's language. */
  roomTitle() {
    const r = this.room;
    if (!r) return t("room.room_word");
    return gameTitle(r.game, r.title || (this.game ? this.game.title(r.game) : r.game));
  }

  /** A seat's name as the table shows it (the module may name seats of its own, e.g. a ghost). */
  name(seat) {
    const named = this.game && this.game.seatName ? this.game.seatName(this.room, this.view, seat) : null;
    if (named) return named;
    const s = this.room && this.room.seats && this.room.seats[seat];
    return (s && s.name) || t("common.seat", { n: seat + 1 });
  }

  /** The seats with a socket here; my own seat is online exactly while my socket is open
   * (a presence message may predate my (re)join). */
  connectedSeats() {
    if (!this.connected) return null;
    const seats = new Set(this.connected);
    if (this.seat !== null) {
      if (this.connState === "open") seats.add(this.seat);
      else seats.delete(this.seat);
    }
    return seats;
  }

  /** A seat's name with the bot mark and level (names.js). */
  nameNode(seat) {
    return nameNode(this.name(seat), this.room && this.room.seats && this.room.seats[seat]);
  }

  /** Load the game's client module once the room's game is known. */
  async loadGame() {
    if (this.game || this.noClient || !this.room) return;
    this.game = await gameModule(this.room.game);
    if (!this.game) this.noClient = true;
    this.afterView();
    this.render();
  }

  get me() {
    const id = identity.get();
    return id ? id.user : null;
  }

  async start() {
    let id = identity.get();
    if (!id) {
      id = await nameForm(this.el, { intro: t("room.invited", { code: groupCode(this.code) }) });
    }
    try {
      this.room = await api.room(this.code);
      if (this.room.reason) this.endReason = this.room.reason;
      await this.loadGame();
    } catch (err) {
      if (err.status === 404) {
        this.notFound = true;
        this.render();
        return;
      }
      if (err.status === 401) {
        identity.clear();
        setWho();
        this.start();
        return;
      }
    }
    const mine = this.room && this.room.seats.find((s) => s.user === id.user.id);
    this.as = !this.room || this.room.status === "lobby" || mine ? "player" : "spectator";
    this.conn = new Connection(id.token, {
      room: this.code,
      onopen: () => this.onOpen(),
      onmessage: (m) => this.onMessage(m),
      onstate: (s) => { this.connState = s; setConnState(s); this.renderSoon(); },
      onbadtoken: () => {
        identity.clearIf(this.conn && this.conn.token);
        setWho();
        this.flash(t("room.signin_expired"));
        this.conn = null;
        this.start();
      },
      onbanned: () => { this.removed = { site: true, reason: this.removed && this.removed.reason }; this.render(); },
    });
    this.ticker = setInterval(() => this.tick(), 1000);
    document.addEventListener("keydown", (ev) => this.onKey(ev));
    // A click anywhere goes on at once from a held moment; a click on a control does what
    // it says (held.js).
    document.addEventListener("click", (ev) => this.clickDuringHold(ev), true);
    document.addEventListener("pointerdown", (ev) => this.pressDuringHold(ev), true);
    this.render();
  }

  // -- the socket ----------------------------------------------------------------------------
  onOpen() {
    if (this.version !== null && this.joined) {
      this.conn.send({ type: "resume", room: this.code, version: this.version, as: this.as });
    } else {
      this.conn.send({ type: "join", room: this.code, as: this.as });
    }
  }

  onMessage(msg) {
    if (msg.room && typeof msg.room === "string" && msg.room !== this.code && msg.type !== "rooms") return;
    if (this.held && HELD_TYPES.has(msg.type)) {
      this.queue.push(msg);
      return;
    }
    const handler = {
      snapshot: () => this.onSnapshot(msg),
      event: () => this.onEvent(msg),
      sealed: () => this.onSealed(msg),
      committed: () => this.onCommitted(msg),
      open: () => this.onOpenPhase(msg),
      revealed: () => this.onRevealed(msg),
      presence: () => this.onPresence(msg),
      chat: () => this.onChat(msg),
      announce: () => this.onAnnounce(msg),
      unannounce: () => { this.announcements = []; this.render(); },
      chat_hidden: () => this.onChatHidden(msg),
      replaced: () => this.onReplaced(msg),
      kicked: () => this.onKicked(msg),
      inspected: () => this.onInspected(msg),
      deadline: () => this.onDeadline(msg),
      paused: () => { this.paused = true; this.onAnnounce({ text: t("room.paused") }); },
      unpaused: () => { this.paused = false; this.onDeadline(msg, "room.unpaused"); },
      room: () => this.onRoom(msg),
      resumed: () => this.onResumed(msg),
      error: () => this.onError(msg),
    }[msg.type];
    if (handler) handler();
  }

  flash(text, kind = "error") {
    this.error = { text, kind };
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => { this.error = null; this.render(); }, 6000);
    this.render();
  }

  // -- drawing -------------------------------------------------------------------------------
  renderSoon() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = null; this.render(); });
  }

  /** The page: a body redrawn at every change, and below it the invite and the chat, which
   * stay in the document (a message being typed is never touched). */
  frame() {
    if (!this.bodyEl) {
      this.bodyEl = h("div", { class: "room-body" });
      this.inviteEl = h("div", { class: "invite-slot" });
      this.chatBox = new ChatPanel((text) => this.conn && this.conn.send({ type: "chat", text }));
      this.bottomEl = h("div", { class: "grid2 room-bottom" }, this.inviteEl, this.chatBox.el);
    }
    if (this.bodyEl.parentNode !== this.el) replaceChildren(this.el, this.bodyEl, this.bottomEl);
    return this.bodyEl;
  }

  render() {
    const body = this.frame();
    const bottom = !!(this.room && !this.notFound && !this.closedToSpectators && !this.removed);
    this.bottomEl.hidden = !bottom;
    // At the table the chat stands beside it on a wide screen (every game); a game whose
    // deals are table talk (Pearates) also keeps it in sight at the bottom of a phone's.
    this.el.classList.toggle("table-side", !!(bottom && this.view && this.game));
    const talk = !!(bottom && this.view && this.game && this.game.tableTalk);
    this.el.classList.toggle("table-talk", talk);
    if (talk && !this.talkFolded) {
      // Pinned over a phone's table, the chat starts folded to its heading (open, it hid
      // the table under it), unless the player chose in this browser before.
      this.talkFolded = true;
      if (!chatFolded.chosen() && matchMedia("(max-width: 999px)").matches) this.chatBox.fold(true, { keep: true });
    }
    if (bottom) {
      // Once the game is over there is nobody left to invite to it.
      const over = this.ended || (this.view && this.view.phase === "over");
      this.inviteEl.hidden = over;
      if (!over) replaceChildren(this.inviteEl, this.invitePanel());
      this.chatBox.update(this.chat);
    }
    if (this.notFound) {
      replaceChildren(body, h("div", { class: "panel" },
        h("h1", {}, t("room.no_such_room")),
        h("p", {}, t("room.no_such_room_text", { code: groupCode(this.code) })),
        h("p", {}, h("a", { href: "/" }, t("common.back_to_lobby")))));
      return;
    }
    if (this.removed) {
      replaceChildren(body, h("div", { class: "panel removed", role: "alert" },
        h("h1", {}, `${this.roomTitle()} ${groupCode(this.code)}`),
        h("p", {}, this.removedText()),
        this.removed.reason ? h("p", {}, h("strong", {}, t("room.removed_reason")), " ", this.removed.reason) : null,
        h("p", {}, h("a", { href: "/" }, t("common.back_to_lobby")))));
      return;
    }
    if (this.closedToSpectators) {
      replaceChildren(body, h("div", { class: "panel" },
        h("h1", {}, `${this.roomTitle()} ${groupCode(this.code)}`),
        h("p", { role: "alert" }, t("room.no_spectators")),
        h("p", {}, h("a", { href: "/" }, t("common.back_to_lobby")))));
      return;
    }
    if (!this.room) {
      replaceChildren(body, h("p", { class: "muted" }, t("room.joining")));
      return;
    }
    const parts = [this.header()];
    const banner = this.announcementBanner();
    if (banner) parts.push(banner);
    const looked = this.inspectedNotice();
    if (looked) parts.push(looked);
    if (this.error) {
      parts.push(h("p", { class: this.error.kind === "note" ? "note" : "error-box", role: "alert" }, this.error.text));
    }
    if (this.view && this.noClient) {
      parts.push(h("p", { class: "note" }, t("replay.no_client")));
    } else if (this.view && !this.game) {
      parts.push(h("p", { class: "muted" }, t("room.loading_table")));
    } else if (this.view) {
      if (this.ended) parts.push(this.abandonedPanel());
      else if (this.view.phase === "over") parts.push(this.gameOver());
      parts.push(this.table());
      if (this.game.sheet) parts.push(this.game.sheet(this.ctx()));
    } else {
      parts.push(this.lobby());
    }
    replaceChildren(body, parts);
  }

  /** What the shell gives the game module at every render (docs/CLIENT.md). */
  ctx() {
    const c = this.clockText();
    // An abandoned game is frozen where it stopped: nobody owes anything, nothing is legal.
    const view = this.ended && this.view ? { ...this.view, legal: [], prompt: null } : this.view;
    const seal = this.ended ? null : this.seal;
    const stored = seal && this.seat !== null ? sealing.load(this.code, seal.phase) : null;
    return {
      view, room: this.room, seat: this.seat, seal, held: this.held,
      // (once revealed, my move is the opening's: the stored seal is forgotten then)
      sealedMove: stored && stored.seat === this.seat ? stored.move
        : seal && seal.opened && this.seat !== null ? seal.opened[this.seat] ?? null : null,
      connected: this.connectedSeats(), away: this.away, waiting: this.waiting, busy: this.sending,
      ended: this.ended ? this.endedText() : null,
      clock: c ? h("span", { class: ["clock", c.low && "low"], "aria-label": c.text }, c.text) : null,
      notes: [this.revealNote()].filter(Boolean),
      controls: [this.takeBackRow()].filter(Boolean),
      ui: this.ui,
      name: (s) => this.name(s),
      act: (move) => this.act(move),
      commit: (move) => this.commitSealed(move),
      rerender: () => this.render(),
      focus: (selector) => {
        const el = this.el.querySelector(selector);
        if (el) el.focus();
      },
    };
  }

  endedText() {
    return {
      host: t("room.ended.host"),
      idle: t("room.ended.idle"),
      admin: t("room.ended.admin"),
    }[this.endReason] || t("room.ended.other");
  }

  header() {
    const r = this.room;
    const status = ["lobby", "playing", "finished", "abandoned"].includes(r.status) ? t(`lobby.status.${r.status}`) : r.status;
    const spectating = this.view && this.seat === null;
    return h("div", { class: "row room-head" },
      h("h1", {}, `${this.roomTitle()} — ${t("room.room")} `, h("span", { class: "code" }, groupCode(this.code))),
      h("span", { class: "badge" }, status),
      spectating ? h("span", { class: "badge", dataset: { role: "spectator" } }, t("room.watching")) : null,
      h("span", { class: "badge", dataset: { spectators: String(this.watchers) } },
        t("room.spectators", { count: this.watchers })),
      h("a", { href: `/rules/${r.game}`, class: "small" }, t("landing.rules")),
      // On a phone the words give way to a note, ♪ (app.css); they stay the box's name.
      h("label", { class: "check small sound-toggle", title: t("room.sounds") },
        h("input", { type: "checkbox", checked: sounds.enabled(), dataset: { key: "sounds" },
          onchange: (ev) => { sounds.setEnabled(ev.target.checked); this.render(); } }),
        h("span", { class: "sound-icon", "aria-hidden": "true" }, "♪"),
        h("span", { class: "sound-words" }, t("room.sounds"))),
      this.holdSpeedButton());
  }

  /** How long moments are held (store.js holdSpeed): each click gives the next choice. A
   * button, not a list: the header is redrawn at every frame, which would close a list. */
  holdSpeedButton() {
    const speed = holdSpeed.get();
    const order = Object.keys(HOLD_SPEEDS);
    const next = order[(order.indexOf(speed) + 1) % order.length];
    return h("button", { type: "button", class: "secondary small hold-speed", dataset: { key: "hold-speed", speed },
      title: t("room.hold.hint"),
      onclick: () => {
        holdSpeed.set(next);
        if (next === "off" && this.held) this.endHold();
        this.render();
      } },
      // On a phone: a clock and the choice (app.css); the full words stay the button's name.
      h("span", { class: "hold-short", "aria-hidden": "true" }, `◷ ${t(`room.hold.${speed}`)}`),
      h("span", { class: "hold-words" }, t("room.hold.speed", { speed: t(`room.hold.${speed}`) })));
  }

  /** The table, drawn by the game module; the shell adds the seal check and the take-back. */
  table() {
    const v = this.view;
    return h("section", { class: "table-area", "aria-label": t("common.the_table"), dataset: { phase: v.phase, round: v.round === undefined ? null : String(v.round) } },
      this.game.table(this.ctx()), this.standInControl(), this.endControl());
  }
}

// The room's life, one module per part (each a set of RoomPage methods sharing its state).
Object.assign(RoomPage.prototype, frames, beforeStart, sealedMoves, openMoves, myTurn,
  heldMoments, clock, chat, operators, verification, gameEnd);
