// A game's leaderboard: the rated players of one game, best first (GET
// /api/history/leaderboard/{game}), each linking to their player page; how ratings work
// (the server's rules) and, for a player not on the board, why not yet; links to the other
// games' boards.

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { formatNumber, gameTitle, t } from "./i18n.js";
import { GAMES } from "./landing.js";
import { errorBox, rating, rulesPanel, withName } from "./history_pages.js";
import { identity } from "./store.js";

const PAGE = 50;

export class LeaderboardPage {
  constructor(el, game) {
    this.el = el;
    this.game = game;
    this.entries = [];
    this.more = false;
    this.games = GAMES;
    this.start();
  }

  async start() {
    const title = gameTitle(this.game);
    document.title = `${t("leaderboard.title", { game: title })} — ${t("site.name")}`;
    try {
      const page = await withName(this.el, () => api.leaderboard(this.game, { limit: PAGE }), t("lobby.intro"));
      this.take(page);
      this.games = await knownGames();
    } catch (err) {
      if (err.status === 404) {
        replaceChildren(this.el, h("h1", {}, t("leaderboard.no_such_game", { game: this.game })), this.otherGames());
        return;
      }
      errorBox(this.el, "leaderboard.unavailable", err);
      return;
    }
    this.render();
  }

  take(page) {
    if (page && typeof page.min_games === "number") this.minGames = page.min_games;
    if (page && page.rating_rules) this.rules = page.rating_rules;
    if (page && "you" in page) this.mine = page.you;  // my own rating here, or null
    const entries = (page && page.entries) || [];
    this.entries.push(...entries);
    this.more = entries.length === PAGE;
  }

  async loadMore() {
    this.take(await api.leaderboard(this.game, { limit: PAGE, offset: this.entries.length }));
    this.render();
  }

  render() {
    const title = gameTitle(this.game);
    const me = identity.get();
    const body = this.entries.length
      ? h("div", { class: "scroll" }, h("table", { class: "board" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("leaderboard.rank")),
          h("th", { scope: "col" }, t("leaderboard.player")),
          h("th", { scope: "col" }, t("leaderboard.rating")),
          h("th", { scope: "col" }, t("leaderboard.games")))),
        h("tbody", {}, this.entries.map((e) => h("tr", { class: me && me.user.id === e.user ? "me" : null, dataset: { user: e.user } },
          h("td", {}, formatNumber(e.rank)),
          h("td", {}, h("a", { href: `/player/${encodeURIComponent(e.user)}` }, e.name)),
          h("td", {}, rating(e.rating)),
          h("td", {}, formatNumber(e.games)))))))
      : h("p", { class: "muted empty" }, t("leaderboard.empty", { game: title }));
    replaceChildren(this.el,
      h("h1", {}, t("leaderboard.title", { game: title })),
      h("p", { class: "small muted" }, t("leaderboard.intro")),
      this.youNote(),
      h("section", { class: "panel" }, body,
        this.more ? h("div", { class: "row" }, h("button", { type: "button", class: "secondary", onclick: () => this.loadMore() }, t("leaderboard.more"))) : null),
      rulesPanel(this.rules),
      this.otherGames());
  }

  /** Why the player looking is not on the board yet: no rated game, or too few. */
  youNote() {
    const me = identity.get();
    if (!me || this.mine === undefined || this.entries.some((e) => e.user === me.user.id)) return null;
    const needed = this.minGames || 1;
    const games = this.mine ? this.mine.games : 0;
    if (games >= needed) return null;  // listed, further down the board
    return h("p", { class: "note you-unlisted", dataset: { games: String(games) } },
      games ? t("leaderboard.you_few", { count: games, needed }) : t("leaderboard.you_none"));
  }

  otherGames() {
    return h("nav", { class: "panel", "aria-label": t("leaderboard.other_games") },
      h("h2", {}, t("leaderboard.other_games")),
      h("ul", { class: "links" }, this.games.filter((g) => g !== this.game).map((g) =>
        h("li", {}, h("a", { href: `/leaderboard/${g}` }, gameTitle(g))))));
  }
}

/** The games the server has (each has a board), in the landing page's order. */
export async function knownGames() {
  try {
    const listed = new Set(((await api.games()).games || []).map((g) => g.id));
    return [...GAMES.filter((g) => listed.has(g)), ...[...listed].filter((g) => !GAMES.includes(g))];
  } catch {
    return GAMES;
  }
}
