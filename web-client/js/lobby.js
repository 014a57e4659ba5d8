// The lobby: your name, the public rooms (live), creating a room, joining by link or code,
// and "my rooms" -- the games you sit in (from the server: any browser with your token),
// with whose move it is, and the finished ones this browser remembers.

import { api } from "./api.js";
import { groupCode, parseCode } from "./codes.js";
import { Connection } from "./conn.js";
import { h, replaceChildren } from "./dom.js";
import { clientGames, gameModule, hasClient } from "./games/registry.js";
import { errorText, gameTitle, has, t } from "./i18n.js";
import { passkeysSupported } from "./passkeys.js";
import { identity, myRooms } from "./store.js";
import { nameForm, setConnState, setWho } from "./ui.js";

export { parseCode };

const DEADLINES = {
  none: { label: "lobby.create.deadlines_none", value: {} },
  relaxed: { label: "lobby.create.deadlines_relaxed", value: { move: 120, commit: 60, reveal: 30 } },
  live: { label: "lobby.create.deadlines_live", value: { move: 30, commit: 30, reveal: 15 } },
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
    document.title = t("site.title");
    if (!identity.get()) {
      const { showLanding } = await import("./landing.js");
      await showLanding(this.el);
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
      onbadtoken: () => { identity.clearIf(this.conn && this.conn.token); location.reload(); },
      // The site's operators banned this user: said once, at the top (nothing else works).
      onbanned: () => { this.banned = true; this.render(); },
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
          yourMove: !!(r.turn && r.turn.you), turnText: turnInfo(r),
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
          yourMove: !!(r.turn && r.turn.you), turnText: turnInfo(r) });
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
      h("h1", {}, t("lobby.title")),
      this.banned ? h("p", { class: "error-box banned-note", role: "alert" }, t("room.banned_site")) : null,
      h("div", { class: "grid2" },
        h("div", {}, this.createForm()),
        h("div", {},
          this.joinForm(),
          h("section", { class: "panel", "aria-label": t("lobby.my_rooms_aria") }, h("h2", {}, t("lobby.my_rooms")), this.mineEl),
          h("section", { class: "panel", "aria-label": t("lobby.public_rooms_aria") }, h("h2", {}, t("lobby.public_rooms")), this.listEl),
          this.boards())),
      h("p", { class: "small muted" }, t("lobby.playing_as", { name: identity.get().user.name }), " ",
        h("button", { type: "button", class: "secondary", onclick: () => this.changeName() }, t("lobby.change_name")), " ",
        h("a", { class: "button secondary", dataset: { key: "my-bots" }, href: `/player/${encodeURIComponent(identity.get().user.id)}` }, t("player.bots")), " ",
        h("button", { type: "button", class: "secondary", dataset: { key: "sign-out-everywhere" }, onclick: () => this.signOutEverywhere() },
          t("lobby.sign_out_everywhere")),
        // This browser plays as someone else's guest? Their passkey makes it them (signin.js).
        passkeysSupported() ? [" ", h("a", { class: "button secondary", dataset: { key: "passkey-signin-link" }, href: "/signin" }, t("signin.passkey"))] : null));
    this.renderList();
    this.renderMine();
  }

  /** Every other browser and tab with this identity is signed out (a stolen or forgotten
   * token dies); this one keeps playing with the fresh token the server answers. */
  async signOutEverywhere() {
    if (!confirm(t("lobby.sign_out_everywhere_confirm"))) return;
    if (this.conn) this.conn.close();  // its token is about to die: no bad-token reload
    const res = await api.signOutEverywhere();
    identity.set(res.token, res.user);
    location.reload();
  }

    async changeName() {
    if (Object.keys(myRooms.all()).length &&
        !confirm(t("lobby.change_name_confirm"))) return;
    await nameForm(this.el, { intro: t("lobby.new_name") });
    location.reload();
  }

  createForm() {
    const games = this.gameList();
    const gameSel = h("select", { id: "game", name: "game" },
      games.map((g) => h("option", { value: g.id }, gameTitle(g.id, g.title))));
    const rounds = h("input", { type: "number", id: "rounds", min: "1", max: "10", value: "10", required: true });
    const seats = h("input", { type: "number", id: "seats", min: "2", max: "6", value: "3", required: true });
    const seatsHint = h("span", { class: "small muted", id: "seats-hint" });
    const roundsField = h("label", { class: "field", for: "rounds" }, t("lobby.create.rounds"), rounds);
    // A game without a "rounds" option (Pirate King! always plays 7) gets no rounds field;
    // a game the server did not describe keeps it.
    const hasRounds = () => {
      const g = games.find((x) => x.id === gameSel.value) || {};
      return !g.options || typeof g.options !== "object" || "rounds" in g.options;
    };
    // Every other option a game describes (GET /api/games: its options_schema): a checkbox
    // for a "bool", a number field for an "int", labelled from the catalogue
    // (games.<id>.option.<name>) or else the server's label.
    const optionsBox = h("fieldset", { class: "game-options", hidden: true });
    let optionInputs = {};
    const syncOptions = () => {
      const g = games.find((x) => x.id === gameSel.value) || {};
      const schema = g.options && typeof g.options === "object" ? g.options : {};
      optionInputs = {};
      const fields = [];
      for (const [name, spec] of Object.entries(schema)) {
        if (name === "rounds" || !spec || typeof spec !== "object") continue;
        const key = `games.${g.id}.option.${name}`;
        const label = has(key) ? t(key) : String(spec.label || name);
        const id = `opt-${name}`;
        if (spec.type === "bool") {
          const input = h("input", { type: "checkbox", id, checked: !!spec.default, dataset: { option: name } });
          optionInputs[name] = () => input.checked;
          fields.push(h("label", { class: "check" }, input, label));
        } else if (spec.type === "int") {
          const input = h("input", { type: "number", id, value: String(spec.default ?? 0), required: true, dataset: { option: name },
            min: spec.min !== undefined ? String(spec.min) : null, max: spec.max !== undefined ? String(spec.max) : null });
          optionInputs[name] = () => Number(input.value);
          fields.push(h("label", { class: "field", for: id }, label, input));
        }
      }
      replaceChildren(optionsBox, fields.length ? h("legend", {}, t("lobby.create.options")) : null, fields);
      optionsBox.hidden = !fields.length;
    };
    const chosenOptions = () => {
      const out = hasRounds() ? { rounds: Number(rounds.value) } : {};
      for (const [name, read] of Object.entries(optionInputs)) out[name] = read();
      return out;
    };
    const syncSeats = () => {
      syncOptions();
      // The rounds field takes its bounds from the game's schema when it gives them.
      const spec = ((games.find((x) => x.id === gameSel.value) || {}).options || {}).rounds;
      if (spec && typeof spec === "object") {
        if (spec.min !== undefined) rounds.min = String(spec.min);
        if (spec.max !== undefined) rounds.max = String(spec.max);
        if (Number(rounds.value) > Number(rounds.max) || Number(rounds.value) < Number(rounds.min)) rounds.value = String(spec.default ?? rounds.max);
      }
      roundsField.hidden = !hasRounds();
      roundsField.style.display = hasRounds() ? "" : "none";
      const g = games.find((x) => x.id === gameSel.value) || {};
      const range = seatRange(g);
      seats.min = String(range[0]);
      seats.max = String(range[1]);
      // A ghost hand joins at the player counts the game's engine names (GET /api/games).
      const ghosts = g.seats && Array.isArray(g.seats.ghost_hand_at) ? g.seats.ghost_hand_at : [];
      seatsHint.textContent = ghosts.length
        ? t("lobby.create.seats_ghost", { min: range[0], max: range[1], counts: ghosts.join(", ") })
        : t("lobby.create.seats_hint", { min: range[0], max: range[1] });
      if (Number(seats.value) > range[1]) seats.value = String(range[1]);
      // The rounds box follows the game's own option (GET /api/games: options.rounds).
      const r = (g.options && g.options.rounds) || null;
      if (r) {
        const changed = rounds.min !== String(r.min ?? 1) || rounds.max !== String(r.max ?? 10);
        rounds.min = String(r.min ?? 1);
        rounds.max = String(r.max ?? 10);
        if (changed) rounds.value = String(r.default ?? r.max ?? 10);
      }
    };
    gameSel.addEventListener("change", syncSeats);
    const pub = h("input", { type: "checkbox", id: "public", checked: true });
    const spect = h("input", { type: "checkbox", id: "spectators", checked: true });
    const takeback = h("input", { type: "checkbox", id: "takeback" });
    const playerBots = h("input", { type: "checkbox", id: "player-bots", checked: true });
    const absent = h("select", { id: "absent" },
      h("option", { value: "bot" }, t("lobby.create.absent_bot")),
      h("option", { value: "default" }, t("lobby.create.absent_default")));
    const deadlines = h("select", { id: "deadlines" },
      Object.entries(DEADLINES).map(([k, d]) => h("option", { value: k }, t(d.label))));
    const error = h("p", { class: "error-box", role: "alert", hidden: true });
    const form = h("form", { class: "panel", "aria-label": t("lobby.create.aria"), onsubmit: async (ev) => {
      ev.preventDefault();
      error.hidden = true;
      try {
        const room = await api.createRoom({
          game: gameSel.value,
          options: chosenOptions(),
          seats: Number(seats.value),
          public: pub.checked,
          spectators: spect.checked,
          deadlines: DEADLINES[deadlines.value].value,
          takeback: takeback.checked,
          player_bots: playerBots.checked,
          absent: absent.value,
        });
        const code = room.id || (room.room && room.room.id) || room.code;
        sessionStorage.setItem(`tortuga.created.${code}`, "1");
        location.assign(`/r/${code}`);
      } catch (err) {
        error.textContent = t("lobby.create.failed", { message: errorText(err) });
        error.hidden = false;
      }
    } },
    h("h2", {}, t("lobby.create.title")),
    h("label", { class: "field", for: "game" }, t("lobby.create.game"), gameSel),
    roundsField,
    optionsBox,
    h("label", { class: "field", for: "seats" }, t("lobby.create.seats"), seats, seatsHint),
    h("label", { class: "check" }, pub, t("lobby.create.public")),
    h("label", { class: "check" }, spect, t("lobby.create.spectators")),
    h("label", { class: "field", for: "deadlines" }, t("lobby.create.deadlines"), deadlines),
    h("label", { class: "field", for: "absent" }, t("lobby.create.absent"), absent),
    h("label", { class: "check" }, takeback, t("lobby.create.takeback")),
    h("label", { class: "check" }, playerBots, t("lobby.create.player_bots")),
    h("div", { class: "row" }, h("button", { type: "submit" }, t("lobby.create.submit"))),
    error);
    syncSeats();
    return form;
  }

  joinForm() {
    const input = h("input", { type: "text", id: "join-code", placeholder: t("lobby.join.placeholder"), required: true,
      autocapitalize: "characters", autocomplete: "off", spellcheck: "false" });
    const error = h("p", { class: "error-box", role: "alert", hidden: true });
    return h("form", { class: "panel", "aria-label": t("lobby.join.aria"), onsubmit: (ev) => {
      ev.preventDefault();
      const code = parseCode(input.value);
      if (!code) {
        error.textContent = t("lobby.join.bad");
        error.hidden = false;
        return;
      }
      location.assign(`/r/${code}`);
    } },
    h("h2", {}, t("lobby.join.title")),
    h("div", { class: "row" }, h("label", { class: "visually-hidden", for: "join-code" }, t("lobby.join.label")), input,
      h("button", { type: "submit" }, t("lobby.join.submit"))),
    error);
  }

  renderList() {
    if (!this.listEl) return;
    const rooms = [...this.rooms.values()].filter((r) => r.status !== "finished" && r.status !== "abandoned");
    if (!rooms.length) {
      replaceChildren(this.listEl, h("p", { class: "muted" }, t("lobby.no_public")));
      return;
    }
    rooms.sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
    replaceChildren(this.listEl, h("ul", { class: "rooms" }, rooms.map((r) => {
      const seated = (r.seats || []).filter((s) => s.user || s.bot).length;
      const who = (r.seats || []).filter((s) => s.user || s.bot).map((s) => s.name || t("common.bot")).join(", ");
      return h("li", { dataset: { room: r.id } },
        h("span", { class: "code" }, groupCode(r.id)),
        h("span", {}, gameTitle(r.game, r.title)),
        h("span", { class: "badge" }, r.status === "lobby" ? t("lobby.seated", { seated, players: r.players }) : statusText(r.status)),
        h("span", { class: "small muted" }, who),
        h("a", { class: "button", href: `/r/${r.id}` }, r.status === "lobby" ? t("lobby.join_button") : t("lobby.watch_button")));
    })));
  }

  renderMine() {
    if (!this.mineEl) return;
    const mine = Object.values(myRooms.all()).filter((r) => r.status !== "abandoned")
      .sort((a, b) => (b.yourMove ? 1 : 0) - (a.yourMove ? 1 : 0) || b.touched - a.touched);
    if (!mine.length) {
      replaceChildren(this.mineEl, h("p", { class: "muted" }, t("lobby.none_mine")));
      return;
    }
    replaceChildren(this.mineEl, h("ul", { class: "rooms" }, mine.map((r) => h("li", { dataset: { room: r.code } },
      h("span", { class: "code" }, groupCode(r.code)),
      h("span", {}, r.game ? gameTitle(r.game, r.title) : r.title || ""),
      r.status === "finished" ? h("span", { class: "badge" }, t("lobby.status.finished"))
        : r.yourMove ? h("span", { class: "badge your-turn", dataset: { turn: "you" } }, t("lobby.your_move"))
          : r.latest > r.version ? h("span", { class: "badge your-turn" }, t("lobby.new_moves"))
            : h("span", { class: "badge" }, r.turnText ? turnText(r.turnText) : r.status ? statusText(r.status) : ""),
      r.round ? h("span", { class: "small muted" }, t("lobby.round", { round: r.round, rounds: r.rounds })) : null,
      h("a", { class: "button", href: `/r/${r.code}` }, t("lobby.open")),
      r.status === "finished" ? h("button", { type: "button", class: "secondary", onclick: () => { myRooms.remove(r.code); this.renderMine(); } }, t("lobby.forget")) : null))));
  }

  /** Links to each game's leaderboard. */
  boards() {
    return h("section", { class: "panel", "aria-label": t("lobby.leaderboards") }, h("h2", {}, t("lobby.leaderboards")),
      h("ul", { class: "links" }, this.gameList().map((g) =>
        h("li", {}, h("a", { href: `/leaderboard/${g.id}` }, gameTitle(g.id, g.title)), " · ",
          h("a", { class: "small", href: `/ladder/${g.id}` }, t("ladder.link"))))));
  }
}

/** Whose move it is in a room of "my rooms" (from the server's ``turn``), kept as data so
 * that it is shown in the language of the moment: {key, name?}. */
function turnInfo(r) {
  if (r.status !== "playing") return { status: r.status };
  const turn = r.turn;
  if (!turn) return { status: "playing" };
  if (turn.you) return { key: "lobby.your_move" };
  if (turn.sealed) return { key: turn.stage === "reveal" ? "lobby.turn.revealing" : "lobby.turn.bidding" };
  const seat = (r.seats || [])[turn.owe[0]];
  return seat ? { key: "lobby.turn.to_play", name: seat.name || t("common.bot") } : { status: "playing" };
}

function turnText(info) {
  if (info.key) return t(info.key, { name: info.name || "" });
  return statusText(info.status);
}

function statusText(status) {
  return ["lobby", "playing", "finished", "abandoned"].includes(status) ? t(`lobby.status.${status}`) : String(status || "");
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

