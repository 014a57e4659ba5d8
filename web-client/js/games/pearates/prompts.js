// The prompt box of Pearates: every prompt kind of the engine as buttons, each one of
// view.legal. The hand-or-score choice (and the Banana Sabre's value, when several seats
// declare) is sealed: committed through the shell (ctx.commit), revealed when all decided.

import { cardFace, cardTitle, valueText } from "./cards.js";
import { forcedText, seatName } from "./table.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function sealedNow(ctx) {
  return !!(ctx.seal && ctx.seal.seats.includes(ctx.seat));
}

/** A sealed prompt whose sealed phase the shell has not opened yet (its message follows
 * the view): nothing may be sent until it has (an open move would be refused). */
export function sealPending(ctx) {
  const p = ctx.view.prompt;
  return !!(p && p.sealed && p.seats.includes(ctx.seat) && !sealedNow(ctx));
}

/** Send one of view.legal: sealed or open. */
export function send(ctx, move) {
  if (ctx.busy || sealPending(ctx) || !(ctx.view.legal || []).some((m) => same(m, move))) return;
  if (sealedNow(ctx)) ctx.commit(move);
  else ctx.act(move);
}

const keyOf = (m) => [m.move, m.card, m.end, m.seat, m.value].filter((x) => x !== undefined).join("-");

function button(ctx, label, move, cls = "") {
  return h("button", { type: "button", class: cls, dataset: { key: keyOf(move), move: JSON.stringify(move) }, disabled: ctx.busy || sealPending(ctx),
    onclick: () => send(ctx, move) }, label);
}

/** A card to click; `full`: with what it does (an action to play), else its value and title. */
function cardButton(ctx, move, { full = false } = {}) {
  return cardFace(move.card, { tag: "button", extra: full ? "" : "small", props: { type: "button", disabled: ctx.busy || sealPending(ctx),
    dataset: { key: keyOf(move), card: move.card, move: JSON.stringify(move) }, onclick: () => send(ctx, move) } });
}

const endWord = (end) => t(`pe.${end}`);
const sourceWord = (card) => (card === "deck" ? t("pe.from_deck") : cardTitle(card));

/** One row of choices under a heading. */
function group(title, items) {
  if (!items.length) return null;
  return h("div", { class: "pe-choices" }, h("h3", {}, title), h("div", { class: "pe-row" }, items));
}

/** What one move says, in words (the reveal line and the replay). */
export function moveText(ctx, m, name = (s) => seatName(ctx.room, ctx.view, s)) {
  const p = { card: m.card ? sourceWord(m.card) : "", end: m.end ? endWord(m.end) : "", name: m.seat !== undefined ? name(m.seat) : "", value: valueText(m.value) };
  return t(`pe.move.${m.move}${m.card !== undefined && (m.move === "keep" || m.move === "score") ? "_card" : ""}`, p);
}

function byVerb(legal) {
  const out = {};
  for (const m of legal) (out[m.move] ||= []).push(m);
  return out;
}

