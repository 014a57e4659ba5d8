// The deal generator of engines/rng.py, re-implemented so a browser can check its deals.
//
// - Block i of the stream for (seed, label) is
//   HMAC-SHA256(key=seed, msg=utf8(label) || 0x00 || u64be(i)), read as four unsigned
//   64-bit big-endian integers, in order.
// - below(n): draw x; while x >= 2^64 - (2^64 mod n) draw again; return x mod n.
// - shuffle(a): for i from len(a)-1 down to 1: j = below(i+1); swap a[i], a[j].
//
// HMAC runs on WebCrypto when the page is a secure context, else on sha256.js.

import { hasSubtle, hmacSha256Sync, utf8 } from "./sha256.js";

const U64 = 1n << 64n;

async function hmacFunction(seed, useSubtle) {
  if (useSubtle && hasSubtle()) {
    const key = await crypto.subtle.importKey(
      "raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
    );
    return async (msg) => new Uint8Array(await crypto.subtle.sign("HMAC", key, msg));
  }
  return async (msg) => hmacSha256Sync(seed, msg);
}

export class Rng {
  /** Use Rng.create(seed, label): seed is a Uint8Array (non-empty), label a string. */
  constructor(mac, label) {
    this._mac = mac;
    this._label = label;
    this._block = 0n;
    this._buffer = [];
  }

  static async create(seed, label, { subtle = true } = {}) {
    if (!(seed instanceof Uint8Array) || seed.length === 0) {
      throw new Error("a seed is a non-empty byte string");
    }
    const prefix = utf8(label);
    const mac = await hmacFunction(seed, subtle);
    return new Rng(mac, prefix);
  }

  /** The next unsigned 64-bit integer of the stream, as a BigInt. */
  async nextU64() {
    if (this._buffer.length === 0) {
      const msg = new Uint8Array(this._label.length + 1 + 8);
      msg.set(this._label);
      const view = new DataView(msg.buffer);
      view.setBigUint64(this._label.length + 1, this._block);
      this._block += 1n;
      const digest = await this._mac(msg);
      const dv = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
      this._buffer = [24, 16, 8, 0].map((k) => dv.getBigUint64(k));
    }
    return this._buffer.pop();
  }

  /** A uniform integer in [0, n) by rejection sampling; n a Number or BigInt >= 1. */
  async below(n) {
    const big = BigInt(n);
    if (big <= 0n) throw new Error("below(n) needs n >= 1");
    const limit = U64 - (U64 % big);
    for (;;) {
      const x = await this.nextU64();
      if (x < limit) return typeof n === "bigint" ? x % big : Number(x % big);
    }
  }

  /** Shuffle in place (Fisher-Yates, from the last position down). */
  async shuffle(items) {
    for (let i = items.length - 1; i > 0; i--) {
      const j = await this.below(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }

  async shuffled(items) {
    return this.shuffle([...items]);
  }
}
