// The lobby: your name, the public rooms (live), creating a room, joining by link or code,
// and "my rooms" -- the games you sit in (from the server: any browser with your token),
// with whose move it is, and the finished ones this browser remembers.

import { api } from "./api.js";
import { Connection } from "./conn.js";
import { h, replaceChildren } from "./dom.js";
import { clientGames, gameModule, hasClient } from "./games/registry.js";
import { identity, myRooms } from "./store.js";
import { nameForm, setConnState, setWho } from "./ui.js";

const DEADLINES = {
  none: { label: "None — play at your own pace (over days)", value: {} },
  relaxed: { label: "Relaxed — 2 minutes a move, 1 minute a bid", value: { move: 120, commit: 60, reveal: 30 } },
  live: { label: "Live — 30 seconds a move and a bid", value: { move: 30, commit: 30, reveal: 15 } },
};

export class LobbyPage {
  constructor(el) {
    this.el = el;
    this.rooms = new Map();
    this.games = null;
    this.error = null;
    this.start();
  }

  async start() {
    document.title = "Tortuga — pirate card games with friends";
    if (!identity.get()) {
      await nameForm(this.el, { intro: "Choose a name: your friends see it at the table." });
    }
    setWho();
    this.games = await offeredGames();
    try {
      const list = await api.rooms();
      for (const r of listOf(list)) this.rooms.set(r.id, r);
    } catch {
      /* the live list fills it */
    }
    this.conn = new Connection(identity.get().token, {
      onopen: () => this.conn.send({ type: "watch_rooms" }),
      onmessage: (m) => this.onMessage(m),
      onstate: (s) => setConnState(s),
      onbadtoken: () => { identity.clear(); location.reload(); },
    });
    this.render();
    this.refreshMine();
  }

  onMessage(msg) {
    if (msg.type !== "rooms") return;
    const data = msg.data || msg;
    if (Array.isArray(data.rooms)) {
      this.rooms = new Map(data.rooms.map((r) => [r.id, r]));
    }
    for (const r of data.changed || []) {
      if (r.status === "finished" || r.status === "abandoned") this.rooms.delete(r.id);
      else this.rooms.set(r.id, r);
    }
    for (const id of data.removed || []) this.rooms.delete(id);
    this.renderList();
  }

  /** "My rooms": the server lists the rooms this user sits in (lobby and playing) with
   * whose move it is; rooms this browser remembers that the server no longer lists (over,
   * gone, or left) are looked up one by one. */
  async refreshMine() {
    const listed = new Set();
    try {
      for (const r of listOf(await api.myRooms())) {
        listed.add(r.id);
        const known = myRooms.get(r.id);
        myRooms.put(r.id, {
          game: r.game, title: r.title, seat: r.seat, status: r.status, latest: r.version,
          version: known && typeof known.version === "number" ? known.version : r.version,
          yourMove: !!(r.turn && r.turn.you), turn: turnText(r),
        });
      }
    } catch {
      /* an older server, or offline: what this browser remembers */
    }
    const mine = myRooms.all();
    await Promise.all(Object.keys(mine).filter((code) => !listed.has(code)).map(async (code) => {
      try {
        const r = await api.room(code);
        const me = identity.get();
        const seated = me && (r.seats || []).some((s) => s.user === me.user.id);
        // An abandoned game leaves "my rooms" (as the server's list drops it).
        if (r.status === "abandoned" || (!seated && (r.status === "lobby" || r.status === "playing"))) {
          myRooms.remove(code);
          return;
        }
        myRooms.put(code, { status: r.status, title: r.title, game: r.game, latest: r.version,
          yourMove: !!(r.turn && r.turn.you), turn: turnText(r) });
      } catch (err) {
        if (err.status === 404) myRooms.remove(code);
      }
    }));
    this.renderMine();
  }

  gameList() {
    return this.games || [];
  }

  render() {
    this.listEl = h("div", { id: "public-rooms" });
    this.mineEl = h("div", { id: "my-rooms" });
    replaceChildren(this.el,
      h("h1", {}, "Tortuga — pirate card games with friends"),
      h("div", { class: "grid2" },
        h("div", {}, this.createForm()),
        h("div", {},
          this.joinForm(),
          h("section", { class: "panel", "aria-label": "my rooms" }, h("h2", {}, "My rooms"), this.mineEl),
          h("section", { class: "panel", "aria-label": "public rooms" }, h("h2", {}, "Public rooms"), this.listEl))),
      h("p", { class: "small muted" }, "Playing as ", identity.get().user.name, ". ",
        h("button", { type: "button", class: "secondary", onclick: () => this.changeName() }, "Change name")));
    this.renderList();
    this.renderMine();
  }

