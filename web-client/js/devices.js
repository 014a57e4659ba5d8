// The player's own devices, on their page (player.js draws this only for the player
// themselves): notifications on this device (Web Push: opt in, what to receive, quiet
// hours), a one-time sign-in link with its QR code for another device, and the devices that
// signed in, and their passkeys (WebAuthn: passkeys.js; hidden where the browser has none).
// Nothing is asked of the browser until the player clicks.

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { errorText, formatDate, lang, t } from "./i18n.js";
import { addPasskey, passkeysSupported } from "./passkeys.js";

const PREFS = "tortuga.pushPrefs";
const KINDS = ["turn", "start", "invite", "end"];

function readPrefs() {
  try {
    const p = JSON.parse(localStorage.getItem(PREFS) || "null");
    if (p && Array.isArray(p.kinds)) return p;
  } catch {
    /* fall through */
  }
  return { kinds: [...KINDS], quiet: false, from: "22:00", to: "08:00" };
}

function minutes(text) {
  const [hh, mm] = String(text || "").split(":").map(Number);
  return Number.isInteger(hh) && Number.isInteger(mm) ? hh * 60 + mm : null;
}

function keyBytes(b64) {
  const raw = atob(b64.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

async function pushRegistration() {
  if (!navigator.serviceWorker.controller) await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

export class DevicePanels {
  constructor(user) {
    this.user = user;
    this.el = h("div", { class: "devices" });
    this.prefs = readPrefs();
    this.subscribed = false;
    this.status = "";
    this.link = null;
    this.signIns = null;
    this.passkeys = null;
    this.passkeyStatus = "";
    this.passkeyError = null;
    this.start();
  }

  async start() {
    if (pushSupported() && Notification.permission === "granted") {
      try {
        const reg = await pushRegistration();
        this.subscribed = !!(await reg.pushManager.getSubscription());
      } catch {
        this.subscribed = false;
      }
    }
    this.render();
    this.loadSignIns();
  }

  async loadSignIns() {
    try {
      const mine = await api.myDevices();
      this.signIns = mine.sign_ins;
      this.passkeys = mine.passkeys;
    } catch {
      this.signIns = null;
    }
    this.render();
  }

  body() {
    return {
      kinds: this.prefs.kinds,
      quiet_from: this.prefs.quiet ? minutes(this.prefs.from) : null,
      quiet_to: this.prefs.quiet ? minutes(this.prefs.to) : null,
      tz: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
      lang: lang(),
    };
  }

  async turnOn() {
    const permission = await Notification.requestPermission();
    if (permission !== "granted") return this.render();
    const reg = await pushRegistration();
    const { key } = await api.pushKey();
    const sub = (await reg.pushManager.getSubscription())
      || await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    await api.subscribePush({ ...sub.toJSON(), ...this.body() });
    this.subscribed = true;
  }

  async turnOff() {
    const reg = await pushRegistration();
    const sub = await reg.pushManager.getSubscription();
    if (sub) {
      await api.unsubscribePush(sub.endpoint);
      await sub.unsubscribe();
    }
    this.subscribed = false;
  }

  async save() {
    localStorage.setItem(PREFS, JSON.stringify(this.prefs));
    const reg = await pushRegistration();
    const sub = await reg.pushManager.getSubscription();
    if (sub) await api.subscribePush({ ...sub.toJSON(), ...this.body() });
  }

  async run(what, done) {
    try {
      await what();
      this.status = done;
    } catch (err) {
      this.status = t("devices.push.failed", { message: errorText(err) });
    }
    this.render();
  }

  pushPanel() {
    const title = h("h2", {}, t("devices.push.title"));
    if (!pushSupported()) {
      return h("section", { class: "panel", dataset: { panel: "push" } }, title, h("p", { class: "muted" }, t("devices.push.unsupported")));
    }
    const denied = Notification.permission === "denied";
    const p = this.prefs;
    const kinds = h("fieldset", { class: "push-kinds" }, h("legend", {}, t("devices.push.kinds")),
      KINDS.map((k) => h("label", { class: "check" },
        h("input", { type: "checkbox", checked: p.kinds.includes(k), dataset: { key: `push-${k}` }, onchange: (ev) => {
          p.kinds = KINDS.filter((x) => (x === k ? ev.target.checked : p.kinds.includes(x)));
        } }),
        t(`devices.push.kind.${k}`))));
    const quiet = h("fieldset", { class: "push-quiet" }, h("legend", {}, t("devices.push.quiet")),
      h("label", { class: "check" },
        h("input", { type: "checkbox", checked: p.quiet, dataset: { key: "push-quiet" }, onchange: (ev) => { p.quiet = ev.target.checked; } }),
        t("devices.push.quiet")),
      h("label", {}, t("devices.push.quiet_from"), " ",
        h("input", { type: "time", value: p.from, dataset: { key: "push-from" }, onchange: (ev) => { p.from = ev.target.value; } })),
      h("label", {}, t("devices.push.quiet_to"), " ",
        h("input", { type: "time", value: p.to, dataset: { key: "push-to" }, onchange: (ev) => { p.to = ev.target.value; } })));
    return h("section", { class: "panel", dataset: { panel: "push" }, "aria-label": t("devices.push.title") }, title,
      h("p", { class: "small muted" }, t("devices.push.intro")),
      denied ? h("p", { class: "error-box" }, t("devices.push.denied")) : null,
      h("p", { role: "status" }, this.subscribed ? t("devices.push.is_on") : t("devices.push.is_off")),
      kinds, quiet,
      h("div", { class: "row" },
        this.subscribed
          ? h("button", { type: "button", dataset: { key: "push-save" }, onclick: () => this.run(() => this.save(), t("devices.push.saved")) }, t("devices.push.save"))
          : null,
        h("button", {
          type: "button", class: this.subscribed ? "secondary" : null, disabled: denied, dataset: { key: "push-toggle" },
          onclick: () => this.run(() => (this.subscribed ? this.turnOff() : (localStorage.setItem(PREFS, JSON.stringify(p)), this.turnOn())), ""),
        }, this.subscribed ? t("devices.push.off") : t("devices.push.on"))),
      this.status ? h("p", { class: "small", role: "status" }, this.status) : null);
  }

  async makeLink() {
    try {
      this.link = await api.makeSignInLink();
      this.linkError = null;
    } catch (err) {
      this.link = null;
      this.linkError = t("devices.link.failed", { message: errorText(err) });
    }
    this.render();
  }

  linkPanel() {
    const l = this.link;
    const name = this.user.name;
    return h("section", { class: "panel", dataset: { panel: "link" }, "aria-label": t("devices.link.title") },
      h("h2", {}, t("devices.link.title")),
      h("p", { class: "small muted" }, t("devices.link.intro", { name, minutes: l ? Math.round(l.seconds / 60) : 5 })),
      h("div", { class: "row" }, h("button", { type: "button", dataset: { key: "make-link" }, onclick: () => this.makeLink() }, t("devices.link.make"))),
      this.linkError ? h("p", { class: "error-box", role: "alert" }, this.linkError) : null,
      l ? h("div", { class: "signin-link" },
        h("img", { class: "qr", src: l.qr, alt: t("devices.link.qr"), width: 200, height: 200 }),
        h("p", {}, h("input", { type: "text", readonly: true, value: l.url, "aria-label": t("devices.link.title"), dataset: { key: "link-url" }, onfocus: (ev) => ev.target.select() })),
        h("p", { class: "small" }, t("devices.link.expires", { time: formatDate(l.expires_at, { timeStyle: "short" }) })),
        h("button", { type: "button", class: "secondary", onclick: async (ev) => {
          try {
            await navigator.clipboard.writeText(l.url);
            ev.target.textContent = t("devices.link.copied");
          } catch {
            /* the field above can be copied by hand */
          }
        } }, t("devices.link.copy"))) : null,
      h("h3", {}, t("devices.sign_ins.title")),
      this.signIns && this.signIns.length
        ? h("ul", { class: "sign-ins" }, this.signIns.map((s) => h("li", {},
          t(`devices.sign_ins.${s.how}`, { device: s.device || "?", date: formatDate(s.at) }))))
        : h("p", { class: "muted small" }, t("devices.sign_ins.none")),
      h("p", { class: "small muted" }, t("devices.sign_out_hint")));
  }

  async passkeyRun(what, done) {
    try {
      await what();
      this.passkeyStatus = done;
      this.passkeyError = null;
    } catch (err) {
      this.passkeyStatus = "";
      // The player closing the browser's own dialog is no failure worth a red box.
      this.passkeyError = err && err.name === "NotAllowedError" ? null : t("devices.passkeys.failed", { message: errorText(err) });
    }
    await this.loadSignIns();
  }

  passkeyPanel() {
    if (!passkeysSupported()) return null;
    const keys = this.passkeys || [];
    return h("section", { class: "panel", dataset: { panel: "passkeys" }, "aria-label": t("devices.passkeys.title") },
      h("h2", {}, t("devices.passkeys.title")),
      h("p", { class: "small muted" }, t("devices.passkeys.intro", { name: this.user.name })),
      keys.length
        ? h("ul", { class: "passkeys" }, keys.map((k) => {
          const item = { date: formatDate(k.created_at, { dateStyle: "medium" }), device: k.device || "?" };
          return h("li", { class: "row" },
            h("span", {}, t("devices.passkeys.item", item), " · ",
              h("span", { class: "small muted" }, k.last_used_at
                ? t("devices.passkeys.used", { date: formatDate(k.last_used_at) })
                : t("devices.passkeys.none_used"))),
            h("button", {
              type: "button", class: "secondary", dataset: { key: "remove-passkey" },
              "aria-label": t("devices.passkeys.remove_label", item),
              onclick: () => this.passkeyRun(() => api.removePasskey(k.id), t("devices.passkeys.removed")),
            }, t("devices.passkeys.remove")));
        }))
        : h("p", { class: "muted small" }, t("devices.passkeys.none")),
      h("div", { class: "row" }, h("button", {
        type: "button", dataset: { key: "add-passkey" },
        onclick: () => this.passkeyRun(() => addPasskey(), t("devices.passkeys.added")),
      }, t("devices.passkeys.add"))),
      this.passkeyError ? h("p", { class: "error-box", role: "alert" }, this.passkeyError) : null,
      this.passkeyStatus ? h("p", { class: "small", role: "status" }, this.passkeyStatus) : null);
  }

  render() {
    replaceChildren(this.el, this.pushPanel(), this.linkPanel(), this.passkeyPanel());
  }
}
