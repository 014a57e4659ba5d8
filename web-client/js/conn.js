// One websocket per tab, reconnecting with exponential backoff (0.5 s, 1 s, 2 s ... 15 s, with
// jitter). Whoever owns the page hooks `onopen` to (re)join or resume its room.
// The token goes in the first frame (`auth`), never in the URL (URLs end up in logs); a
// `hello` that carries a fresh token replaces the stored one.
// A node that drains (it is stopping, or an admin asked) sends `reconnect {within_ms}`: the
// tab closes the socket itself -- so everything it sent is handled first -- and connects
// again at once, after a random part of `within_ms` (so the tabs of a node do not all come
// at the same instant); the page's `onopen` resumes its room. A node closing with 1012
// (restarting) is followed the same way. A `reconnect` before `hello` (a draining node
// turned the socket away at the door) counts as a failed attempt: the usual backoff.
// A socket closed for flooding (4008) is tried again with the usual backoff, unless the
// server said when (`rate-limited {retry_after_ms}`: this user is shut out that long, on
// every node): then the tab waits exactly that, its badge saying so ("slowed").
// A room's page names its room in the socket's URL (`/ws?room=CODE`): a site of several
// workers serves all of a room's sockets on one of them (server/realtime/homes.py). It only routes:
// the page still joins or resumes its room in a frame, and the code is no secret (the
// page's own URL has it).
// This device's key (chain.js) is registered with the user before the first `auth`, which
// names it (`key`): from then on the socket signs every move (`sendSigned`); a browser
// without WebCrypto plays unsigned. A close with 4011 (the key is not registered: a Redis
// that lost it) registers it again and reconnects.

import { registeredKid, sign } from "./chain.js";
import { identity } from "./store.js";

const CLOSE_BAD_TOKEN = 4001;
const CLOSE_BANNED = 4010; // the site's operators banned this user: no reconnecting
const CLOSE_SERVICE_RESTART = 1012;
const CLOSE_FLOOD = 4008; // too many messages: the user is shut out for a while
const CLOSE_UNKNOWN_KEY = 4011; // the device key named in auth is not registered: again
const RESTART_SPREAD_MS = 1000;

export class Connection {
  constructor(token, { onmessage, onopen, onstate, onbadtoken, onbanned, room } = {}) {
    this.token = token;
    this.room = room || null;
    this.onmessage = onmessage || (() => {});
    this.onopen = onopen || (() => {});
    this.onstate = onstate || (() => {});
    this.onbadtoken = onbadtoken || (() => {});
    this.onbanned = onbanned || (() => {});
    this.ws = null;
    this.attempt = 0;
    this.closed = false;
    this.state = "connecting";
    this.queue = [];
    this.timer = null;
    this.pinger = null;
    this.refs = 0;
    this.kid = null; // the device key this socket signed in with (null: unsigned)
    this.authed = false;
    this.keyLost = false;
    this.signing = Promise.resolve();
    this.handlers = new Set();
    this._online = () => this.retryNow();
    window.addEventListener("online", this._online);
    this.connect();
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const hint = this.room ? `?room=${encodeURIComponent(this.room)}` : "";
    return `${proto}//${location.host}/ws${hint}`;
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.onstate(state);
  }

  connect() {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.setState(this.attempt ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    let welcomed = false;
    let hint = null;
    let retryAfter = null; // ms, from a rate-limited refusal that says when
    const kidReady = registeredKid(this.token, { again: this.keyLost });
    this.keyLost = false;
    ws.onopen = async () => {
      const kid = await kidReady;
      if (this.ws !== ws || ws.readyState !== WebSocket.OPEN) return;
      this.kid = kid;
      ws.send(JSON.stringify(kid ? { type: "auth", token: this.token, key: kid } : { type: "auth", token: this.token }));
      this.authed = true;
      this.setState("open");
      const queued = this.queue;
      this.queue = [];
      this.onopen();
      for (const msg of queued) this.send(msg);
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping", t: Date.now() }), 25000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === "reconnect") {
        hint = welcomed ? Math.max(0, Number(msg.within_ms) || 0) : null;
        ws.close(1000, "reconnect");
        return;
      }
      if (msg.type === "error" && msg.code === "rate-limited" && Number(msg.retry_after_ms) > 0) {
        retryAfter = Number(msg.retry_after_ms);
      }
      if (msg.type === "hello") {
        welcomed = true;
        this.attempt = 0;
      }
      if (msg.type === "hello" && msg.token) {
        this.token = msg.token;
        const id = identity.get();
        if (id && id.user && id.user.id === msg.user.id) identity.set(msg.token, id.user);
      }
      this.onmessage(msg);
      for (const fn of this.handlers) fn(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      this.authed = false;
      if (this.closed) {
        this.setState("closed");
        return;
      }
      if (ev.code === CLOSE_BANNED) {
        this.closed = true;
        this.setState("closed"); // no retrying: the badge must not say so
        this.onbanned();
        return;
      }
      if (ev.code === CLOSE_BAD_TOKEN) {
        this.closed = true;
        this.setState("closed");
        this.onbadtoken();
        return;
      }
      if (ev.code === CLOSE_UNKNOWN_KEY) {
        this.keyLost = true;  // register the key again, then sign in with it
        this.scheduleRetry();
        return;
      }
      if (ev.code === CLOSE_FLOOD && retryAfter !== null) {
        // Shut out for a while: knocking sooner would only be refused again.
        this.attempt = 0;
        this.setState("slowed");
        this.timer = setTimeout(() => this.connect(), retryAfter + Math.random() * 500);
        return;
      }
      if (hint === null && welcomed && ev.code === CLOSE_SERVICE_RESTART) hint = RESTART_SPREAD_MS;
      if (hint !== null) {
        this.attempt = 0;
        this.setState("reconnecting");
        this.timer = setTimeout(() => this.connect(), Math.random() * hint);
        return;
      }
      this.scheduleRetry();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  scheduleRetry() {
    if (this.closed) return;
    this.attempt += 1;
    const base = Math.min(15000, 500 * 2 ** (this.attempt - 1));
    const delay = base / 2 + Math.random() * base / 2;
    this.setState(this.attempt > 6 ? "offline" : "reconnecting");
    this.timer = setTimeout(() => this.connect(), delay);
  }

  retryNow() {
    if (!this.closed && !this.ws) {
      this.attempt = Math.max(0, this.attempt - 1);
      this.connect();
    }
  }

  /** Send a message (queued while disconnected, except pings). Returns its ref. */
  send(msg) {
    const ref = msg.ref ?? ++this.refs;
    const out = { ...msg, ref };
    if (this.ws && this.authed && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(out));
    else if (msg.type !== "ping") this.queue.push(out);
    return ref;
  }

  /** Send a move signed by this device's key when the socket signed in with one: `kind`
   * (act, commit, reveal, entropy), the room's `version` it is made at, my `seat` and the
   * move's commitment `c` (docs/PROTOCOL.md, "Signed moves"). In order with each other. */
  sendSigned(msg, { kind, version, seat, c }) {
    this.signing = this.signing.then(async () => {
      const sig = this.kid ? await sign(kind, this.room, version, seat, c) : null;
      this.send(sig ? { ...msg, sig } : msg);
    }).catch(() => this.send(msg));
    return this.signing;
  }

  /** Drop the socket now (tests and page changes); it reconnects unless `close()`d. */
  drop() {
    if (this.ws) this.ws.close();
  }

  /** Close for good (no reconnecting): kicked, leaving the page. */
  close() {
    this.closed = true;
    this.setState("closed");
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    window.removeEventListener("online", this._online);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }
}
