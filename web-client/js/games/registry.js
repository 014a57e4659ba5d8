// The games this client can draw: one line per game id, naming the folder under games/ whose
// module.js draws its table and whose i18n/<lang>.js holds its texts. The lobby offers only
// these games, whatever else the server has registered. The module contract is docs/CLIENT.md.

const FOLDERS = {
  "skull-king": "skull-king",
  "bid-tricks": "skull-king",
  "pirate-king": "pirate-king",
  "loon-tricks": "loon-tricks",
  pearates: "pearates",
};

/** Whether this client has a table for `gameId`. */
export function hasClient(gameId) {
  return Object.hasOwn(FOLDERS, gameId);
}

/** The game ids this client can draw, in registry order. */
export function clientGames() {
  return Object.keys(FOLDERS);
}

/** The game folders, each once (i18n.js reads each one's texts). */
export function gameFolders() {
  return [...new Set(Object.values(FOLDERS))];
}

/** The module of `gameId` (its default export), or null when this client has none. */
export async function gameModule(gameId) {
  if (!hasClient(gameId)) return null;
  return (await import(`./${FOLDERS[gameId]}/module.js`)).default;
}
