// The nodes tab: the live server processes (sockets, rooms, version, uptime) and draining
// one or lifting an admin's drain, with a reason. Methods of AdminPage (page.js mixes them in).

import { h, replaceChildren } from "../dom.js";
import { formatDate, t } from "../i18n.js";
import { call, REFRESH_MS } from "./api.js";
import { headRow, row, SHORT } from "./tables.js";

const NODE_COLUMNS = ["admin.node.instance", "admin.node.alive", "admin.node.sockets", "admin.node.rooms", "admin.node.version", "admin.node.started", "admin.node.uptime", "admin.node.draining"];

/** "3 d 4 h", "2 h 5 min", "40 s": how long a node has been up. */
function uptime(seconds) {
  const d = Math.floor(seconds / 86400);
  const hrs = Math.floor((seconds % 86400) / 3600);
  const min = Math.floor((seconds % 3600) / 60);
  if (d) return t("admin.node.uptime.days", { d, h: hrs });
  if (hrs) return t("admin.node.uptime.hours", { h: hrs, min });
  if (min) return t("admin.node.uptime.minutes", { min });
  return t("admin.node.uptime.seconds", { s: seconds });
}

export const nodesTab = {
  showNodes() {
    this.roomId = null;
    const body = h("tbody");
    const said = h("p", { role: "status" });
    const reason = h("input", { name: "drain-reason", maxlength: 500, autocomplete: "off", dataset: { key: "drain-reason" } });
    const drainSaid = h("p", { class: "admin-said", role: "status" });
    // Drain a node, or lift an admin's drain (`lift`): either way with a reason (audited).
    // The last node serving is drained only when the admin confirms it (`force`).
    const drain = async (instance, lift = false, force = false) => {
      const why = reason.value.trim();
      if (!why) {
        drainSaid.textContent = t("error.reason-required");
        reason.focus();
        return;
      }
      try {
        const body = force ? { reason: why, force: true } : { reason: why };
        await call("POST", `/nodes/${encodeURIComponent(instance)}/${lift ? "undrain" : "drain"}`, body);
        drainSaid.textContent = t(lift ? "admin.node.undrain_asked" : "admin.node.drain_asked", { node: instance });
        reason.value = "";
        load();
      } catch (err) {
        if (!lift && !force && err.code === "last-serving-node"
          && window.confirm(t("admin.node.drain_last_confirm", { node: instance }))) {
          await drain(instance, false, true);
          return;
        }
        this.failed(err, drainSaid);
      }
    };
    this.shell(
      "nodes",
      h("h2", {}, t("admin.tab.nodes")),
      said,
      h(
        "section",
        { class: "panel admin-drain" },
        h("p", { class: "muted" }, t("admin.node.drain_intro")),
        h("label", { class: "admin-mod-reason" }, t("admin.reason"), " ", reason),
        drainSaid,
      ),
      h(
        "table",
        { class: "admin-nodes" },
        headRow(NODE_COLUMNS),
        body,
      ),
    );
    const load = async () => {
      try {
        const { nodes } = await call("GET", "/nodes");
        said.textContent = nodes.length ? "" : t("admin.node.none");
        replaceChildren(
          body,
          nodes.map((n) =>
            row(NODE_COLUMNS, { class: n.alive ? "node-alive" : "node-dead", dataset: { instance: n.instance } }, [
              h("code", {}, n.instance),
              h("span", { class: "node-state" }, t(n.alive ? "admin.node.up" : "admin.node.dead")),
              n.sockets == null ? "" : String(n.sockets),
              String(n.rooms),
              h("code", {}, n.version || ""),
              n.started_at ? formatDate(new Date(n.started_at), SHORT) : "",
              n.uptime_seconds == null ? "" : uptime(n.uptime_seconds),
              n.draining
                ? h("span", { class: "node-draining" },
                  n.draining.kind === "admin" ? t("admin.node.draining_by", { by: n.draining.by, reason: n.draining.reason || "" }) : t("admin.node.stopping"),
                  n.alive && n.draining.kind === "admin"
                    ? [" ", h("button", { type: "button", class: "small", dataset: { act: "undrain" }, onclick: () => drain(n.instance, true) }, t("admin.node.undrain"))]
                    : null)
                : n.alive
                  ? h("button", { type: "button", class: "small danger", dataset: { act: "drain" }, onclick: () => drain(n.instance) }, t("admin.node.drain"))
                  : "",
            ]),
          ),
        );
      } catch (err) {
        this.failed(err, said);
      }
    };
    load();
    this.timer = setInterval(load, REFRESH_MS);
  },
};
