// Pieces every page shares: the header (who am I, connection state) and the name form.

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { identity } from "./store.js";

export function setWho() {
  const who = document.getElementById("who");
  const id = identity.get();
  if (!who) return;
  replaceChildren(who, id ? ["Playing as ", h("strong", {}, id.user.name)] : "");
}

export function setConnState(state) {
  const el = document.getElementById("conn");
  if (!el) return;
  const text = { connecting: "connecting…", open: "connected", reconnecting: "reconnecting…", offline: "offline — retrying" }[state] || state;
  el.hidden = false;
  el.dataset.state = state;
  el.textContent = text;
}

/** The name form: resolves with {token, user} once this browser has a guest identity. */
export function nameForm(container, { intro = "Choose a name to play." } = {}) {
  return new Promise((resolve) => {
    const input = h("input", { type: "text", id: "name", name: "name", maxlength: "32", required: true,
      autocomplete: "nickname", value: (identity.get() && identity.get().user.name) || "" });
    const error = h("p", { class: "error-box", role: "alert", hidden: true });
    const form = h("form", { class: "panel", "aria-label": "your name",
      onsubmit: async (ev) => {
        ev.preventDefault();
        error.hidden = true;
        try {
          const res = await api.guest(input.value.trim());
          identity.set(res.token, res.user);
          setWho();
          resolve(identity.get());
        } catch (err) {
          error.textContent = err.message;
          error.hidden = false;
        }
      } },
    h("h2", {}, "Your name"),
    h("p", {}, intro),
    h("label", { class: "field", for: "name" }, "Name (shown to the table)", input),
    h("div", { class: "row" }, h("button", { type: "submit" }, "Continue")),
    error);
    replaceChildren(container, form);
    input.focus();
  });
}