  async changeName() {
    if (Object.keys(myRooms.all()).length &&
        !confirm("A new name makes you a new guest: the seats you hold stay with the old name. Continue?")) return;
    await nameForm(this.el, { intro: "Choose a new name." });
    location.reload();
  }

  createForm() {
    const games = this.gameList();
    const gameSel = h("select", { id: "game", name: "game" },
      games.map((g) => h("option", { value: g.id }, g.title || g.id)));
    const rounds = h("input", { type: "number", id: "rounds", min: "1", max: "10", value: "10", required: true });
    const seats = h("input", { type: "number", id: "seats", min: "2", max: "6", value: "3", required: true });
    const seatsHint = h("span", { class: "small muted" });
    const syncSeats = () => {
      const g = games.find((x) => x.id === gameSel.value) || {};
      const range = seatRange(g);
      seats.min = String(range[0]);
      seats.max = String(range[1]);
      seatsHint.textContent = `${range[0]}–${range[1]} players; with 2 a ghost hand joins`;
      if (Number(seats.value) > range[1]) seats.value = String(range[1]);
    };
    gameSel.addEventListener("change", syncSeats);
    const pub = h("input", { type: "checkbox", id: "public", checked: true });
    const spect = h("input", { type: "checkbox", id: "spectators", checked: true });
    const takeback = h("input", { type: "checkbox", id: "takeback" });
    const absent = h("select", { id: "absent" },
      h("option", { value: "bot" }, "a bot plays for them until they return"),
      h("option", { value: "default" }, "their moves are the game's default until they return"));
    const deadlines = h("select", { id: "deadlines" },
      Object.entries(DEADLINES).map(([k, d]) => h("option", { value: k }, d.label)));
    const error = h("p", { class: "error-box", role: "alert", hidden: true });
    const form = h("form", { class: "panel", "aria-label": "create a room", onsubmit: async (ev) => {
      ev.preventDefault();
      error.hidden = true;
      try {
        const room = await api.createRoom({
          game: gameSel.value,
          options: { rounds: Number(rounds.value) },
          seats: Number(seats.value),
          public: pub.checked,
          spectators: spect.checked,
          deadlines: DEADLINES[deadlines.value].value,
          takeback: takeback.checked,
          absent: absent.value,
        });
        const code = room.id || (room.room && room.room.id) || room.code;
        sessionStorage.setItem(`tortuga.created.${code}`, "1");
        location.assign(`/r/${code}`);
      } catch (err) {
        error.textContent = `Could not create the room: ${err.message}`;
        error.hidden = false;
      }
    } },
    h("h2", {}, "Create a room"),
    h("label", { class: "field", for: "game" }, "Game", gameSel),
    h("label", { class: "field", for: "rounds" }, "Rounds (10 is the full game)", rounds),
    h("label", { class: "field", for: "seats" }, "Seats", seats, seatsHint),
    h("label", { class: "check" }, pub, "Public: listed in the lobby (otherwise only the link finds it)"),
    h("label", { class: "check" }, spect, "Spectators allowed"),
    h("label", { class: "field", for: "deadlines" }, "Deadlines", deadlines),
    h("label", { class: "field", for: "absent" }, "When a player is gone for a while", absent),
    h("label", { class: "check" }, takeback, "Take-back: a player may take back a card until the next player acts"),
    h("div", { class: "row" }, h("button", { type: "submit" }, "Create the room")),
    error);
    syncSeats();
    return form;
  }

  joinForm() {
    const input = h("input", { type: "text", id: "join-code", placeholder: "room code or invite link", required: true });
    const error = h("p", { class: "error-box", role: "alert", hidden: true });
    return h("form", { class: "panel", "aria-label": "join a room", onsubmit: (ev) => {
      ev.preventDefault();
      const code = parseCode(input.value);
      if (!code) {
        error.textContent = "That is neither a room code nor an invite link.";
        error.hidden = false;
        return;
      }
      location.assign(`/r/${code}`);
    } },
    h("h2", {}, "Join by link or code"),
    h("div", { class: "row" }, h("label", { class: "visually-hidden", for: "join-code" }, "Room code or link"), input,
      h("button", { type: "submit" }, "Join")),
    error);
  }

