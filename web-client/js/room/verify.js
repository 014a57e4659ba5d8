// The verified badge once the seed is out: the deals this browser saw recomputed by the game
// module, the seed's derivation from the players' random bytes, and whether the archive has
// the game (for the replay link); "Check this game": every deal of the game recomputed here
// from the archive's replay. Methods of RoomPage (page.js mixes them in).

import { api } from "../api.js";
import { checkRecord, heads } from "../chain.js";
import { h } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { seenDeals } from "../store.js";
import { checkDerivation, mineIsIn } from "../seeding.js";
import { fromHex, sha256, toHex } from "../sha256.js";

export const verification = {
  async runVerify() {
    if (this.verify || this.verifying || !this.room || !this.room.seed || !this.game) return;
    this.verifying = true;
    const seen = seenDeals.get(this.code);
    try {
      const rounds = {};
      if (seen) for (const [r, w] of Object.entries(seen.rounds)) rounds[r] = w;
      // The fingerprint this browser stored when it saw the deal, not the one the end brings.
      const seedDigest = (seen && seen.seedDigest) || this.room.seed_digest;
      this.verify = await this.game.verifyDeals({
        game: this.view.game, seedHex: this.room.seed, seedDigest,
        players: this.view.players, seat: seen ? seen.seat : this.seat, seen: rounds,
      });
      const derivation = await checkDerivation(this.code, this.room, seen ? seen.seat : this.seat);
      if (!derivation.ok) this.verify = { ...this.verify, ok: false, error: derivation.message };
    } catch (err) {
      this.verify = { ok: false, error: err.message, rounds: [], checked: 0 };
    }
    this.verifying = false;
    this.render();
  },

  /** Whether the archive holds the game over yet (the archiver stores it within seconds; a
   * site without a database never does): the replay link shows once it does, and the record
   * says whether the game counts for the ratings (``this.record``). */
  async checkArchive() {
    const gameId = this.room && this.room.game_id;
    if (!gameId || this.archived !== null) return;
    this.archived = "checking";
    // Each ask waits on the server up to 4 s for a game not stored yet (no string of
    // "not found" answers); a game stored as under way (a checkpoint) is asked again.
    for (const pause of [0, 300, 600, 1000, 1500, 2000, 3000, 5000]) {
      if (pause) await new Promise((r) => setTimeout(r, pause));
      try {
        const record = await api.game(gameId, { wait: 4 });
        if (record && (record.status === "abandoned" || record.status === "finished")) {
          this.archived = true;
          this.record = record;
          if (record.status === "finished") this.loadRoundHistory(gameId);
          this.render();
          return;
        }
      } catch (err) {
        if (err.status !== 404) break;  // no history API here, or it failed: no link
      }
    }
    this.archived = false;
    this.render();
  },

  /** The archived record against itself (its move chain, every signature) and against the
   * heads this browser was sent while it played: once the archive has the whole game. */
  async runChainCheck() {
    const gameId = this.room && this.room.game_id;
    if (!gameId || this.chainCheck) return;
    this.chainCheck = { pending: true };
    for (const wait of [0, 300, 600, 1000, 1500, 2000, 3000, 5000, 8000]) {
      if (wait) await new Promise((r) => setTimeout(r, wait));
      try {
        const record = await api.game(gameId, { wait: 4 });  // not stored yet: the server waits
        const last = Math.max(0, ...(record.events || []).map((e) => e.version));
        if (record.status === "playing" || last < 1) continue;
        this.chainCheck = await checkRecord(record, await heads.get(this.code));
        this.render();
        return;
      } catch (err) {
        if (err.status !== 404) break;
      }
    }
    this.chainCheck = { pending: true };  // no archive here (or not yet): nothing to say
    this.render();
  },

  /** What the chain check found, in a line: the record is the game this browser saw, or
   * where it differs, or what is broken in it. */
  chainLine() {
    const c = this.chainCheck;
    if (!c || c.pending) return null;
    let text;
    let state = c.ok ? "ok" : "bad";
    if (c.differsAt !== null) text = `✗ ${t("room.chain.differs", { version: c.differsAt })}`;
    else if (!c.chained) [text, state] = [t("room.chain.unchained"), "unchained"];
    else if (!c.ok) text = `✗ ${t("room.chain.broken", { version: c.version })}`;
    else text = `✓ ${t("room.chain.ok", { count: c.seen })} ${t("room.chain.signed", { signed: c.signed, made: c.made, unsigned: c.unsigned })}`;
    const save = c.seen > 0 ? [" ", h("button", { class: "link save-heads", type: "button", title: t("room.chain.save_hint"),
      onclick: () => this.saveHeads() }, t("room.chain.save"))] : [];
    return h("p", { class: ["small", "chain-check", state === "ok" ? "ok" : state === "bad" ? "bad" : ""], dataset: { chain: state },
      title: c.problem || null }, text, ...save);
  },

  /** The heads this browser was sent, as a file `tortuga verify GAME --heads FILE` reads:
   * anyone may then check an archive against what this device saw, without this browser. */
  async saveHeads() {
    const gameId = this.room && this.room.game_id;
    const body = JSON.stringify({ room: this.code, game_id: gameId, heads: await heads.get(this.code) }, null, 1);
    const a = h("a", { href: URL.createObjectURL(new Blob([body], { type: "application/json" })),
      download: `tortuga-${gameId || this.code}-heads.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  },

  /** The deal check's badge once the seed is out (game over or abandoned). */
  verifyBadge() {
    if (!this.room.seed) return h("span", { class: "badge" }, t("room.verify.waiting"));
    if (!this.verify) return h("span", { class: "badge" }, t("room.verify.running"));
    if (this.verify.ok) {
      return h("span", { class: "badge ok verified", dataset: { verified: "1" } },
        `✓ ${t("room.verify.ok", { what: this.game.checkedText(this.verify.checked, this.seat === null) })}`);
    }
    const badRounds = (this.verify.rounds || []).filter((r) => !r.ok).map((r) => r.round);
    // An abandoned game may stop before this browser saw a deal: the seed still checks.
    const seedOnly = this.ended && !this.verify.error && this.verify.seedOk && this.verify.checked === 0;
    return h("span", { class: ["badge", seedOnly ? "ok" : "bad", "verified"], dataset: { verified: seedOnly ? "seed" : "0" } },
      this.verify.error ? `✗ ${t("room.verify.error", { message: this.verify.error })}`
        : !this.verify.seedOk ? `✗ ${t("room.verify.seed_bad")}`
          : seedOnly ? `✓ ${t("room.verify.seed_only")}`
            : this.verify.checked === 0 ? t("room.verify.nothing")
              : `✗ ${t("room.verify.bad", { what: this.game.badRoundsText(badRounds) })}`);
  },

  /** "Check this game": the browser's own check of the whole game, in plain words -- the
   * seed against the fingerprint published at the start (the one this browser saw then),
   * the seed made from the players' bytes, and every round's deal recomputed from the seed
   * against the replay's hands (the module's checkReplayDeals, as the replay page does). */
  async checkGame() {
    const gameId = this.room && this.room.game_id;
    if (!gameId || !this.room.seed || (this.gameCheck && this.gameCheck.state === "running")) return;
    this.gameCheck = { state: "running" };
    this.render();
    const seen = seenDeals.get(this.code);
    try {
      const data = await api.replay(gameId, null, { wait: 6 });  // its end may be on its way
      const seed = fromHex(this.room.seed);
      const digest = (seen && seen.seedDigest) || this.room.seed_digest;
      const derivation = await checkDerivation(this.code, this.room, seen ? seen.seat : this.seat);
      const { rounds, bad } = await this.game.checkReplayDeals(data.frames || [], seed);
      let why = null;
      if (!digest || toHex(await sha256(seed)) !== digest) why = t("room.check.why_seed");
      else if (!derivation.ok) why = derivation.message;
      else if (bad.length || !rounds) why = t("room.check.why_deals", { rounds: this.game.badRoundsText(bad) });
      this.gameCheck = why ? { state: "bad", why } : { state: "ok", rounds };
    } catch (err) {
      // The archive stores a finished game within seconds: 404 until it has, 409 while it
      // holds only the game's checkpoints.
      const saving = err.status === 404 || err.status === 409;
      this.gameCheck = saving ? { state: "not_saved" } : { state: "failed", message: errorText(err) };
    }
    this.render();
  },

  /** The "Check this game" button and, once pressed, what it found. */
  checkControl() {
    if (!this.room.game_id || !this.room.seed) return null;
    const c = this.gameCheck;
    const running = !!c && c.state === "running";
    const result = !c ? null
      : running ? t("room.check.running")
        : c.state === "ok" ? `✓ ${t("room.check.ok", { count: c.rounds })}`
          : c.state === "bad" ? `✗ ${t("room.check.bad", { why: c.why })}`
            : c.state === "not_saved" ? t("room.check.not_saved")
              : t("room.check.failed", { message: c.message });
    return h("div", { class: "check-game" },
      h("button", { type: "button", class: "secondary", dataset: { key: "check-game" }, disabled: running,
        onclick: () => this.checkGame() }, t("room.check.button")),
      result ? h("p", { class: ["check-result", c.state === "ok" && "ok", c.state === "bad" && "bad"], role: "status",
        dataset: { gameCheck: c.state } }, result) : null);
  },

  seedLines() {
    return [
      this.room.seed ? h("p", { class: "small" }, t("replay.seed"), " ", h("span", { class: "seed" }, this.room.seed)) : null,
      this.room.seed_digest ? h("p", { class: "small" }, t("room.fingerprint"), " ",
        h("span", { class: "seed" }, this.room.seed_digest)) : null,
      this.contributionLine(),
      this.chainLine(),
    ];
  },

  /** Whether this browser's random bytes went into the deal (and whose the server chose). */
  contributionLine() {
    const mine = mineIsIn(this.code, this.room, this.seat);
    const byServer = (this.room.contributions || []).filter((c) => c.by === "server").map((c) => c.seat);
    if (mine === null && !byServer.length) return null;
    return h("p", { class: "small contribution", dataset: { mine: mine === null ? "" : String(mine) } },
      mine === true ? `✓ ${t("room.bytes_in")} ` : mine === false ? `✗ ${t("room.bytes_out")} ` : "",
      byServer.length ? t("room.bytes_by_server", { count: byServer.length, seats: byServer.map((s) => s + 1).join(", ") }) : "");
  },
};
