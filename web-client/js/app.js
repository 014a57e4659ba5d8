// The single-page app: one module per page, chosen by the path.
//   /             the lobby
//   /r/{code}     a room (its invite link): seats before the start, then the table
//   /replay/{id}  a finished game, step by step

import { h, replaceChildren } from "./dom.js";
import { setWho } from "./ui.js";

const main = () => document.getElementById("main");

async function route() {
  setWho();
  const path = location.pathname;
  const el = main();
  let m;
  if ((m = path.match(/^\/r\/([A-Za-z0-9_-]+)\/?$/))) {
    const { RoomPage } = await import("./room.js");
    window.tortuga = new RoomPage(el, m[1]);
  } else if ((m = path.match(/^\/replay\/([^/]+)\/?$/))) {
    const { ReplayPage } = await import("./replay.js");
    window.tortuga = new ReplayPage(el, decodeURIComponent(m[1]));
  } else {
    const { LobbyPage } = await import("./lobby.js");
    window.tortuga = new LobbyPage(el);
  }
}

route().catch((err) => {
  replaceChildren(main(), h("p", { class: "error-box", role: "alert" }, `Something went wrong: ${err.message}`));
  throw err;
});
