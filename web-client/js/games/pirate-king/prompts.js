// The prompt box of Pirate King!: every prompt kind of the engine as buttons, each turning
// into one of view.legal. A sealed prompt (the reveal-or-stop beats, several players' effect
// decisions) is committed through the shell (ctx.commit), an open one sent (ctx.act).

import { cardFace, cardTitle } from "./cards.js";
import { seatName } from "./table.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Whether my move now is sealed (the shell's commit/reveal) rather than open. */
function sealedNow(ctx) {
  return !!(ctx.seal && ctx.seal.seats.includes(ctx.seat));
}

/** A sealed prompt whose sealed phase the shell has not opened yet (its message follows
 * the view): nothing may be sent until it has. */
export function sealPending(ctx) {
  const p = ctx.view.prompt;
  return !!(p && p.sealed && p.seats.includes(ctx.seat) && !sealedNow(ctx));
}

/** Send one of view.legal: sealed or open. */
export function send(ctx, move) {
  if (ctx.busy || sealPending(ctx) || !(ctx.view.legal || []).some((m) => same(m, move))) return;
  ctx.ui.pk = null;
  if (sealedNow(ctx)) ctx.commit(move);
  else ctx.act(move);
}

function button(ctx, key, label, move, extra = {}) {
  return h("button", { type: "button", dataset: { key, move: JSON.stringify(move) }, disabled: ctx.busy,
    onclick: () => send(ctx, move), ...extra }, label);
}

function cardButton(ctx, key, name, move, extra = "") {
  return cardFace(name, { tag: "button", extra, props: { type: "button", disabled: ctx.busy,
    dataset: { key, card: name, move: JSON.stringify(move) }, onclick: () => send(ctx, move) } });
}

function box(title, body, hint = null) {
  return h("div", { class: "prompt-box pk-prompt", role: "group", "aria-label": title, dataset: { turnTarget: "1" } },
    h("h2", {}, title), hint ? h("p", { class: "small" }, hint) : null, body);
}

/** Look: the cards looked at, reordered with ↑ / ↓, then put back (top first). */
function lookBox(ctx, legal) {
  const ui = ctx.ui;
  const first = legal[0].stack;
  if (!ui.pk || !ui.pk.stack || ui.pk.stack.length !== first.length || !legal.some((m) => same(m.stack.slice().sort(), ui.pk.stack.slice().sort()))) {
    ui.pk = { stack: [...first] };
  }
  const stack = ui.pk.stack;
  const swap = (i, j) => { [stack[i], stack[j]] = [stack[j], stack[i]]; ctx.rerender(); ctx.focus(`[data-key='up-${stack[j]}'], [data-key='down-${stack[j]}']`); };
  const items = stack.map((c, i) => h("li", { dataset: { card: c } },
    h("span", { class: "small pk-pos" }, i === 0 ? t("pk.look.top") : `${i + 1}.`), cardFace(c),
    h("button", { type: "button", class: "secondary", dataset: { key: `up-${c}` }, disabled: i === 0,
      "aria-label": t("pk.look.up", { card: cardTitle(c) }), onclick: () => swap(i, i - 1) }, "↑"),
    h("button", { type: "button", class: "secondary", dataset: { key: `down-${c}` }, disabled: i === stack.length - 1,
      "aria-label": t("pk.look.down", { card: cardTitle(c) }), onclick: () => swap(i, i + 1) }, "↓")));
  return box(t("pk.look.title", { count: stack.length }),
    [h("ol", { class: "pk-stack" }, items), button(ctx, "stack", t("pk.look.put_back"), { stack: [...stack] })],
    t("pk.look.hint"));
}

