// Passkeys (WebAuthn) in the browser: the server's options (base64url strings, as
// server/http/passkeys.py sends them) turned into the ArrayBuffers navigator.credentials
// wants, and the credential it gives back turned into JSON for the server. Nothing here runs
// until the player clicks.

import { api } from "./api.js";

export function passkeysSupported() {
  return typeof window.PublicKeyCredential === "function" && !!navigator.credentials;
}

export function fromB64url(text) {
  const s = String(text).replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(s + "=".repeat((4 - (s.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0)).buffer;
}

export function toB64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function creationOptions(o) {
  return {
    ...o,
    challenge: fromB64url(o.challenge),
    user: { ...o.user, id: fromB64url(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: fromB64url(c.id) })),
  };
}

function requestOptions(o) {
  return {
    ...o,
    challenge: fromB64url(o.challenge),
    allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: fromB64url(c.id) })),
  };
}

function credentialJson(cred) {
  const r = cred.response;
  const response = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64url(r.attestationObject);
    response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
  } else {
    response.authenticatorData = toB64url(r.authenticatorData);
    response.signature = toB64url(r.signature);
    if (r.userHandle) response.userHandle = toB64url(r.userHandle);
  }
  return {
    id: cred.id,
    rawId: toB64url(cred.rawId),
    type: cred.type,
    response,
    authenticatorAttachment: cred.authenticatorAttachment || undefined,
    clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
  };
}

/** Add a passkey for the signed-in player: the server's row for it. */
export async function addPasskey() {
  const options = await api.passkeyOptions();
  const cred = await navigator.credentials.create({ publicKey: creationOptions(options) });
  return api.addPasskey(credentialJson(cred));
}

/** Sign in with one of the site's passkeys on this device: {token, user}. */
export async function signInWithPasskey() {
  const options = await api.passkeySignInOptions();
  const cred = await navigator.credentials.get({ publicKey: requestOptions(options) });
  return api.signInWithPasskey(credentialJson(cred));
}
