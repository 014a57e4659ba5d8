// A player's page: their rating in each game they played rated games of (and whether a
// board lists them yet), and their recent games (GET /api/history/users/{user}/games): when,
// the game, their place and score, the rating change or why the game moved no rating, who
// else sat at the table, and a replay link for each finished game; how ratings work.

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { formatDate, formatNumber, gameTitle, t } from "./i18n.js";
import { errorBox, rating, ratingChange, rulesPanel, unratedText, withName } from "./history_pages.js";
import { identity } from "./store.js";
import { BotsPanel } from "./bots_panel.js";

const PAGE = 20;

export class PlayerPage {
  constructor(el, userId) {
    this.el = el;
    this.userId = userId;
    this.user = null;
    this.games = [];
    this.more = false;
    this.start();
  }

  async start() {
    try {
      this.take(await withName(this.el, () => api.userGames(this.userId, { limit: PAGE }), t("lobby.intro")));
    } catch (err) {
      const me = identity.get();
      if (err.status === 404 && me && me.user.id === this.userId) {
        this.user = me.user; // no game archived yet: their own page still has their bots
      } else {
        errorBox(this.el, "player.unavailable", err);
        return;
      }
    }
    this.render();
  }

  take(page) {
    this.user = page.user || this.user;
    if (page.ratings) this.rated = page.ratings;  // {engine, rating, games}: the server's
    if (page.rating_rules) this.rules = page.rating_rules;
    const games = page.games || [];
    this.games.push(...games);
    this.more = games.length === PAGE;
  }

  async loadMore() {
    this.take(await api.userGames(this.userId, { limit: PAGE, offset: this.games.length }));
    this.render();
  }

  /** The player's rating in each game: the server's, else the one after the most recent
   * rated game shown. Map engine -> {rating, games}. */
  ratings() {
    const out = new Map();
    if (this.rated) {
      for (const r of this.rated) out.set(r.engine, { rating: r.rating, games: r.games });
      return out;
    }
    const played = new Map();
    for (const g of this.games) played.set(g.engine, (played.get(g.engine) || 0) + 1);
    for (const g of this.games) {
      if (!out.has(g.engine) && g.seat && typeof g.seat.rating_after === "number") {
        out.set(g.engine, { rating: g.seat.rating_after, games: played.get(g.engine) || 0 });
      }
    }
    return out;
  }

  /** What the rating column says of one game: the change, or why it moved no rating. */
  ratingCell(g) {
    const seat = g.seat || {};
    if (g.unrated) return h("span", { class: "small muted unrated", dataset: { unrated: g.unrated } }, unratedText(g.unrated));
    if (seat.new) return h("span", { class: "small muted unrated", dataset: { unrated: "new" } }, t("ratings.new_seat"));
    return ratingChange(seat.rating_before, seat.rating_after);
  }

  /** The player's own page (not a bot's): their bot accounts too. */
  botsPanel() {
    const me = identity.get();
    if (!me || me.user.id !== this.userId || this.userId.startsWith("b_")) return null;
    this.bots = this.bots || new BotsPanel();
    return this.bots.el;
  }

  /** The player's own devices (devices.js), on their own page only. */
  async devices() {
    const me = identity.get();
    if (!me || !me.user || me.user.id !== this.userId) return null;
    if (!this.devicePanels) {
      const { DevicePanels } = await import("./devices.js");
      this.devicePanels = new DevicePanels(me.user);
    }
    return this.devicePanels.el;
  }

  async render() {
    const own = await this.devices();
    const name = (this.user && this.user.name) || this.userId;
    document.title = `${t("player.title", { name })} — ${t("site.name")}`;
    const ratings = this.ratings();
    const listedAfter = (this.rules && this.rules.listed_after) || 1;
    replaceChildren(this.el,
      h("h1", {}, name),
      this.user && this.user.created_at
        ? h("p", { class: "small muted" }, t("player.since", { date: formatDate(this.user.created_at, { dateStyle: "long" }) })) : null,
      h("section", { class: "panel", "aria-label": t("player.ratings") },
        h("h2", {}, t("player.ratings")),
        ratings.size
          ? h("ul", { class: "ratings" }, [...ratings].map(([engine, r]) => h("li", { dataset: { game: engine } },
            h("a", { href: `/leaderboard/${engine}` }, gameTitle(engine)), " ",
            h("strong", {}, rating(r.rating)), " ",
            h("span", { class: "small muted" }, t("player.games_played", { count: r.games })),
            r.games < listedAfter ? h("span", { class: "small muted unlisted" }, ` · ${t("player.unlisted", { count: listedAfter })}`) : null)))
          : h("p", { class: "muted" }, t("player.no_ratings"))),
      h("section", { class: "panel", "aria-label": t("player.recent") },
        h("h2", {}, t("player.recent")),
        this.games.length ? this.table() : h("p", { class: "muted" }, t("player.no_games")),
        this.more ? h("div", { class: "row" }, h("button", { type: "button", class: "secondary", onclick: () => this.loadMore() }, t("player.more"))) : null),
      rulesPanel(this.rules),
      this.botsPanel(),
      own);
  }

  table() {
    return h("div", { class: "scroll" }, h("table", { class: "recent" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("player.when")),
        h("th", { scope: "col" }, t("player.game")),
        h("th", { scope: "col" }, t("player.place")),
        h("th", { scope: "col" }, t("player.score")),
        h("th", { scope: "col" }, t("player.rating_change")),
        h("th", { scope: "col", class: "table-col" }, t("player.table")),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("player.replay"))))),
      h("tbody", {}, this.games.map((g) => {
        const seat = g.seat || {};
        const others = (g.seats || []).filter((s) => s.seat !== seat.seat)
          .map((s) => s.name || (s.bot ? t("common.bot") : "?"));
        const over = g.status === "finished";
        return h("tr", { dataset: { game: g.id } },
          h("td", { class: "small" }, formatDate(g.ended_at || g.started_at || g.created_at, { dateStyle: "medium" })),
          h("td", {}, gameTitle(g.engine)),
          h("td", {}, over && typeof seat.rank === "number" ? t("player.place_of", { rank: seat.rank, players: g.players })
            : t(`player.status.${g.status === "abandoned" ? "abandoned" : "playing"}`)),
          h("td", { "data-label": t("player.score") }, typeof seat.score === "number" ? formatNumber(seat.score) : ""),
          // An unrated game says so in words: no "Rating" label before them on a phone.
          h("td", { "data-label": g.unrated || seat.new ? null : t("player.rating_change") }, this.ratingCell(g)),
          h("td", { class: "table-col small" }, others.join(", ")),
          h("td", {}, over ? h("a", { class: "button secondary", href: `/replay/${encodeURIComponent(g.id)}` }, t("player.replay")) : null));
      }))));
  }
}