/** The Captain orders a tie: click the tied players in order; the last one takes the token. */
function tieBox(ctx, legal) {
  const v = ctx.view;
  const ui = ctx.ui;
  const tied = [...legal[0].order].sort((a, b) => a - b);
  if (!ui.pk || !ui.pk.order) ui.pk = { order: [] };
  const chosen = ui.pk.order;
  const left = tied.filter((s) => !chosen.includes(s));
  const body = [
    h("p", {}, chosen.length ? chosen.map((s, i) => `${i + 1}. ${seatName(ctx.room, v, s)}`).join("  ") : t("pk.tie.none_yet")),
    h("div", { class: "row" }, left.map((s) => h("button", { type: "button", dataset: { key: `order-${s}` }, disabled: ctx.busy,
      onclick: () => {
        chosen.push(s);
        if (chosen.length === tied.length - 1) chosen.push(tied.find((x) => !chosen.includes(x)));
        ctx.rerender();
        ctx.focus("[data-key^='order-'], [data-key='order']");
      } }, seatName(ctx.room, v, s)))),
    h("div", { class: "row" },
      chosen.length === tied.length ? button(ctx, "order", t("pk.tie.confirm"), { order: [...chosen] }) : null,
      chosen.length ? h("button", { type: "button", class: "secondary", dataset: { key: "order-reset" },
        onclick: () => { ui.pk = { order: [] }; ctx.rerender(); } }, t("pk.tie.again")) : null),
  ];
  return box(t(v.phase === "battle" ? "pk.tie.battle" : "pk.tie.loot"), body, t("pk.tie.hint"));
}

/** Take a Monster or Loot; two players at the Loot: take one, then drop another. */
function takeBox(ctx, legal) {
  const v = ctx.view;
  const ui = ctx.ui;
  const title = v.phase === "battle" ? t("pk.take.monster") : t("pk.take.loot");
  const drops = legal.some((m) => m.drop);
  if (!drops) return box(title, h("div", { class: "pk-zone" }, legal.map((m) => cardButton(ctx, `take-${m.take}`, m.take, m))));
  const take = ui.pk && ui.pk.take && legal.some((m) => m.take === ui.pk.take) ? ui.pk.take : null;
  if (!take) {
    const takes = [...new Set(legal.map((m) => m.take))];
    return box(title, h("div", { class: "pk-zone" }, takes.map((c) => cardFace(c, { tag: "button", props: {
      type: "button", disabled: ctx.busy, dataset: { key: `take-${c}`, card: c },
      onclick: () => { ui.pk = { take: c }; ctx.rerender(); ctx.focus("[data-key^='drop-']"); } } }))), t("pk.take.then_drop"));
  }
  return box(t("pk.take.drop", { card: cardTitle(take) }), [
    h("div", { class: "pk-zone" }, legal.filter((m) => m.take === take).map((m) => cardButton(ctx, `drop-${m.drop}`, m.drop, m))),
    h("button", { type: "button", class: "secondary", dataset: { key: "take-back" }, onclick: () => { ui.pk = null; ctx.rerender(); } }, t("pk.take.other")),
  ], t("pk.take.drop_hint"));
}

