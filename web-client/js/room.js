// A room: the seats before the start, then the table, then the final scores -- or, when the
// host ends the game (or nobody plays for a long time), the abandoned table: scores so far,
// the revealed seed, no more moves.
//
// The server is the authority: this page shows the view its seat receives and sends what
// the player chooses among view.legal. This is the game-independent shell: the room's life,
// the seats, sealed phases (seal.js: commit, then reveal), reconnecting, deadlines, chat,
// invite, notifications, the game over frame. The table itself is drawn by the game's module
// (games/registry.js; the contract is docs/CLIENT.md).

import { api } from "./api.js";
import { scoreChart } from "./chart.js";
import { ChatPanel } from "./chat.js";
import { groupCode } from "./codes.js";
import { Connection } from "./conn.js";
import { announce, h, replaceChildren } from "./dom.js";
import { gameModule } from "./games/registry.js";
import { errorText, gameTitle, t } from "./i18n.js";
import { NAME, nameNode, placeName } from "./names.js";
import * as sealing from "./seal.js";
import * as sounds from "./sounds.js";
import { endings, identity, myRooms, notifyPref, seenDeals } from "./store.js";
import { checkDerivation, contributionFor, mineIsIn, noteCommitment } from "./seeding.js";
import { nameForm, setConnState, setWho } from "./ui.js";

const BASE_TITLE = "Tortuga";
// Messages that wait while the table holds a moment (a finished trick) on screen, in order.
const HELD_TYPES = new Set(["event", "sealed", "committed", "open", "revealed", "resumed"]);

