// A game's bot ladder (GET /api/history/ladder/{game}; docs/BOTS.md): players' bots and the
// server's own, by rating, with each bot's owner; the latest ladder games, each with its replay.

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { formatDate, formatNumber, gameTitle, t } from "./i18n.js";
import { errorBox, rating } from "./history_pages.js";
import { knownGames } from "./leaderboard.js";

export class LadderPage {
  constructor(el, game) {
    this.el = el;
    this.game = game;
    this.start();
  }

  async start() {
    const title = gameTitle(this.game);
    document.title = `${t("ladder.title", { game: title })} — ${t("site.name")}`;
    try {
      this.board = await api.ladder(this.game);
      this.games = await knownGames();
    } catch (err) {
      errorBox(this.el, "ladder.unavailable", err);
      return;
    }
    this.render();
  }

  render() {
    const title = gameTitle(this.game);
    const entries = this.board.entries || [];
    const board = entries.length
      ? h("div", { class: "scroll" }, h("table", { class: "board ladder" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("leaderboard.rank")),
          h("th", { scope: "col" }, t("ladder.bot")),
          h("th", { scope: "col" }, t("ladder.owner")),
          h("th", { scope: "col" }, t("leaderboard.rating")),
          h("th", { scope: "col" }, t("leaderboard.games")))),
        h("tbody", {}, entries.map((e, i) => h("tr", { dataset: { entrant: e.entrant } },
          h("td", {}, formatNumber(i + 1)),
          h("td", {}, e.server ? serverBot(e.entrant) : h("a", { href: `/player/${encodeURIComponent(e.entrant)}` }, e.name)),
          h("td", { class: "small" }, e.owner ? h("a", { href: `/player/${encodeURIComponent(e.owner.id)}` }, e.owner.name) : t("ladder.server")),
          h("td", {}, rating(e.rating)),
          h("td", {}, formatNumber(e.games)))))))
      : h("p", { class: "muted empty" }, t("ladder.empty", { game: title }));
    const recent = (this.board.games || []).map((g) => h("li", { dataset: { game: g.game_id } },
      h("span", { class: "small muted" }, g.ended_at ? formatDate(g.ended_at, { dateStyle: "medium", timeStyle: "short" }) : ""), " ",
      (g.seats || []).map((s) => `${s.name || ""}${typeof s.rank === "number" ? ` (${s.rank})` : ""}`).join(", "), " ",
      h("a", { class: "button secondary", href: `/replay/${encodeURIComponent(g.game_id)}` }, t("player.replay"))));
    replaceChildren(this.el,
      h("h1", {}, t("ladder.title", { game: title })),
      h("p", { class: "small muted" }, t("ladder.intro")),
      h("section", { class: "panel" }, board),
      recent.length ? h("section", { class: "panel", "aria-label": t("ladder.recent") },
        h("h2", {}, t("ladder.recent")), h("ul", { class: "links ladder-games" }, recent)) : null,
      h("nav", { class: "panel", "aria-label": t("leaderboard.other_games") },
        h("h2", {}, t("leaderboard.other_games")),
        h("ul", { class: "links" }, this.games.filter((g) => g !== this.game).map((g) =>
          h("li", {}, h("a", { href: `/ladder/${g}` }, gameTitle(g)))))));
  }
}

/** The server's bots of one level (``server:<level>``), in the reader's language. */
function serverBot(entrant) {
  const level = entrant.slice("server:".length);
  return t("room.bot_named", { level: t(`room.level.${level}`) });
}
