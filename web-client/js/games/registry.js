// The games this client can draw: one line per game id, naming the module (a folder under
// games/) that draws its table. The lobby offers only these games, whatever else the server
// has registered. The module contract is docs/CLIENT.md.

const MODULES = {
  "skull-king": () => import("./skull-king/module.js"),
  "bid-tricks": () => import("./skull-king/module.js"),
  "pirate-king": () => import("./pirate-king/module.js"),
  "loon-tricks": () => import("./loon-tricks/module.js"),
  pearates: () => import("./pearates/module.js"),
};

/** Whether this client has a table for `gameId`. */
export function hasClient(gameId) {
  return Object.hasOwn(MODULES, gameId);
}

/** The game ids this client can draw, in registry order. */
export function clientGames() {
  return Object.keys(MODULES);
}

/** The module of `gameId` (its default export), or null when this client has none. */
export async function gameModule(gameId) {
  if (!hasClient(gameId)) return null;
  return (await MODULES[gameId]()).default;
}
