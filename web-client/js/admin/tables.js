// The console's tables: a header row of column names and rows whose cells carry them (a
// phone draws each row as a card), and the small formats the tabs share.

import { h } from "../dom.js";
import { t } from "../i18n.js";

export const SHORT = { dateStyle: "short", timeStyle: "medium" }; // a date and time in a table cell
export const yesNo = (value) => (value ? t("admin.yes") : t("admin.no"));
/** A table row whose cells carry their column's name (data-label): on a phone each row is
 * drawn as a card of "name: value" lines (app.css). */
export const row = (keys, attrs, cells) =>
  h("tr", attrs, cells.map((cell, i) => h("td", { "data-label": t(keys[i]) }, cell)));
export const headRow = (keys) => h("thead", {}, h("tr", {}, keys.map((key) => h("th", { scope: "col" }, t(key)))));
