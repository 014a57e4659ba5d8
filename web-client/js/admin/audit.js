// The audit tab: every admin action, newest first, filtered and paged; read only. Methods
// of AdminPage (page.js mixes them in).

import { h, replaceChildren } from "../dom.js";
import { formatDate, t } from "../i18n.js";
import { call } from "./api.js";
import { headRow, row, SHORT } from "./tables.js";

const AUDIT_PAGES = [10, 50, 200]; // entries per page the audit offers
const AUDIT_COLUMNS = ["admin.audit.at", "admin.audit.admin", "admin.audit.action", "admin.audit.room", "admin.audit.reason", "admin.audit.text"];
// The actions the audit knows today (a suggestion list: the filter takes any action name).
const AUDIT_ACTIONS = [
  "login",
  "logout",
  "close",
  "announce",
  "reveal",
  "pause",
  "resume",
  "extend",
  "lock-lobby",
  "unlock-lobby",
  "kick",
  "ban",
  "unban",
  "replace",
  "mute",
  "unmute",
  "hide-chat",
  "drain",
  "undrain",
  "clear-announcement",
];

/** What an audit entry's details say in a line: an announcement's or a hidden message's text,
 * the user acted on (and seat), the node drained. */
function auditDetails(d) {
  const parts = [];
  if (d.user) parts.push(d.name ? `${d.name} (${d.user})` : d.user);
  if (typeof d.seat === "number") parts.push(t("admin.audit.seat", { seat: d.seat + 1 }));
  if (d.scope) parts.push(t(`admin.audit.scope.${d.scope}`));
  if (d.instance) parts.push(d.instance);
  if (d.text) parts.push(`“${d.text}”`);
  return parts.join(" · ");
}

export const auditTab = {
  /** The audit log, newest first: filtered by admin, action, room and a text in the room or
   * the reason; a page at a time ("Older entries" asks for the entries before the last one
   * shown). Read only: the console has no way to change an entry. */
  showAudit(preset = {}) {
    this.roomId = null;
    const body = h("tbody");
    const said = h("p", { class: "admin-state", role: "status" });
    const field = (name, value, attrs = {}) => h("input", { name: `audit-${name}`, value: value || "", ...attrs });
    const admin = field("admin", preset.admin, { autocomplete: "off" });
    const action = field("action", preset.action, { list: "admin-actions", autocomplete: "off" });
    const room = field("room", preset.room, { autocomplete: "off" });
    const q = field("q", preset.q, { type: "search" });
    const actions = h("datalist", { id: "admin-actions" }, AUDIT_ACTIONS.map((a) => h("option", { value: a })));
    const perPage = h(
      "select",
      { name: "audit-per-page" },
      AUDIT_PAGES.map((n) => h("option", { value: String(n), selected: n === 50 }, String(n))),
    );
    const older = h("button", { type: "button", class: "secondary admin-older", hidden: true }, t("admin.audit.older"));
    let asked = 0;
    let last = null; // the id of the oldest entry shown
    const entry = (e) =>
      row(AUDIT_COLUMNS, { dataset: { action: e.action } }, [
        formatDate(e.at, SHORT),
        e.admin,
        h("code", {}, e.action),
        e.target ? h("button", { type: "button", class: "link", onclick: () => this.showRoom(e.target) }, e.target) : "",
        e.reason || "",
        auditDetails(e.details || {}),
      ]);
    const load = async (more = false) => {
      const mine = ++asked;
      const page = Number(perPage.value);
      const params = new URLSearchParams({ limit: String(page) });
      for (const [key, input] of [["admin", admin], ["action", action], ["room", room], ["q", q]]) {
        if (input.value.trim()) params.set(key, input.value.trim());
      }
      if (more && last !== null) params.set("before", String(last));
      try {
        const { entries } = await call("GET", `/audit?${params}`);
        if (mine !== asked) return; // a later search answered or will answer
        if (!more) replaceChildren(body);
        body.append(...entries.map(entry));
        if (entries.length) last = entries[entries.length - 1].id;
        older.hidden = entries.length < page;
        said.textContent = body.children.length ? t("admin.audit.shown", { count: body.children.length }) : t("admin.audit.none");
      } catch (err) {
        this.failed(err, said);
      }
    };
    older.addEventListener("click", () => load(true));
    const again = () => {
      last = null;
      load(false);
    };
    for (const input of [admin, action, room, q]) input.addEventListener("input", again);
    perPage.addEventListener("change", again);
    this.shell(
      "audit",
      h("h2", {}, t("admin.tab.audit")),
      h(
        "div",
        { class: "admin-filters" },
        h("label", {}, t("admin.audit.by_admin"), " ", admin),
        h("label", {}, t("admin.audit.by_action"), " ", action, actions),
        h("label", {}, t("admin.audit.by_room"), " ", room),
        h("label", {}, t("admin.audit.search"), " ", q),
        h("label", {}, t("admin.audit.per_page"), " ", perPage),
      ),
      said,
      h(
        "div",
        { class: "table-scroll" },
        h("table", { class: "admin-audit" }, headRow(AUDIT_COLUMNS), body),
      ),
      older,
    );
    load();
  },
};
