// What the leaderboard and player pages share: asking the history API with this browser's
// guest token (a name first when it has none, or when the server refuses the token).

import { h, replaceChildren } from "./dom.js";
import { errorText, formatNumber, t } from "./i18n.js";
import { identity } from "./store.js";
import { nameForm, setWho } from "./ui.js";

/** `ask()`'s answer; a browser without a (valid) name chooses one first and asks again. */
export async function withName(el, ask, intro) {
  if (!identity.get()) {
    await nameForm(el, { intro });
    setWho();
  }
  try {
    return await ask();
  } catch (err) {
    if (err.status !== 401) throw err;
    identity.clear();
    await nameForm(el, { intro });
    setWho();
    return ask();
  }
}

/** A rating as people read it: one decimal. */
export function rating(value) {
  return typeof value === "number" ? formatNumber(value, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) : "–";
}

/** A rating change: "+1.2" / "−0.8". */
export function ratingChange(before, after) {
  if (typeof before !== "number" || typeof after !== "number") return "";
  const d = after - before;
  const text = formatNumber(Math.abs(d), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return d >= 0 ? `+${text}` : `−${text}`;
}

export function errorBox(el, key, err) {
  replaceChildren(el, h("p", { class: "error-box", role: "alert" }, t(key, { message: errorText(err) })),
    h("p", {}, h("a", { href: "/" }, t("common.back_to_lobby"))));
}

// Why a game over moved no rating (the history's ``unrated``: the archiver's own rules).
const WHY = {
  "not-finished": "ratings.why.not-finished",
  "few-people": "ratings.why.few-people",
  "same-person": "ratings.why.same-person",
  "new-players": "ratings.why.new-players",
  ladder: "ratings.why.ladder",
};

/** "Not rated: fewer than two people played it (bots do not count)." */
export function unratedText(code) {
  return t("ratings.unrated", { why: t(WHY[code] || "ratings.why.not-rated") });
}

/** The rating rules in sentences (the history's ``rating_rules``): who counts, when a new
 * player's games start to count, after how many rated games a board lists a player. */
export function ratingRules(rules) {
  if (!rules) return [];
  const out = [t("ratings.rule_people")];
  const games = rules.min_games || 0;
  const hours = rules.min_age_hours || 0;
  if (games > 0 && hours > 0) out.push(t("ratings.rule_new_both", { count: games, hours: formatNumber(hours) }));
  else if (games > 0) out.push(t("ratings.rule_new_games", { count: games }));
  else if (hours > 0) out.push(t("ratings.rule_new_hours", { hours: formatNumber(hours) }));
  if ((rules.listed_after || 0) > 1) out.push(t("leaderboard.min_games", { count: rules.listed_after }));
  return out;
}

/** The rules as a list under a heading, for the pages where a player looks. */
export function rulesPanel(rules) {
  const lines = ratingRules(rules);
  if (!lines.length) return null;
  return h("section", { class: "panel rating-rules", "aria-label": t("ratings.rules_title") },
    h("h2", {}, t("ratings.rules_title")),
    h("ul", {}, lines.map((line) => h("li", {}, line))));
}
