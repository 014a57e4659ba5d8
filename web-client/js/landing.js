// The landing page, for a browser that has no name yet: what the site is (the five games,
// each card a link to its rules; playing with friends by link, bots, watching) in one
// screen, with the name box. It resolves once the visitor has a guest identity; the lobby
// follows.

import { h, replaceChildren } from "./dom.js";
import { gameTitle, t } from "./i18n.js";
import { passkeysSupported } from "./passkeys.js";
import { nameForm } from "./ui.js";

/** The games the site offers, in the order the landing page shows them. */
export const GAMES = ["skull-king", "bid-tricks", "loon-tricks", "pirate-king", "pearates"];
/** The games with a rules page (web-client/rules/<id>.html): the server names them in the
 * page's head; without that, the two this client was written with. */
function rulesPages() {
  const meta = document.querySelector('meta[name="tortuga:rules"]');
  return new Set(meta ? meta.content.split(/\s+/).filter(Boolean) : ["skull-king", "bid-tricks"]);
}
// Symbols every system font has (no emoji: a bare Linux shows those as boxes).
const ICONS = { "skull-king": "♚", "bid-tricks": "⚓", "loon-tricks": "✪", "pirate-king": "⚔", pearates: "❦" };

export async function showLanding(el) {
  document.title = t("site.title");
  const nameBox = h("div");
  const withRules = rulesPages();
  // A game with a rules page is one link, its title's, stretched over the card (app.css).
  const games = GAMES.map((id) => {
    const rules = withRules.has(id);
    return h("li", { class: "game-card", dataset: { game: id } },
      h("span", { class: "game-icon", "aria-hidden": "true" }, ICONS[id]),
      h("h3", {}, rules ? h("a", { class: "rules-link", href: `/rules/${id}` }, gameTitle(id)) : gameTitle(id)),
      h("p", { class: "small" }, t(`games.${id}.blurb`)),
      rules ? h("span", { class: "small card-more", "aria-hidden": "true" }, `${t("landing.read_rules")} →`) : null);
  });
  replaceChildren(el,
    h("section", { class: "landing" },
      h("div", { class: "landing-hero" },
        h("h1", {}, t("landing.title")),
        h("p", { class: "lead" }, t("landing.lead"))),
      // A player from another device signs in here (signin.js); a guest needs nothing but a name.
      h("div", { class: "landing-name" }, nameBox,
        passkeysSupported()
          ? h("p", { class: "small landing-passkey" }, h("a", { href: "/signin", dataset: { key: "passkey-signin-link" } }, t("landing.passkey")))
          : null),
      h("ul", { class: "how", "aria-label": t("landing.how") },
          h("li", {}, h("span", { "aria-hidden": "true" }, "✉ "), t("landing.how_link")),
          h("li", {}, h("span", { "aria-hidden": "true" }, "⚙ "), t("landing.how_bots")),
          h("li", {}, h("span", { "aria-hidden": "true" }, "◉ "), t("landing.how_watch")),
          h("li", {}, h("span", { "aria-hidden": "true" }, "⚖ "), t("landing.how_fair"))),
      h("section", { class: "landing-games", "aria-label": t("landing.games") },
        h("h2", {}, t("landing.games")),
        h("ul", { class: "game-cards" }, games))));
  return nameForm(nameBox, { title: t("landing.start"), intro: t("lobby.intro") });
}
