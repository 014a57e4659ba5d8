// The single-page app: one module per page, chosen by the path.
//   /                      the landing page (what the site is, your name), then the lobby
//   /r/{code}              a room (its invite link): seats before the start, then the table
//   /replay/{id}           a finished game, step by step
//   /leaderboard/{game}    the rated players of one game
//   /ladder/{game}         the bot ladder of one game and its latest games
//   /player/{user}         a player's ratings and recent games (and their bots, on their own)
//   /signin#<token>        a one-time link from the player's other device signs this one in
//   /admin                 the operators' console (an admin account, not a player)

import { canonicalCode } from "./codes.js";
import { h, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";
import { setHeader, setWho } from "./ui.js";

const main = () => document.getElementById("main");

async function route() {
  setHeader();
  setWho();
  const path = location.pathname;
  const el = main();
  let m;
  if ((m = path.match(/^\/r\/([A-Za-z0-9_-]+)\/?$/))) {
    // A grouped code ("K7QX-MH4P") is the same room as its canonical form.
    const code = canonicalCode(m[1]) || m[1];
    if (code !== m[1]) history.replaceState(null, "", `/r/${code}${location.search}${location.hash}`);
    const { RoomPage } = await import("./room/page.js");
    window.tortuga = new RoomPage(el, code);
  } else if ((m = path.match(/^\/replay\/([^/]+)\/?$/))) {
    const { ReplayPage } = await import("./replay.js");
    window.tortuga = new ReplayPage(el, decodeURIComponent(m[1]));
  } else if ((m = path.match(/^\/leaderboard\/([a-z0-9-]+)\/?$/))) {
    const { LeaderboardPage } = await import("./leaderboard.js");
    window.tortuga = new LeaderboardPage(el, m[1]);
  } else if ((m = path.match(/^\/ladder\/([a-z0-9-]+)\/?$/))) {
    const { LadderPage } = await import("./ladder.js");
    window.tortuga = new LadderPage(el, m[1]);
  } else if ((m = path.match(/^\/player\/([^/]+)\/?$/))) {
    const { PlayerPage } = await import("./player.js");
    window.tortuga = new PlayerPage(el, decodeURIComponent(m[1]));
  } else if (/^\/signin\/?$/.test(path)) {
    const { SignInPage } = await import("./signin.js");
    window.tortuga = new SignInPage(el);
  } else if (/^\/admin\/?$/.test(path)) {
    const { AdminPage } = await import("./admin/page.js");
    window.tortuga = new AdminPage(el);
  } else {
    const { LobbyPage } = await import("./lobby.js");
    window.tortuga = new LobbyPage(el);
  }
}

// The installable app's service worker (sw.js: the shell's files for an instant start, and
// Web Push). It never answers for the API or the socket.
if ("serviceWorker" in navigator && window.isSecureContext) {
  const register = () => navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => undefined);
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

route().catch((err) => {
  replaceChildren(main(), h("p", { class: "error-box", role: "alert" }, t("common.error", { message: err.message })));
  throw err;
});
