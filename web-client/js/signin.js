// /signin#<token>: a one-time sign-in link made on the player's other device (devices.js).
// The token is in the fragment, so it never reaches a server log; it is sent once, and the
// page forgets it from the address bar at once. Used, this browser is that player; refused
// (used, expired, signed out since), nothing changes here: the identity it had, it keeps.
// /signin alone: "Sign in with a passkey" (passkeys.js), where the browser has passkeys;
// signed in, this browser is that player, stored as a link's sign-in is.

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { passkeysSupported, signInWithPasskey } from "./passkeys.js";
import { identity } from "./store.js";
import { setWho } from "./ui.js";

export class SignInPage {
  constructor(el) {
    this.el = el;
    const token = location.hash.slice(1);
    history.replaceState(null, "", "/signin");
    document.title = `${t("signin.title")} — ${t("site.name")}`;
    if (token) this.useLink(token);
    else this.offerPasskey();
  }

  offerPasskey(error = null) {
    if (!passkeysSupported()) {
      this.render(h("p", { class: "muted" }, t("signin.passkey_none")));
      return;
    }
    this.render(h("p", { class: "muted" }, t("signin.passkey_intro")),
      h("div", { class: "row" }, h("button", { type: "button", dataset: { key: "passkey-signin" }, onclick: () => this.usePasskey() }, t("signin.passkey"))),
      error ? h("p", { class: "error-box", role: "alert" }, error) : null);
  }

  async usePasskey() {
    try {
      const { token, user } = await signInWithPasskey();
      this.signedIn(token, user);
    } catch (err) {
      // Closed or timed out in the browser's own dialog: offered again, no alarm.
      this.offerPasskey(err && err.name === "NotAllowedError" ? null : t("signin.passkey_failed", { message: errorText(err) }));
    }
  }

  render(...body) {
    replaceChildren(this.el, h("section", { class: "panel signin" }, h("h1", {}, t("signin.title")), ...body));
  }

  async useLink(token) {
    this.render(h("p", { role: "status" }, t("signin.working")));
    try {
      const { token: mine, user } = await api.useSignInLink(token);
      this.signedIn(mine, user);
    } catch (err) {
      this.render(h("p", { class: "error-box", role: "alert" }, t("signin.refused", { message: errorText(err) })),
        h("p", {}, h("a", { href: "/" }, t("common.back_to_lobby"))));
    }
  }

  signedIn(token, user) {
    identity.set(token, user);
    setWho();
    this.render(h("p", { role: "status" }, t("signin.done", { name: user.name })),
      h("p", {}, h("a", { class: "button", href: `/player/${encodeURIComponent(user.id)}` }, t("signin.to_player"))));
  }
}