  renderList() {
    if (!this.listEl) return;
    const rooms = [...this.rooms.values()].filter((r) => r.status !== "finished" && r.status !== "abandoned");
    if (!rooms.length) {
      replaceChildren(this.listEl, h("p", { class: "muted" }, "No public rooms right now — create one!"));
      return;
    }
    rooms.sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
    replaceChildren(this.listEl, h("ul", { class: "rooms" }, rooms.map((r) => {
      const seated = (r.seats || []).filter((s) => s.user || s.bot).length;
      const who = (r.seats || []).filter((s) => s.user || s.bot).map((s) => s.name || s.bot).join(", ");
      return h("li", { dataset: { room: r.id } },
        h("span", { class: "code" }, r.id),
        h("span", {}, r.title || r.game),
        h("span", { class: "badge" }, r.status === "lobby" ? `${seated}/${r.players} seated` : r.status),
        h("span", { class: "small muted" }, who),
        h("a", { class: "button", href: `/r/${r.id}` }, r.status === "lobby" ? "Join" : "Watch"));
    })));
  }

  renderMine() {
    if (!this.mineEl) return;
    const mine = Object.values(myRooms.all()).filter((r) => r.status !== "abandoned")
      .sort((a, b) => (b.yourMove ? 1 : 0) - (a.yourMove ? 1 : 0) || b.touched - a.touched);
    if (!mine.length) {
      replaceChildren(this.mineEl, h("p", { class: "muted" }, "You are not seated in any room yet."));
      return;
    }
    replaceChildren(this.mineEl, h("ul", { class: "rooms" }, mine.map((r) => h("li", { dataset: { room: r.code } },
      h("span", { class: "code" }, r.code),
      h("span", {}, r.title || r.game || ""),
      r.status === "finished" ? h("span", { class: "badge" }, "finished")
        : r.yourMove ? h("span", { class: "badge your-turn", dataset: { turn: "you" } }, "your move")
          : r.latest > r.version ? h("span", { class: "badge your-turn" }, "new moves since you looked")
            : h("span", { class: "badge" }, r.turn || r.status || ""),
      r.round ? h("span", { class: "small muted" }, `round ${r.round}/${r.rounds}`) : null,
      h("a", { class: "button", href: `/r/${r.code}` }, "Open"),
      r.status === "finished" ? h("button", { type: "button", class: "secondary", onclick: () => { myRooms.remove(r.code); this.renderMine(); } }, "Forget") : null))));
  }
}

/** Whose move it is in a room of "my rooms" (the server's ``turn``), in words. */
function turnText(r) {
  if (r.status === "lobby") return "waiting for players";
  if (r.status !== "playing") return r.status;
  const t = r.turn;
  if (!t) return "playing";
  if (t.you) return "your move";
  if (t.sealed) return t.stage === "reveal" ? "revealing the bids" : "bidding";
  const seat = (r.seats || [])[t.owe[0]];
  return seat ? `${seat.name || "a bot"} to play` : "playing";
}

function listOf(data, key = "rooms") {
  if (!data) return [];
  if (Array.isArray(data)) return data;
  if (Array.isArray(data[key])) return data[key];
  return [];
}

function seatRange(g) {
  if (g.seats && typeof g.seats === "object" && !Array.isArray(g.seats)) return [g.seats.min ?? 2, g.seats.max ?? 6];
  if (Array.isArray(g.seats)) return [Math.min(...g.seats), Math.max(...g.seats)];
  if (g.min_players) return [g.min_players, g.max_players];
  return [2, 6];
}

/** The games to offer: the server's games that this client can draw (a game's engine may be
 * registered on the server before its table exists here); without the server's list, the
 * client's own modules. */
async function offeredGames() {
  const listed = listOf(await api.games().catch(() => null), "games").filter((g) => hasClient(g.id));
  if (listed.length) return listed;
  return Promise.all(clientGames().map(async (id) => {
    const m = await gameModule(id);
    const [min, max] = m.players(id);
    return { id, title: m.title(id), seats: { min, max } };
  }));
}

/** A room code from a bare code or an invite link (…/r/CODE). */
export function parseCode(text) {
  const t = String(text || "").trim();
  const m = t.match(/\/r\/([A-Za-z0-9_-]{4,40})/);
  if (m) return m[1];
  return /^[A-Za-z0-9_-]{4,40}$/.test(t) ? t : null;
}
