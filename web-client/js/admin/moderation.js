// The moderation tab: the site's bans and mutes, a form to ban or mute a user by id and a
// button to lift each. Methods of AdminPage (page.js mixes them in).

import { h, replaceChildren } from "../dom.js";
import { t } from "../i18n.js";
import { call } from "./api.js";

export const moderationTab = {
  /** Bans and mutes on the whole site: a form to ban or mute a user by id (from a room's
   * seats, a chat line or the audit), and the lists with a button to lift each. */
  showModeration() {
    this.roomId = null;
    const reason = h("input", { name: "site-reason", maxlength: 500, required: true, autocomplete: "off" });
    const said = h("p", { class: "admin-said", role: "status" });
    const lists = h("div", { class: "admin-site-lists" }, h("p", {}, t("common.loading")));
    let load = async () => {};
    const act = async (path, body, done) => {
      const why = reason.value.trim();
      if (!why) {
        said.textContent = t("error.reason-required");
        reason.focus();
        return;
      }
      said.textContent = "";
      try {
        const answer = await call("POST", path, { ...body, reason: why });
        said.textContent = done(answer);
        reason.value = "";
        await load();
      } catch (err) {
        this.failed(err, said);
      }
    };
    const user = h("input", { name: "mod-user", maxlength: 64, required: true, autocomplete: "off", placeholder: "g_…" });
    const what = h("select", { name: "mod-what" }, ["ban", "mute"].map((w) => h("option", { value: w }, t(`admin.mod.site_${w}`))));
    // A site ban may also refuse new guests from the address the banned guest came from.
    const address = h("input", { type: "checkbox", name: "mod-address" });
    const minutes = h(
      "select",
      { name: "mod-minutes" },
      ["", "60", "1440", "10080"].map((m) => h("option", { value: m }, m ? t(`admin.mod.for.${m}`) : t("admin.mod.for_good"))),
    );
    const form = h(
      "form",
      {
        class: "admin-action admin-site-form",
        onsubmit: (ev) => {
          ev.preventDefault();
          const id = user.value.trim();
          if (!id) return;
          const body = what.value === "mute" && minutes.value ? { minutes: Number(minutes.value) } : {};
          if (what.value === "ban" && address.checked) body.address = true;
          act(`/users/${encodeURIComponent(id)}/${what.value}`, body, () => t(what.value === "ban" ? "admin.mod.banned_site" : "admin.mod.muted_site", { name: id }));
        },
      },
      h("label", {}, t("admin.mod.user_id"), " ", user),
      h("label", { class: "admin-extend-by" }, t("admin.mod.what"), " ", what),
      h("label", { class: "admin-extend-by" }, t("admin.mod.how_long"), " ", minutes),
      h("label", { class: "admin-extend-by" }, address, " ", t("admin.mod.address")),
      h("label", {}, t("admin.reason"), " ", reason),
      h("button", { type: "submit", class: "danger" }, t("admin.mod.apply")),
      said,
    );
    load = async () => {
      try {
        const { bans, mutes } = await call("GET", "/moderation");
        const lifted = (e) => () => t("admin.mod.lifted", { name: e.name || e.user });
        replaceChildren(
          lists,
          this.sanctionList("admin.mod.site_bans", bans, (e) => ({ path: `/users/${encodeURIComponent(e.user)}/unban`, body: {}, label: "admin.mod.unban" }), (path, body, e) => act(path, body, lifted(e))) ||
            h("p", { class: "muted" }, t("admin.mod.no_bans")),
          this.sanctionList("admin.mod.site_mutes", mutes, (e) => ({ path: `/users/${encodeURIComponent(e.user)}/unmute`, body: {}, label: "admin.mod.unmute" }), (path, body, e) => act(path, body, lifted(e))) ||
            h("p", { class: "muted" }, t("admin.mod.no_mutes")),
        );
      } catch (err) {
        this.failed(err, lists);
      }
    };
    this.shell("moderation", h("h2", {}, t("admin.tab.moderation")), h("p", { class: "muted" }, t("admin.mod.intro")), h("section", { class: "panel" }, form), lists);
    load();
  },
};
