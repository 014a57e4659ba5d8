// How a seat's occupant is named on every page: the name, and for a bot a mark (⚙) with its
// level in a tooltip (and in words for screen readers). Game modules use it too.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** `text` (the seat's name as shown) with the bot mark when `info` (a room seat) is a bot. */
export function nameNode(text, info) {
  if (!info || !info.bot) return h("span", { class: "who-name" }, text);
  const level = t(`room.level.${info.bot}`);
  const tip = t("names.bot_tip", { level });
  return h("span", { class: "who-name bot", title: tip, dataset: { bot: info.bot } }, text,
    h("span", { class: "bot-mark", "aria-hidden": "true" }, " ⚙"),
    h("span", { class: "visually-hidden" }, ` (${t("names.bot_sr", { level })})`));
}

/** A mark to put in a catalogue text where a name node goes: t(key, { name: NAME }). */
export const NAME = "\u2063";

/** The nodes of `text` (made with NAME in place of a name) with `node` in that place. */
export function placeName(text, node) {
  const at = text.indexOf(NAME);
  return at < 0 ? [text] : [text.slice(0, at), node, text.slice(at + NAME.length)];
}
