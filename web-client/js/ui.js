// Pieces every page shares: the header (who am I, language, connection state) and the name form.

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { LANGUAGES, errorText, lang, setLang, t, translatePage } from "./i18n.js";
import { identity } from "./store.js";

/** The header's static texts in the player's language, and the language switch. */
export function setHeader() {
  translatePage(document);
  const box = document.getElementById("lang");
  if (!box) return;
  const select = h("select", { id: "lang-select", "aria-label": t("header.language"),
    onchange: () => setLang(select.value) },
  Object.entries(LANGUAGES).map(([code, name]) => h("option", { value: code, lang: code, selected: code === lang() }, name)));
  select.value = lang();
  replaceChildren(box, select);
}

export function setWho() {
  const who = document.getElementById("who");
  const id = identity.get();
  if (!who) return;
  if (!id) {
    replaceChildren(who, "");
    return;
  }
  // "Playing as {name}": the name in bold, wherever the language puts it.
  const [before, after] = t("header.playing_as", { name: "\u0000" }).split("\u0000");
  replaceChildren(who, before, h("a", { href: `/player/${encodeURIComponent(id.user.id)}`, class: "me" }, h("strong", {}, id.user.name)), after ?? "");
}

export function setConnState(state) {
  const el = document.getElementById("conn");
  if (!el) return;
  const known = ["connecting", "open", "reconnecting", "offline", "slowed", "closed"];
  const text = known.includes(state) ? t(`conn.${state}`) : state;
  el.hidden = false;
  el.dataset.state = state;
  el.textContent = text;
}

/** The name form: resolves with {token, user} once this browser has a guest identity. */
export function nameForm(container, { intro = t("name.intro"), title = t("name.title") } = {}) {
  return new Promise((resolve) => {
    const input = h("input", { type: "text", id: "name", name: "name", maxlength: "32", required: true,
      autocomplete: "nickname", value: (identity.get() && identity.get().user.name) || "" });
    const error = h("p", { class: "error-box", role: "alert", hidden: true });
    const form = h("form", { class: "panel", "aria-label": t("name.aria"),
      onsubmit: async (ev) => {
        ev.preventDefault();
        error.hidden = true;
        try {
          const res = await api.guest(input.value.trim());
          identity.set(res.token, res.user);
          setWho();
          resolve(identity.get());
        } catch (err) {
          error.textContent = errorText(err);
          error.hidden = false;
        }
      } },
    h("h2", {}, title),
    intro ? h("p", {}, intro) : null,
    h("label", { class: "field", for: "name" }, t("name.label"), input),
    h("div", { class: "row" }, h("button", { type: "submit" }, t("name.continue"))),
    error);
    replaceChildren(container, form);
    input.focus();
  });
}

