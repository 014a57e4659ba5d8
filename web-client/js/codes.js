// Room codes as people read them. New codes use 30 characters that cannot be mistaken for
// one another (2-9 and A-Z without I, L, O, U) and are shown in groups of four:
// "K7QX-MH4P". A typed or pasted code may be grouped, spaced or in lower case; the canonical
// form (what URLs and the server use) has no separators. Older codes (letters of both
// cases, digits, "_" and "-") are kept exactly as they are. server/table/room_codes.py is the
// same rule on the server.

export const ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ";
const NEW = new RegExp(`^[${ALPHABET}]+$`);
const OLD = /^[A-Za-z0-9_-]{4,40}$/;

/** Whether `code` is a new-style code (the alphabet above, a whole number of groups). */
export function isNewCode(code) {
  return NEW.test(code) && code.length >= 8 && code.length % 4 === 0;
}

/** The canonical code for what a player typed: "k7qx mh4p" and "K7QX-MH4P" are "K7QXMH4P";
 * an old code stays as it is; null when it is no code at all. */
export function canonicalCode(text) {
  const raw = String(text || "").trim();
  const squeezed = raw.replace(/[\s-]+/g, "").toUpperCase();
  // Grouped (or spaced) input is a new code when the groups are of four of our characters.
  if (/^[0-9A-Za-z]{4}([\s-]+[0-9A-Za-z]{4})+$/.test(raw) && isNewCode(squeezed)) return squeezed;
  if (OLD.test(raw)) return raw;
  return null;
}

/** A code as shown to people: new codes in groups of four, old ones as they are. */
export function groupCode(code) {
  return isNewCode(code) ? code.match(/.{4}/g).join("-") : code;
}

/** A room code from a bare code or an invite link (…/r/CODE). */
export function parseCode(text) {
  const t = String(text || "").trim();
  const m = t.match(/\/r\/([A-Za-z0-9_-]{4,60})/);
  return canonicalCode(m ? m[1] : t);
}
