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