function choices(ctx, legal) {
  const v = byVerb(legal);
  const name = (s) => seatName(ctx.room, ctx.view, s);
  const parts = [];
  if (v.arrange) parts.push(group(t("pe.ask.arrange"), v.arrange.map((m) => cardButton(ctx, m))));
  if (v.play) parts.push(group(t("pe.ask.play"), v.play.map((m) => cardButton(ctx, m, { full: true }))));
  if (v.bid) parts.push(group(t("pe.ask.bid"), v.bid.map((m) => cardButton(ctx, m))));
  for (const verb of ["put", "take", "steal"]) {
    if (v[verb]) parts.push(group(t(`pe.ask.${verb}`), v[verb].map((m) => button(ctx, endWord(m.end), m))));
  }
  if (v.add) {
    const sources = [...new Set(v.add.map((m) => m.card))];
    parts.push(group(t("pe.ask.add"), sources.map((c) => h("span", { class: "pe-pair" }, h("span", { class: "small" }, sourceWord(c)),
      v.add.filter((m) => m.card === c).map((m) => button(ctx, endWord(m.end), m))))));
  }
  if (v.give) {
    const seats = [...new Set(v.give.map((m) => m.seat))];
    parts.push(group(t("pe.ask.give"), seats.map((s) => h("span", { class: "pe-pair" }, h("span", { class: "small" }, t("pe.to_bid_of", { name: name(s) })),
      v.give.filter((m) => m.seat === s).map((m) => button(ctx, sourceWord(m.card), m))))));
  }
  for (const verb of ["discard", "target", "winner"]) {
    if (v[verb]) parts.push(group(t(`pe.ask.${verb}`), v[verb].map((m) => button(ctx, name(m.seat), m))));
  }
  if (v.keep || v.score) {
    const all = [...(v.keep || []), ...(v.score || [])].filter((m) => m.card === undefined);
    const per = [...(v.keep || []), ...(v.score || [])].filter((m) => m.card !== undefined);
    if (all.length) {
      const got = ctx.view.received[ctx.seat].known;
      parts.push(h("div", { class: "pe-choices" }, h("h3", {}, t("pe.ask.keep")),
        h("div", { class: "pe-row pe-got", dataset: { role: "received" } }, got.map((c) => cardFace(c, { extra: "small" }))),
        h("div", { class: "pe-row" }, all.map((m) => button(ctx, t(`pe.choice.${m.move}`), m, m.move === "score" ? "secondary" : "")))));
    }
    if (per.length) {
      const cards = [...new Set(per.map((m) => m.card))];
      parts.push(group(t("pe.ask.keep_card"), cards.map((c) => h("span", { class: "pe-pair" }, cardFace(c, { extra: "small" }),
        per.filter((m) => m.card === c).map((m) => button(ctx, t(`pe.choice.${m.move}`), m))))));
    }
  }
  if (v.sabre) parts.push(group(t("pe.ask.sabre"), v.sabre.map((m) => button(ctx, valueText(m.value), m))));
  const plain = [...(v.stop || []), ...(v.hide || []), ...(v.pass || [])];
  if (plain.length) parts.push(h("div", { class: "row" }, plain.map((m) => button(ctx, t(`pe.do.${m.move}${ctx.view.phase === "action" && m.move === "stop" ? "_action" : ""}`), m, m.move === "pass" ? "secondary" : ""))));
  return parts;
}

/** My bid so far (face up to me, face down to the others), while I may still add to it. */
function myBid(ctx, kind) {
  if (kind !== "turn" && kind !== "bid") return null;
  const bid = ctx.view.bids[ctx.seat];
  if (!bid || !bid.size) return null;
  return h("div", { class: "pe-choices pe-mybid", dataset: { role: "my-bid" } }, h("h3", {}, t("pe.my_bid", { count: bid.size })),
    h("div", { class: "pe-row" }, bid.known.map((c) => cardFace(c, { extra: "small", props: { dataset: { role: "mine" } } }))));
}

function box(title, body, hint = null) {
  return h("div", { class: "prompt-box pe-prompt", role: "group", "aria-label": title, dataset: { turnTarget: "1" } },
    h("h2", {}, title), hint ? h("p", { class: "small" }, hint) : null, body);
}

/** The prompt box for my seat, or a note of what I wait for. */
export function promptBox(ctx) {
  const v = ctx.view;
  const legal = v.legal || [];
  const kind = v.prompt && v.prompt.kind;
  if (ctx.seal && ctx.seal.seats.includes(ctx.seat) && ctx.seal.committed[ctx.seat]) {
    const mine = ctx.sealedMove;
    return box(t("pe.sealed_title"), h("p", { dataset: { sealed: "1" } }, mine ? t("pe.sealed_mine", { move: moveText(ctx, mine) }) : t("pe.sealed_elsewhere")),
      t("pe.sealed_hint"));
  }
  if (!legal.length || !kind) {
    return h("div", { class: "prompt-box pe-prompt waiting" }, h("p", { class: "small" }, t("pe.waiting")));
  }
  // The sealed phase opens once the split shown before it is read (its frame waits behind
  // the held moment): the choice is shown, its buttons wait.
  const hint = sealPending(ctx) ? t(ctx.held ? "pe.seal_after_split" : "pe.seal_opening")
    : kind === "keep" ? t("pe.hint.keep", { count: v.received[ctx.seat].size })
    : v.forced ? forcedText(v) : t(`pe.hint.${kind}`);
  return box(t(`pe.title.${kind}`), [myBid(ctx, kind), ...choices(ctx, legal)], hint);
}
