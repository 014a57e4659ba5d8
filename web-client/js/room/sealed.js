// Sealed phases (seal.js): my move committed as a digest, revealed once every seat committed,
// and every opening checked against the digest its seat published. Methods of RoomPage
// (page.js mixes them in).

import { announce, h } from "../dom.js";
import { t } from "../i18n.js";
import * as sealing from "../seal.js";
import * as sounds from "../sounds.js";

/** The version a sealed phase stands at: `bid@7` -> 7 (what its commit and opening sign). */
function phaseVersion(phase) {
  return Number(String(phase).split("@").pop());
}

export const sealedMoves = {
  onSealed(msg, render = true) {
    if (this.ended) {
      this.seal = null;
      if (render) this.render();
      return;
    }
    const same = this.seal && this.seal.phase === msg.phase;
    this.seal = {
      phase: msg.phase,
      version: msg.version,
      kind: msg.kind,
      seats: msg.seats || [],
      committed: { ...(same ? this.seal.committed : {}), ...(msg.committed || {}) },
      open: !!msg.open,
      revealed: msg.revealed || [],
      opened: null,
      commit_by: msg.commit_by ?? null,
      open_by: msg.open_by ?? null,
    };
    if (!same) this.ui = {};
    this.afterView();
    this.syncSeal();
    if (render) this.render();
  },

  onCommitted(msg) {
    if (!this.seal || this.seal.phase !== msg.phase) return;
    this.seal.committed[msg.seat] = msg.digest || true;
    if (msg.seat === this.seat) this.sending = false;
    this.render();
  },

  onOpenPhase(msg) {
    if (!this.seal || this.seal.phase !== msg.phase) return;
    this.seal.open = true;
    this.seal.open_by = msg.open_by ?? null;
    this.syncSeal();
    this.render();
  },

  /** The sealed moves are open: the module may hold them on screen (everyone's bids at once:
   * its `hold` with `{kind: "revealed", ...}`, drawn over the view as it is); else the reveal
   * sounds and is said here. Then every opening is checked against its seal. */
  onRevealed(msg) {
    const same = this.seal && this.seal.phase === msg.phase;
    const committed = same ? this.seal.committed : {};
    const moves = msg.moves || {};
    if (same) this.seal.opened = moves;
    const event = {
      kind: "revealed", phase: msg.phase, moves, defaults: msg.defaults || [],
      proxies: msg.proxies || [], private: !!msg.private,
    };
    const hold = this.game && this.game.hold && !this.ended ? this.game.hold(this.view, this.view, event, (s) => this.name(s)) : null;
    if (hold) {
      this.startHold(hold);
    } else {
      sounds.play("reveal");
      const text = this.game && this.game.revealText ? this.game.revealText(this.ctx(), moves) : "";
      if (text) announce(text);
    }
    sealing.forget(this.code, msg.phase);
    this.render();
    this.checkOpenings(msg, committed);
  },

  /** Every opening checked against the digest published when its seat committed. A seat
   * whose time ran out before it committed has no digest (the "default" marker) and no
   * salt: the engine's default was played for it, which the revealed message flags. */
  async checkOpenings(msg, committed) {
    const opened = msg.opened || msg.moves || {};
    const salts = msg.salts || {};
    const round = this.view && this.view.round;
    const bad = [];
    let checked = 0;
    for (const [seat, move] of Object.entries(opened)) {
      const expected = committed[seat];
      if (typeof expected !== "string" || !/^[0-9a-f]{64}$/.test(expected) || !salts[seat]) continue;
      checked += 1;
      if (!(await sealing.check(msg.phase, Number(seat), move, salts[seat], expected))) bad.push(Number(seat));
    }
    this.revealCheck = { phase: msg.phase, ok: bad.length === 0 && checked > 0, bad, checked, round };
    this.render();
  },

  mySealSeat() {
    return this.seal && this.seat !== null && this.seal.seats.includes(this.seat);
  },

  /** After a reload or a reconnect: reveal (or re-commit) what this tab sealed before. */
  syncSeal() {
    if (!this.mySealSeat() || this.ended) return;
    const stored = sealing.load(this.code, this.seal.phase);
    if (!stored || stored.seat !== this.seat) return;
    const mine = this.seal.committed[this.seat];
    if (mine && typeof mine === "string" && mine !== stored.digest) return;  // not this tab's seal
    const signed = (kind) => ({ kind, version: phaseVersion(stored.phase), seat: this.seat, c: stored.digest });
    if (!mine && !this.seal.open) {
      this.conn.sendSigned({ type: "commit", phase: stored.phase, digest: stored.digest }, signed("commit"));
    } else if (this.seal.open && !this.seal.revealed.includes(this.seat)) {
      this.conn.sendSigned({ type: "reveal", phase: stored.phase, move: stored.move, salt: stored.salt }, signed("reveal"));
      this.seal.revealed = [...this.seal.revealed, this.seat];
    }
  },

  /** Seal my move of the sealed phase: commit its digest now, reveal it once all committed. */
  async commitSealed(move) {
    if (!this.mySealSeat() || this.seal.committed[this.seat] || this.sending || this.ended) return;
    this.sending = true;
    const phase = this.seal.phase;
    const sealed = await sealing.seal(this.code, phase, this.seat, move);
    sealing.forget(this.code, null, { keep: phase });
    this.conn.sendSigned({ type: "commit", phase, digest: sealed.digest },
      { kind: "commit", version: phaseVersion(phase), seat: this.seat, c: sealed.digest });
    announce(t("room.sealed_announce"));
    this.render();
  },

  /** Under the trick: whether the sealed moves just opened match their seals. */
  revealNote() {
    const c = this.revealCheck;
    const v = this.view;
    if (!c || !c.checked || v.round !== c.round || (v.prompt && v.prompt.sealed)) return null;
    return h("p", { class: "small", dataset: { check: c.ok ? "ok" : "bad" } },
      c.ok ? `✓ ${t("room.seals_ok", { count: c.checked })}`
        : `✗ ${t("room.seals_bad", { who: c.bad.map((s) => this.name(s)).join(", ") })}`);
  },
};
