// The console's calls to the admin API (/admin/api/...): the admin session token lives in
// sessionStorage under its own key, apart from the player's identity. Routes:
// docs/PROTOCOL.md, "Admin routes".

export const TOKEN_KEY = "tortuga.admin.token";
// How often a live tab (the rooms, one room, the nodes) reads the server again, ms.
export const REFRESH_MS = 3000;

class AdminError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** ``method`` on ``/admin/api{path}`` with the session's token: the JSON answer, or an
 * AdminError with the server's status and error code. */
export async function call(method, path, body) {
  const headers = { "content-type": "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`/admin/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = data.error || {};
    throw new AdminError(res.status, err.code || "unavailable", err.message || res.statusText);
  }
  return data;
}