/** How long a held moment stays (the module's wish; a test may set tortuga.holdMs). */
function holdMs(wish) {
  const set = Number(localStorage.getItem("tortuga.holdMs"));
  return Number.isFinite(set) && set > 0 ? set : wish;
}

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
    this.start();
  }

  /** The game was abandoned: nothing more is played (the server refuses it with game-over). */
  get ended() {
    return !!(this.room && this.room.status === "abandoned");
  }

  /** A seat's name as the table shows it (the module may name seats of its own, e.g. a ghost). */
  /** The room's game title in the player's language. */
  roomTitle() {
    const r = this.room;
    if (!r) return t("room.room_word");
    return gameTitle(r.game, r.title || (this.game ? this.game.title(r.game) : r.game));
  }

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
    // A click anywhere goes on at once from a held moment. When frames were waiting, the
    // page under the click was out of date: the click only goes on.
    document.addEventListener("click", (ev) => {
      if (!this.held) return;
      const stale = this.queue.length > 0;
      this.endHold();
      if (stale) {
        ev.preventDefault();
        ev.stopPropagation();
      }
    }, true);
    this.render();
  }

  // -- the socket ------------------------------------------------------------------------
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
      inspected: () => this.onAnnounce({ text: t("room.inspected"), at: msg.at }),
      deadline: () => this.onDeadline(msg),
      paused: () => { this.paused = true; this.onAnnounce({ text: t("room.paused") }); },
      unpaused: () => { this.paused = false; this.onDeadline(msg, "room.unpaused"); },
      room: () => this.onRoom(msg),
      resumed: () => this.onResumed(msg),
      error: () => this.onError(msg),
    }[msg.type];
    if (handler) handler();
  }

  onSnapshot(msg) {
    this.joined = true;
    this.dropHold();
    this.takeRoomState(msg);
    if (msg.role) this.as = msg.role;
    this.version = msg.version ?? this.version;
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
  }

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
  }

  onEvent(msg) {
    if (this.version !== null && msg.version <= this.version) return;
    if (this.version !== null && msg.version > this.version + 1) {
      this.conn.send({ type: "resume", room: this.code, version: this.version, as: this.as });
      return;
    }
    const previous = this.view;
    this.version = msg.version;
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
  }

  // -- held moments ------------------------------------------------------------------------
  /** Keep what just happened (a finished trick) on screen; later frames wait in order. */
  startHold(hold) {
    clearTimeout(this.holdTimer);
    this.held = { ...hold, at: Date.now() };
    if (hold.text) announce(hold.text);
    if (hold.sound) sounds.play(hold.sound);
    this.holdTimer = setTimeout(() => this.endHold(), holdMs(hold.ms || 1500));
  }

  /** Go on: draw the frames that waited (until one of them holds again). */
  endHold() {
    clearTimeout(this.holdTimer);
    this.held = null;
    while (this.queue.length && !this.held) this.onMessage(this.queue.shift());
    this.render();
  }

  dropHold() {
    clearTimeout(this.holdTimer);
    this.held = null;
    this.queue = [];
  }

  /** Whether the event is my own open move that the room may let me take back (the server
   * decides: the button goes once the version moves on, and a refusal explains why). */
  mayTakeBack(ev, previous) {
    if (!this.room || !this.room.takeback || this.seat === null || ev.kind !== "move") return false;
    if (!(ev.seats || []).length || ev.seats.some((s) => s !== this.seat)) return false;
    if ((ev.defaults || []).length || (ev.proxies || []).length) return false;
    if (!ev.moves || !(String(this.seat) in ev.moves)) return false;
    // A move that revealed something stands (the module knows what its game reveals).
    return !!(this.game && this.game.mayTakeBack && this.game.mayTakeBack(previous, this.view));
  }

  takeBack() {
    if (this.takeback === null || this.sending) return;
    this.sending = true;
    this.conn.send({ type: "takeback", version: this.takeback });
    this.render();
  }

  /** The chat history a snapshot or a resume carries (the last messages, oldest first). */
  takeChat(list) {
    this.chat = list.map((m) => ({ id: m.id, name: m.name, text: m.text, at: m.at, user: m.user })).slice(-100);
  }

  /** The operators' standing announcement a snapshot or resume carries (or null): shown
   * again after a reload until it expires or is cleared. */
  takeStanding(standing) {
    if (standing === undefined) return;
    this.announcements = this.announcements.filter((a) => !a.standing);
    if (standing && typeof standing.text === "string" && !this.announcements.some((a) => a.text === standing.text)) {
      this.announcements.push({ text: standing.text, at: standing.at, until: standing.until, standing: true });
    }
  }

  /** An operator hid a chat message: it leaves the log. */
  onChatHidden(msg) {
    this.chat = this.chat.filter((m) => m.id !== msg.id);
    this.render();
  }

  /** An operator gave a seat to a bot: it plays that seat from now on. */
  onReplaced(msg) {
    const text = t("room.replaced", { seat: msg.seat + 1, name: msg.name || t("common.bot") });
    this.flash(text, "note");
    announce(text);
  }

  /** An operator took this player out of the room (and maybe banned them from it). */
  onKicked(msg) {
    this.removed = { ban: !!msg.ban, reason: msg.reason || "" };
    announce(this.removedText());
    if (this.conn) this.conn.close();
    this.render();
  }

  removedText() {
    const r = this.removed || {};
    if (r.site) return t("room.banned_site");
    return t(r.ban ? "room.banned_room" : "room.kicked");
  }

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
  }

  onResumed(msg) {
    this.takeRoomState(msg);
    if (msg.seat !== undefined) this.seat = msg.seat;
    this.version = Math.max(this.version ?? 0, msg.version ?? 0);
    if (msg.deadline !== undefined) this.moveDeadline = msg.deadline;
    if (Array.isArray(msg.chat)) this.takeChat(msg.chat);
    this.takeStanding(msg.announce);
    this.afterView();
    this.render();
  }

  onSealed(msg, render = true) {
    if (this.ended) {
      this.seal = null;
      if (render) this.render();
      return;
    }
    const same = this.seal && this.seal.phase === msg.phase;
    this.seal = {
      phase: msg.phase,
      version: msg.version,
      kind: msg.kind,
      seats: msg.seats || [],
      committed: { ...(same ? this.seal.committed : {}), ...(msg.committed || {}) },
      open: !!msg.open,
      revealed: msg.revealed || [],
      opened: null,
      commit_by: msg.commit_by ?? null,
      open_by: msg.open_by ?? null,
    };
    if (!same) this.ui = {};
    this.afterView();
    this.syncSeal();
    if (render) this.render();
  }

  onCommitted(msg) {
    if (!this.seal || this.seal.phase !== msg.phase) return;
    this.seal.committed[msg.seat] = msg.digest || true;
    if (msg.seat === this.seat) this.sending = false;
    this.render();
  }

  onOpenPhase(msg) {
    if (!this.seal || this.seal.phase !== msg.phase) return;
    this.seal.open = true;
    this.seal.open_by = msg.open_by ?? null;
    this.syncSeal();
    this.render();
  }

  async onRevealed(msg) {
    const committed = this.seal && this.seal.phase === msg.phase ? this.seal.committed : {};
    const opened = msg.opened || msg.moves || {};
    const salts = msg.salts || {};
    // Every opening is checked against the digest published when its seat committed. A seat
    // whose time ran out before it committed has no digest (the "default" marker) and no salt:
    // the engine's default was played for it, which the revealed message flags.
    const bad = [];
    let checked = 0;
    for (const [seat, move] of Object.entries(opened)) {
      const expected = committed[seat];
      if (typeof expected !== "string" || !/^[0-9a-f]{64}$/.test(expected) || !salts[seat]) continue;
      checked += 1;
      if (!(await sealing.check(msg.phase, Number(seat), move, salts[seat], expected))) bad.push(Number(seat));
    }
    this.revealCheck = {
      phase: msg.phase, ok: bad.length === 0 && checked > 0, bad, checked, round: this.view && this.view.round,
    };

    const moves = msg.moves || {};
    if (this.seal && this.seal.phase === msg.phase) this.seal.opened = moves;
    sounds.play("reveal");
    const text = this.game && this.game.revealText ? this.game.revealText(this.ctx(), moves) : "";
    if (text) announce(text);
    sealing.forget(this.code, msg.phase);
    this.render();
  }

  onPresence(msg, render = true) {
    const data = msg.data || msg;
    if (Array.isArray(data.connected)) this.connected = new Set(data.connected);
    if (typeof data.watchers === "number") this.watchers = data.watchers;
    if (Array.isArray(data.away)) this.away = new Set(data.away);
    if (render) this.render();
  }

  onChat(msg) {
    const data = msg.data || msg;
    // A message may come both in a snapshot's history and live, around a (re)join.
    if (this.chat.some((m) => (data.id && m.id === data.id) || (m.at === data.at && m.user === data.user && m.text === data.text))) return;
    this.chat.push({ id: data.id, name: data.name, text: data.text, at: data.at, user: data.user });
    if (this.chat.length > 100) this.chat.shift();
    this.render();
  }

  /** An operator pushed the current deadline: the clock shows the new time. */
  onDeadline(msg, note = "room.extended") {
    if (typeof msg.deadline === "number") {
      if (msg.stage === "move") this.moveDeadline = msg.deadline;
      else if (this.seal && msg.stage === "reveal") this.seal.open_by = msg.deadline;
      else if (this.seal && msg.stage === "commit") this.seal.commit_by = msg.deadline;
    }
    this.onAnnounce({ text: t(note) });
  }

  /** A message from the site's operators: shown above the table until dismissed. */
  onAnnounce(msg) {
    if (typeof msg.text !== "string") return;
    if (this.announcements.some((a) => a.text === msg.text && a.at === msg.at)) return;
    this.announcements.push({ text: msg.text, at: msg.at, until: msg.until });
    if (this.announcements.length > 3) this.announcements.shift();
    this.render();
  }

  announcementBanner() {
    const now = Date.now();
    const shown = this.announcements.filter((a) => !(typeof a.until === "number" && a.until <= now));
    if (!shown.length) return null;
    return h("section", { class: "panel announce", role: "status", "aria-label": t("room.announce_aria") },
      shown.map((a) => h("p", {}, h("strong", {}, t("room.announce_from")), " ", a.text)),
      h("button", { type: "button", class: "small", onclick: () => { this.announcements = []; this.render(); } },
        t("room.announce_dismiss")));
  }

  /** Before the start: remember (or forget) this room in "my rooms" as the seat changes. */
  rememberLobbySeat() {
    const r = this.room;
    if (!r || r.status !== "lobby" || !this.me) return;
    const mine = r.seats.find((s) => s.user === this.me.id);
    if (mine) {
      myRooms.put(this.code, { game: r.game, title: r.title, seat: mine.seat, status: "lobby",
        yourMove: false, turn: "waiting for players", version: r.version, latest: r.version });
    } else if (myRooms.get(this.code)) myRooms.remove(this.code);
  }

  onRoom(msg) {
    this.takeRoomState(msg);
    this.rememberLobbySeat();
    if (this.me && this.room && !this.view) {
      const mine = this.room.seats.find((s) => s.user === this.me.id);
      this.seat = mine ? mine.seat : null;
    }
    this.render();
  }

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
  }

  // -- sealed phases ---------------------------------------------------------------------
  mySealSeat() {
    return this.seal && this.seat !== null && this.seal.seats.includes(this.seat);
  }

  /** After a reload or a reconnect: reveal (or re-commit) what this tab sealed before. */
  syncSeal() {
    if (!this.mySealSeat() || this.ended) return;
    const stored = sealing.load(this.code, this.seal.phase);
    if (!stored || stored.seat !== this.seat) return;
    const mine = this.seal.committed[this.seat];
    if (mine && typeof mine === "string" && mine !== stored.digest) return;  // not this tab's seal
    if (!mine && !this.seal.open) {
      this.conn.send({ type: "commit", phase: stored.phase, digest: stored.digest });
    } else if (this.seal.open && !this.seal.revealed.includes(this.seat)) {
      this.conn.send({ type: "reveal", phase: stored.phase, move: stored.move, salt: stored.salt });
      this.seal.revealed = [...this.seal.revealed, this.seat];
    }
  }

  /** Seal my move of the sealed phase: commit its digest now, reveal it once all committed. */
  async commitSealed(move) {
    if (!this.mySealSeat() || this.seal.committed[this.seat] || this.sending || this.ended) return;
    this.sending = true;
    const phase = this.seal.phase;
    const sealed = await sealing.seal(this.code, phase, this.seat, move);
    sealing.forget(this.code, null, { keep: phase });
    this.conn.send({ type: "commit", phase, digest: sealed.digest });
    announce(t("room.sealed_announce"));
    this.render();
  }

  // -- moves -----------------------------------------------------------------------------
  /** Send an open move (one of view.legal, chosen by the game module). */
  act(move) {
    if (this.sending || this.ended) return;
    this.sending = true;
    this.conn.send({ type: "act", move, version: this.version });
    this.render();
  }

  onKey(ev) {
    if (!this.view || !this.game || this.ended || ev.target.closest("input, textarea, select")) return;
    if (this.game.key && this.game.key(ev, this.ctx())) this.render();
  }

  // -- bookkeeping after every new view --------------------------------------------------------
  afterView() {
    const v = this.view;
    if (!v || !this.room || !this.game) return;
    const dealt = this.game.dealSeen ? this.game.dealSeen(v) : null;
    if (dealt) {
      seenDeals.record(this.code, {
        game: v.game, players: v.players, seat: v.seat, round: dealt.round,
        seen: dealt, seedDigest: this.room.seed_digest,
      });
    }
    if (this.ended) {
      // Off "my rooms" (the server drops it too); the seed is out: check the deals so far.
      myRooms.remove(this.code);
      this.wasMyMove = false;
      document.title = `${t("room.doc_ended", { title: this.roomTitle(), code: groupCode(this.code) })} — ${BASE_TITLE}`;
      this.runVerify();
      this.checkArchive();
      return;
    }
    const myMove = this.isMyMove();
    if (this.seat !== null && this.me) {
      const turn = v.phase === "over" ? "finished" : myMove ? "your move" : this.turnText();
      myRooms.put(this.code, {
        game: v.game, title: this.room.title || this.game.title(v.game), seat: this.seat,
        status: v.phase === "over" ? "finished" : "playing", yourMove: myMove, turn,
        round: v.round, rounds: v.rounds, version: this.version, latest: this.version,
      });
    }
    if (myMove && !this.wasMyMove) {
      this.notify();
      sounds.play("turn");
      this.bringTurnIntoView();
    }
    this.wasMyMove = myMove;
    document.title = myMove ? `▶ ${t("room.doc_your_move")} — ${BASE_TITLE}` : `${this.roomTitle()} ${groupCode(this.code)} — ${BASE_TITLE}`;
    if (v.phase === "over") this.runVerify();
  }

  /** My move began: once drawn, scroll what the module marked (data-turn-target: the bid
   * box, the hand) into view if it is off screen -- on a phone it is below the fold. */
  bringTurnIntoView() {
    requestAnimationFrame(() => {
      const el = this.el.querySelector("[data-turn-target]");
      if (!el) return;
      const r = el.getBoundingClientRect();
      if (r.top >= 0 && r.bottom <= window.innerHeight) return;
      const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
      el.scrollIntoView({ block: "nearest", behavior: still ? "auto" : "smooth" });
    });
  }

  /** Whether the prompt waits for my seat (in a sealed phase: until I committed). */
  isMyMove() {
    const v = this.view;
    if (!v || this.seat === null || this.ended || !v.prompt) return false;
    if (!(v.prompt.seats || []).includes(this.seat)) return false;
    if (v.prompt.sealed) return !!(this.mySealSeat() && !this.seal.committed[this.seat]);
    return true;
  }

  turnText() {
    return this.view && this.game ? this.game.turnText(this.ctx()) : "";
  }

  notify() {
    if (!notifyPref.get() || !("Notification" in window) || Notification.permission !== "granted") return;
    if (!document.hidden) return;
    try {
      const n = new Notification(t("room.notify_title"), {
        body: `${this.roomTitle()} ${groupCode(this.code)}`, tag: `tortuga-${this.code}`,
      });
      n.onclick = () => { window.focus(); n.close(); };
    } catch {
      /* some browsers only notify from a service worker */
    }
  }

  async runVerify() {
    if (this.verify || this.verifying || !this.room || !this.room.seed || !this.game) return;
    this.verifying = true;
    const seen = seenDeals.get(this.code);
    try {
      const rounds = {};
      if (seen) for (const [r, w] of Object.entries(seen.rounds)) rounds[r] = w;
      // The fingerprint this browser stored when it saw the deal, not the one the end brings.
      const seedDigest = (seen && seen.seedDigest) || this.room.seed_digest;
      this.verify = await this.game.verifyDeals({
        game: this.view.game, seedHex: this.room.seed, seedDigest,
        players: this.view.players, seat: seen ? seen.seat : this.seat, seen: rounds,
      });
      const derivation = await checkDerivation(this.code, this.room);
      if (!derivation.ok) this.verify = { ...this.verify, ok: false, error: derivation.message };
    } catch (err) {
      this.verify = { ok: false, error: err.message, rounds: [], checked: 0 };
    }
    this.verifying = false;
    this.render();
  }

  /** Whether the archive holds the abandoned game yet (the archiver stores it within
   * seconds; a site without a database never does): the replay link shows once it does. */
  async checkArchive() {
    const gameId = this.room && this.room.game_id;
    if (!gameId || this.archived !== null) return;
    this.archived = "checking";
    for (const wait of [0, 300, 600, 1000, 1500, 2000, 3000, 5000]) {
      if (wait) await new Promise((r) => setTimeout(r, wait));
      try {
        const record = await api.game(gameId);
        if (record && (record.status === "abandoned" || record.status === "finished")) {
          this.archived = true;
          this.render();
          return;
        }
      } catch (err) {
        if (err.status !== 404) break;  // no history API here, or it failed: no link
      }
    }
    this.archived = false;
    this.render();
  }

  // -- clocks ------------------------------------------------------------------------------
  /** The due time (epoch ms) of what the table waits for now, or null (no deadline). */
  deadline() {
    const v = this.view;
    if (!v || v.phase === "over" || this.ended) return null;
    let value = this.moveDeadline;
    if (v.prompt && v.prompt.sealed && this.seal) value = this.seal.open ? this.seal.open_by : this.seal.commit_by;
    if (value === undefined || value === null) return null;
    const t = typeof value === "number" ? (value < 1e12 ? value * 1000 : value) : Date.parse(value);
    return Number.isFinite(t) ? t : null;
  }

  clockText() {
    if (this.paused) return { text: t("room.clock_paused"), low: false };
    const due = this.deadline();
    if (!due) return null;
    const left = Math.max(0, Math.round((due - Date.now()) / 1000));
    const m = Math.floor(left / 60), s = left % 60;
    return { text: m >= 60 ? `${Math.floor(m / 60)}h ${m % 60}m` : `${m}:${String(s).padStart(2, "0")}`, low: left <= 10 };
  }

  tick() {
    const el = this.el.querySelector(".clock");
    const c = this.clockText();
    if (el && c) {
      el.textContent = t("room.time_left", { time: c.text });
      el.classList.toggle("low", c.low);
    }
  }

  flash(text, kind = "error") {
    this.error = { text, kind };
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => { this.error = null; this.render(); }, 6000);
    this.render();
  }

  // -- drawing -----------------------------------------------------------------------------
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
    // A game whose deals are table talk (Pearates) keeps the chat beside the table.
    this.el.classList.toggle("table-talk", !!(bottom && this.view && this.game && this.game.tableTalk));
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
      sealedMove: stored && stored.seat === this.seat ? stored.move : null,
      connected: this.connectedSeats(), away: this.away, busy: this.sending,
      ended: this.ended ? this.endedText() : null,
      clock: c ? h("span", { class: ["clock", c.low && "low"], "aria-label": t("room.time_left", { time: c.text }) }, t("room.time_left", { time: c.text })) : null,
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
    return h("div", { class: "row" },
      h("h1", {}, `${this.roomTitle()} — ${t("room.room")} `, h("span", { class: "code" }, groupCode(this.code))),
      h("span", { class: "badge" }, status),
      spectating ? h("span", { class: "badge", dataset: { role: "spectator" } }, t("room.watching")) : null,
      h("span", { class: "badge", dataset: { spectators: String(this.watchers) } },
        t("room.spectators", { count: this.watchers })),
      h("a", { href: `/rules/${r.game}`, class: "small" }, t("landing.rules")),
      h("label", { class: "check small sound-toggle" },
        h("input", { type: "checkbox", checked: sounds.enabled(), dataset: { key: "sounds" },
          onchange: (ev) => { sounds.setEnabled(ev.target.checked); this.render(); } }),
        t("room.sounds")));
  }

  // -- before the start ------------------------------------------------------------------------
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
          onclick: () => this.conn.send({ type: "ready", ready: !s.ready, entropy: contributionFor(this.code) }) }, s.ready ? t("room.ready_undo") : t("room.im_ready")));
        actions.push(h("button", { type: "button", class: "secondary", dataset: { key: "stand" },
          onclick: () => this.conn.send({ type: "stand" }) }, t("room.stand_up")));
      } else if (host) {
        actions.push(h("button", { type: "button", class: "danger", dataset: { key: `kick-${s.seat}` },
          onclick: () => this.conn.send({ type: "kick", seat: s.seat }) }, t("room.kick")));
      }
      const who = s.bot ? nameNode(s.name || t("room.bot_named", { level: t(`room.level.${s.bot}`) }), s) : s.user ? s.name : t("room.empty");
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
  }

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
  }

  notifyControl() {
    if (!("Notification" in window)) return null;
    const on = notifyPref.get() && Notification.permission === "granted";
    return h("label", { class: "check small" },
      h("input", { type: "checkbox", checked: on, dataset: { key: "notify" }, onchange: async (ev) => {
        if (ev.target.checked) {
          const p = await Notification.requestPermission();
          notifyPref.set(p === "granted");
        } else notifyPref.set(false);
        this.render();
      } }),
      t("room.notify_me"));
  }

  // -- the table ---------------------------------------------------------------------------------
  /** The table, drawn by the game module; the shell adds the seal check and the take-back. */
  table() {
    const v = this.view;
    return h("section", { class: "table-area", "aria-label": t("common.the_table"), dataset: { phase: v.phase, round: v.round === undefined ? null : String(v.round) } },
      this.game.table(this.ctx()), this.endControl());
  }

  /** Under the trick: whether the sealed moves just opened match their seals. */
  revealNote() {
    const c = this.revealCheck;
    const v = this.view;
    if (!c || !c.checked || v.round !== c.round || (v.prompt && v.prompt.sealed)) return null;
    return h("p", { class: "small", dataset: { check: c.ok ? "ok" : "bad" } },
      c.ok ? `✓ ${t("room.seals_ok", { count: c.checked })}`
        : `✗ ${t("room.seals_bad", { who: c.bad.map((s) => this.name(s)).join(", ") })}`);
  }

  takeBackRow() {
    if (this.takeback === null || this.takeback !== this.version || this.ended) return null;
    return h("div", { class: "row takeback" },
      h("button", { type: "button", class: "secondary", dataset: { key: "takeback" }, disabled: this.sending,
        onclick: () => this.takeBack() }, `↶ ${t("room.take_back")}`),
      h("span", { class: "small hint" }, t("room.take_back_hint")));
  }

  /** The host's "End game" button while the game is played, with a confirm step. */
  endControl() {
    const r = this.room;
    if (!r || r.status !== "playing" || !this.me || r.host !== this.me.id || !this.view || this.view.phase === "over") return null;
    if (!this.confirmEnd) {
      return h("div", { class: "row host-controls" },
        h("button", { type: "button", class: "danger", dataset: { key: "end-game" },
          onclick: () => {
            this.confirmEnd = true;
            this.render();
            const keep = this.el.querySelector("[data-key='end-keep']");
            if (keep) keep.focus();
          } }, t("room.end_game")));
    }
    return h("div", { class: "prompt-box end-confirm", role: "alertdialog", "aria-label": t("room.end_aria"),
      "aria-describedby": "end-confirm-text" },
      h("h2", {}, t("room.end_confirm")),
      h("p", { id: "end-confirm-text" }, t("room.end_confirm_text")),
      h("div", { class: "row" },
        h("button", { type: "button", class: "danger", dataset: { key: "end-yes" }, disabled: this.ending,
          onclick: () => {
            if (this.ending) return;
            this.ending = true;
            this.conn.send({ type: "abandon" });
            this.render();
          } }, this.ending ? t("room.ending") : t("room.end_yes")),
        h("button", { type: "button", class: "secondary", dataset: { key: "end-keep" },
          onclick: () => { this.confirmEnd = false; this.render(); } }, t("room.keep_playing"))));
  }

  /** The deal check's badge once the seed is out (game over or abandoned). */
  verifyBadge() {
    if (!this.room.seed) return h("span", { class: "badge" }, t("room.verify.waiting"));
    if (!this.verify) return h("span", { class: "badge" }, t("room.verify.running"));
    if (this.verify.ok) {
      return h("span", { class: "badge ok verified", dataset: { verified: "1" } },
        `✓ ${t("room.verify.ok", { what: this.game.checkedText(this.verify.checked, this.seat === null) })}`);
    }
    const badRounds = (this.verify.rounds || []).filter((r) => !r.ok).map((r) => r.round);
    // An abandoned game may stop before this browser saw a deal: the seed still checks.
    const seedOnly = this.ended && !this.verify.error && this.verify.seedOk && this.verify.checked === 0;
    return h("span", { class: ["badge", seedOnly ? "ok" : "bad", "verified"], dataset: { verified: seedOnly ? "seed" : "0" } },
      this.verify.error ? `✗ ${t("room.verify.error", { message: this.verify.error })}`
        : !this.verify.seedOk ? `✗ ${t("room.verify.seed_bad")}`
          : seedOnly ? `✓ ${t("room.verify.seed_only")}`
            : this.verify.checked === 0 ? t("room.verify.nothing")
              : `✗ ${t("room.verify.bad", { what: this.game.badRoundsText(badRounds) })}`);
  }

  seedLines() {
    return [
      this.room.seed ? h("p", { class: "small" }, t("replay.seed"), " ", h("span", { class: "seed" }, this.room.seed)) : null,
      this.room.seed_digest ? h("p", { class: "small" }, t("room.fingerprint"), " ",
        h("span", { class: "seed" }, this.room.seed_digest)) : null,
      this.contributionLine(),
    ];
  }

  /** Whether this browser's random bytes went into the deal (and whose the server chose). */
  contributionLine() {
    const mine = mineIsIn(this.code, this.room, this.seat);
    const byServer = (this.room.contributions || []).filter((c) => c.by === "server").map((c) => c.seat);
    if (mine === null && !byServer.length) return null;
    return h("p", { class: "small contribution", dataset: { mine: mine === null ? "" : String(mine) } },
      mine === true ? `✓ ${t("room.bytes_in")} ` : mine === false ? `✗ ${t("room.bytes_out")} ` : "",
      byServer.length ? t("room.bytes_by_server", { count: byServer.length, seats: byServer.map((s) => s + 1).join(", ") }) : "");
  }

  /** The game ended unfinished: why, the scores so far, the seed and its check, the replay. */
  abandonedPanel() {
    const v = this.view;
    const scores = this.game.scores(v);
    const order = [...Array(v.players).keys()].sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
    const gameId = this.room.game_id;
    const where = this.game.stoppedText ? this.game.stoppedText(v) : "";
    let replay = null;
    if (gameId && this.archived === true) replay = h("a", { href: `/replay/${encodeURIComponent(gameId)}` }, t("room.watch_replay"));
    else if (gameId && this.archived === "checking") replay = h("span", { class: "small muted" }, t("room.looking_replay"));
    return h("section", { class: "panel gameover abandoned", "aria-label": t("room.ended_aria"), dataset: { reason: this.endReason || "" } },
      h("h2", { role: "status" }, this.endedText()),
      h("p", { class: "small" }, where ? t("room.stopped_where", { where }) : t("room.stopped")),
      h("h3", {}, t("room.scores_so_far")),
      h("ol", { class: "final so-far" }, order.map((s) => h("li", { dataset: { seat: String(s) } },
        h("strong", {}, this.nameNode(s)), ` — ${this.scoreText(scores[s] ?? 0)}`, s === this.seat ? ` — ${t("common.you")}` : ""))),
      h("p", {}, this.verifyBadge()),
      this.seedLines(),
      h("p", {}, replay, replay ? " · " : null, h("a", { href: "/" }, t("common.back_to_lobby"))));
  }

  /** A final score in words: the game's own unit (scoreText), else points. */
  scoreText(n) {
    return this.game && this.game.scoreText ? this.game.scoreText(n) : t("room.points", { count: n });
  }

  gameOver() {
    const v = this.view;
    const out = v.outcome || { scores: v.scores, ranks: [] };
    const order = [...Array(v.players).keys()].sort((a, b) => (out.ranks[a] ?? 0) - (out.ranks[b] ?? 0));
    const gameId = this.room.game_id;  // the archive id of this room's game, from the server
    return h("section", { class: "panel gameover", "aria-label": t("room.final_aria") },
      h("h2", {}, t("room.final_title")),
      h("ol", { class: "final" }, order.map((s) => h("li", { dataset: { seat: String(s), rank: String(out.ranks[s] ?? "") } },
        h("strong", {}, this.nameNode(s)), ` — ${this.scoreText(out.scores[s])}`,
        out.ranks[s] === 1 ? ` ★ ${t("room.winner")}` : "", ` (${t("room.rank", { rank: out.ranks[s] ?? "?" })})`, s === this.seat ? ` — ${t("common.you")}` : ""))),
      this.againControl(),
      this.chartPanel(),
      h("p", {}, this.verifyBadge()),
      gameId ? h("p", { class: "small verify-line" }, t("room.over.verify", { id: gameId }), " ",
        h("code", { class: "seed" }, `./tortuga verify ${gameId}`)) : null,
      this.seedLines(),
      // The replay opens at its first step (the deal), not at the end just seen.
      h("p", {}, gameId ? h("a", { href: `/replay/${encodeURIComponent(gameId)}?v=1`, dataset: { key: "replay" } }, t("room.watch_replay")) : null,
        gameId ? " · " : null, h("a", { href: "/" }, t("common.back_to_lobby"))));
  }

  /** Each player's cumulative score after every round, as SVG (chart.js), with a legend. */
  chartPanel() {
    const history = this.game.scoreHistory ? this.game.scoreHistory(this.view) : null;
    if (!history) return null;
    const chart = scoreChart({ rounds: history.rounds,
      series: history.totals.map((values, s) => ({ name: this.name(s), values })) }, { title: t("room.over.chart") });
    if (!chart) return null;
    const legend = h("ul", { class: "chart-legend" }, chart.legend.map((item, s) => {
      const mark = h("span", { class: "mark", "aria-hidden": "true" }, item.symbol);
      mark.style.color = item.colour;  // the shape says it too
      return h("li", { dataset: { seat: String(s) } }, mark, " ", this.nameNode(s), ` ${item.last}`);
    }));
    return h("figure", { class: "chart" }, chart.svg, h("figcaption", {}, t("room.over.chart"), legend));
  }

  /** "Play again" for a player of this table; for everyone, the way into the next game when
   * a player of this table opened one (their invitation in the chat). */
  againControl() {
    const parts = [];
    const invite = this.nextInvite();
    if (invite) {
      const text = t("room.again.join", { name: NAME });
      parts.push(h("a", { class: "button", href: invite.href, dataset: { key: "join-next" } },
        placeName(text, nameNode(invite.name, null))));
    }
    if (this.seat !== null && !(invite && invite.mine)) {
      parts.push(h("button", { type: "button", dataset: { key: "again" }, disabled: !!this.again,
        onclick: () => this.playAgain() }, this.again ? t("room.again.busy") : t("room.again.button")),
      h("span", { class: "small muted" }, t("room.again.hint")));
    }
    return parts.length ? h("div", { class: "row again" }, parts) : null;
  }

  /** The newest invitation to a next game in the chat, from a player of this table. */
  nextInvite() {
    const players = new Set((this.room.seats || []).map((s) => s.user).filter(Boolean));
    const re = new RegExp(`${location.origin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/r/([A-Za-z0-9_-]+)`);
    for (let i = this.chat.length - 1; i >= 0; i--) {
      const m = this.chat[i];
      const found = players.has(m.user) && m.text.match(re);
      if (found && found[1] !== this.code) {
        return { href: `/r/${found[1]}`, name: m.name, mine: !!(this.me && m.user === this.me.id) };
      }
    }
    return null;
  }

  /** A new room like this one: I sit where I sat, the bots sit where they sat (at their
   * levels); the others are invited by a link in this room's chat. */
  async playAgain() {
    if (this.again || this.seat === null) return;
    this.again = true;
    this.render();
    const r = this.room;
    try {
      const made = await api.createRoom({
        game: r.game, options: r.options || {}, seats: r.players, public: !!r.public,
        spectators: r.spectators !== false, deadlines: r.deadlines || {}, takeback: !!r.takeback,
        absent: r.absent || "bot",
      });
      const code = made.id || (made.room && made.room.id) || made.code;
      const bots = (r.seats || []).filter((s) => s.bot).map((s) => ({ seat: s.seat, level: s.bot }));
      sessionStorage.setItem(`tortuga.created.${code}`, JSON.stringify({ seat: this.seat, bots }));
      const text = `⚓ ${t("room.again.chat")} ${location.origin}/r/${code}`;
      this.conn.send({ type: "chat", text });
      // Leave once the invitation is out (its echo), or after a moment.
      await new Promise((resolve) => {
        const until = Date.now() + 2000;
        const look = () => (this.chat.some((m) => m.text === text) || Date.now() > until ? resolve() : setTimeout(look, 50));
        look();
      });
      location.assign(`/r/${code}`);
    } catch (err) {
      this.again = false;
      this.flash(t("room.again.failed", { message: err.message }));
    }
  }
}
