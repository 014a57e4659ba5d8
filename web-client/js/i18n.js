// The player's language: every text a page shows comes from one catalogue per language
// through t(key, params): the shell's (js/i18n/en.js, js/i18n/vi.js) joined with the
// console's (js/admin/i18n/<lang>.js) and each game's, beside its module
// (js/games/<folder>/i18n/<lang>.js, the folders of games/registry.js).
//
//   t("lobby.title")                          a plain text
//   t("player.games_played", { count: 3 })    a plural: the catalogue value is {one, other}
//                                              (Intl.PluralRules of the language picks the form)
//   t("header.playing_as", { name })          "{name}" placeholders are replaced (as text, never HTML)
//   errorText(err)                         a server error ({code, message}) in the player's words
//
// The language is the one the player chose (the header's switch, kept in localStorage and
// in a cookie so the server-rendered rules pages follow it), else the first of the
// browser's navigator.languages that we have, else English. A key missing from the chosen
// catalogue falls back to English; a key missing from both shows the key itself (and the
// catalogue test fails: tests/test_catalogues.py).

import en from "./i18n/en.js";
import vi from "./i18n/vi.js";
import { gameFolders } from "./games/registry.js";

export const CATALOGUES = { en: { ...en }, vi: { ...vi } };

// Every game's texts, read before any page uses t() (a module importing this one waits for
// them): the lobby names every game and an error may come from any game's rules.
await Promise.all(
  ["./admin", ...gameFolders().map((folder) => `./games/${folder}`)].flatMap((place) =>
    Object.entries(CATALOGUES).map(async ([code, texts]) => {
      Object.assign(texts, (await import(`${place}/i18n/${code}.js`)).default);
    }),
  ),
);
/** The languages on offer, each named in itself (for the switch). */
export const LANGUAGES = { en: "English", vi: "Tiếng Việt" };
export const DEFAULT_LANG = "en";

const STORE = "tortuga.lang";
const COOKIE = "tortuga_lang";

/** The best language we have for a list of BCP 47 tags ("vi-VN", "en-US", ...). */
export function pickLang(tags) {
  for (const tag of tags || []) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in CATALOGUES) return base;
  }
  return DEFAULT_LANG;
}

function stored() {
  try {
    const v = localStorage.getItem(STORE);
    return v && v in CATALOGUES ? v : null;
  } catch {
    return null;
  }
}

function browserTags() {
  if (typeof navigator === "undefined") return [];
  return navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
}

let current = stored() || pickLang(browserTags());
let plurals = null;

/** The language pages are shown in now ("en" or "vi"). */
export function lang() {
  return current;
}

/** Choose a language: remembered in this browser (and told to the server by a cookie). */
export function setLang(code, { reload = true } = {}) {
  if (!(code in CATALOGUES)) return;
  current = code;
  plurals = null;
  try {
    localStorage.setItem(STORE, code);
  } catch {
    /* private mode: this page still switches */
  }
  document.cookie = `${COOKIE}=${code}; path=/; max-age=31536000; samesite=lax`;
  document.documentElement.lang = code;
  if (reload) location.reload();
}

function lookup(key) {
  const own = CATALOGUES[current][key];
  if (own !== undefined) return own;
  const fallback = CATALOGUES[DEFAULT_LANG][key];
  if (fallback !== undefined) return fallback;
  if (typeof console !== "undefined") console.warn(`i18n: no text for ${key}`);
  return key;
}

function pluralForm(count) {
  if (!plurals) plurals = new Intl.PluralRules(current);
  return plurals.select(count);
}

/** The text of `key` in the player's language, with "{name}" placeholders filled from
 * `params`; a plural entry ({one, other, ...}) is chosen by `params.count`. */
export function t(key, params = {}) {
  let value = lookup(key);
  if (value && typeof value === "object") {
    const count = Number(params.count ?? 0);
    value = value[pluralForm(count)] ?? value.other;
  }
  return String(value).replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const v = params[name];
    return typeof v === "number" ? formatNumber(v) : String(v);
  });
}

/** Whether the catalogue has a text for `key` (for texts that only some codes have). */
export function has(key) {
  return CATALOGUES[current][key] !== undefined || CATALOGUES[DEFAULT_LANG][key] !== undefined;
}

/** A server error ({code, message} from the websocket or an ApiError) in the player's
 * words: the catalogue's "error.<code>" when it has one, else the server's message. */
export function errorText(err) {
  const code = err && err.code;
  if (code && has(`error.${code}`)) return t(`error.${code}`);
  return (err && err.message) || t("error.unknown");
}

export function formatNumber(n, options) {
  return new Intl.NumberFormat(current, options).format(n);
}

/** A date and time (ISO text or Date) as the player's language writes it. */
export function formatDate(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  if (!value) return "";
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return new Intl.DateTimeFormat(current, options).format(d);
}

/** Fill the static texts of the page: elements with data-i18n="key" get t(key) as their
 * text; data-i18n-attr="attr:key,attr:key" fills attributes (aria-label, title, ...). */
export function translatePage(root = document) {
  if (root === document) document.documentElement.lang = current;
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(",")) {
      const [attr, key] = pair.split(":").map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}

/** The cookie follows the stored choice (a choice made before the cookie existed, or a
 * cookie that expired) so the server's rules pages match the app. */
if (typeof document !== "undefined" && stored() && !document.cookie.includes(`${COOKIE}=${current}`)) {
  document.cookie = `${COOKIE}=${current}; path=/; max-age=31536000; samesite=lax`;
}

/** A game's title in the player's language ("games.<id>.title"), else the server's. */
export function gameTitle(id, fallback) {
  return has(`games.${id}.title`) ? t(`games.${id}.title`) : fallback || id;
}