/** The prompt of my seat now, or a note of what I have sealed; null when I owe nothing. */
export function promptBox(ctx) {
  const v = ctx.view;
  const seal = ctx.seal;
  if (ctx.seat === null || ctx.ended) return null;
  if (seal && seal.seats.includes(ctx.seat) && seal.committed[ctx.seat]) {
    const mine = ctx.sealedMove;
    const n = Object.keys(seal.committed).length;
    return h("div", { class: "prompt-box", dataset: { sealed: seal.committed[ctx.seat] === "default" ? "default" : "1" } },
      h("h2", {}, seal.committed[ctx.seat] === "default" ? t("pk.timed_out") : mine ? t("pk.sealed_move", { move: moveText(ctx, mine) }) : t("pk.sealed")),
      h("p", {}, seal.open ? t("pk.revealing") : t("pk.sealed_progress", { n, total: seal.seats.length })));
  }
  const legal = v.legal || [];
  if (!legal.length) return null;
  if (sealPending(ctx)) {
    return h("div", { class: "prompt-box", dataset: { sealed: "opening" } }, h("p", {}, t("pk.seal_opening")));
  }
  const kind = v.decision ? v.decision.kind : v.prompt.kind;
  const m0 = legal[0];
  if ("pick" in m0) {
    return box(t("pk.pick.title"), h("div", { class: "pk-zone" }, legal.map((m) => cardButton(ctx, `pick-${m.pick}`, m.pick, m))), t("pk.pick.hint"));
  }
  if (kind === "reveal" && !v.decision) {
    return box(t("pk.beat.title"), h("div", { class: "row pk-beat-buttons" },
      button(ctx, "reveal", t("pk.beat.reveal"), { do: "reveal" }, { "aria-keyshortcuts": "R" }),
      button(ctx, "stop", t("pk.beat.stop"), { do: "stop" }, { class: "secondary", "aria-keyshortcuts": "S" })),
    sealedNow(ctx) ? t("pk.beat.secret") : t("pk.beat.alone"));
  }
  const from = v.decision ? cardTitle(v.decision.card) : "";
  if ("stack" in m0) return lookBox(ctx, legal);
  if ("flip" in m0) return box(t("pk.flip.title", { card: from }), h("div", { class: "pk-zone" }, legal.map((m) => cardButton(ctx, `flip-${m.flip}`, m.flip, m))), t("pk.flip.hint"));
  if ("choose" in m0) return box(t("pk.choose.title", { card: from }), h("div", { class: "pk-zone" }, legal.map((m) => cardButton(ctx, `choose-${m.choose}`, m.choose, m))), t("pk.choose.hint"));
  if ("retrieve" in m0) return box(t("pk.retrieve.title", { card: from }), h("div", { class: "pk-zone" }, legal.map((m) => cardButton(ctx, `retrieve-${m.retrieve}`, m.retrieve, m))), t("pk.retrieve.hint"));
  if ("do" in m0) {
    return box(t("pk.retrieve.title", { card: from }), h("div", { class: "row" },
      button(ctx, "reveal", t("pk.retrieve.reveal"), { do: "reveal" }), button(ctx, "pass", t("pk.retrieve.pass"), { do: "pass" }, { class: "secondary" })),
    t("pk.retrieve.empty"));
  }
  if ("give" in m0) {
    return box(t("pk.give.title", { card: from }), h("div", { class: "row" }, legal.map((m) => {
      const s = v.table[m.give];
      return button(ctx, `give-${m.give}`, `${seatName(ctx.room, v, m.give)} (☠ ${s.curses}/3)`, m);
    })), t("pk.give.hint"));
  }
  if ("reclaim" in m0 || "leave" in m0) {
    const c = m0.reclaim || m0.leave;
    return box(t("pk.reclaim.title", { card: cardTitle(c) }), h("div", { class: "row" },
      legal.map((m) => button(ctx, m.reclaim ? "reclaim" : "leave", m.reclaim ? t("pk.reclaim.reclaim") : t("pk.reclaim.leave"), m, m.leave ? { class: "secondary" } : {}))));
  }
  if ("order" in m0) return tieBox(ctx, legal);
  if ("take" in m0) return takeBox(ctx, legal);
  if ("crown" in m0) {
    return box(t("pk.crown.title"), h("div", { class: "row" }, legal.map((m) => button(ctx, `crown-${m.crown}`, seatName(ctx.room, v, m.crown), m))), t("pk.crown.hint"));
  }
  return null;
}

/** A move in words ("reveal", "flip Cutlass", "give to Bob"). */
export function moveText(ctx, m, name = (s) => seatName(ctx.room, ctx.view, s)) {
  if (!m) return "";
  if ("do" in m) return t(`pk.move.${m.do}`);
  if ("pick" in m) return t("pk.move.pick", { card: cardTitle(m.pick) });
  if ("stack" in m) return t("pk.move.stack", { cards: m.stack.map(cardTitle).join(", ") });
  for (const verb of ["flip", "choose", "retrieve", "reclaim", "leave"]) if (verb in m) return t(`pk.move.${verb}`, { card: cardTitle(m[verb]) });
  if ("give" in m) return t("pk.move.give", { name: name(m.give) });
  if ("crown" in m) return t("pk.move.crown", { name: name(m.crown) });
  if ("order" in m) return t("pk.move.order", { names: m.order.map(name).join(", ") });
  if ("take" in m) return m.drop ? t("pk.move.take_drop", { card: cardTitle(m.take), drop: cardTitle(m.drop) }) : t("pk.move.take", { card: cardTitle(m.take) });
  return JSON.stringify(m);
}
