// The pictures on the cards, drawn as SVG (24x24, in the card's colour): one shape per suit
// of an edition -- so the shape tells the suit as well as the colour does -- and one emblem per
// special card. Decorative: the card's name is in its label.

const NS = "http://www.w3.org/2000/svg";

// Each: a list of [tag, attributes]; "fill" shapes take currentColor unless they say.
const SHAPES = {
  star: [["polygon", { points: "12,2 14.9,8.6 22,9.3 16.6,14 18.2,21 12,17.3 5.8,21 7.4,14 2,9.3 9.1,8.6" }]],
  heart: [["path", { d: "M12 21s-7.5-4.6-9.5-9.2C1 8 3.4 4.5 7 4.5c2 0 3.6 1.1 5 3 1.4-1.9 3-3 5-3 3.6 0 6 3.5 4.5 7.3C19.5 16.4 12 21 12 21z" }]],
  diamond: [["polygon", { points: "12,2 20.5,12 12,22 3.5,12" }]],
  skull: [
    ["path", { d: "M12 2C7 2 3.5 5.6 3.5 10.2c0 2.7 1.3 4.8 3.3 6v3.3h2.6v-2h1.4v2h2.4v-2h1.4v2h2.6v-3.3c2-1.2 3.3-3.3 3.3-6C20.5 5.6 17 2 12 2z" }],
    ["circle", { cx: 8.7, cy: 10.5, r: 2.2, class: "hole" }],
    ["circle", { cx: 15.3, cy: 10.5, r: 2.2, class: "hole" }],
    ["polygon", { points: "12,13.2 10.8,15.6 13.2,15.6", class: "hole" }],
  ],
  club: [
    ["circle", { cx: 12, cy: 7, r: 4.3 }], ["circle", { cx: 7, cy: 13.2, r: 4.3 }],
    ["circle", { cx: 17, cy: 13.2, r: 4.3 }], ["path", { d: "M11 12h2l1.8 9.5H9.2z" }],
  ],
  anchor: [
    ["circle", { cx: 12, cy: 4.5, r: 2.3, fill: "none", "stroke-width": 2 }],
    ["path", { d: "M12 7v14M7.5 10.5h9M3.5 13.5c0 4.3 3.8 7.5 8.5 7.5s8.5-3.2 8.5-7.5", fill: "none", "stroke-width": 2.2, "stroke-linecap": "round" }],
  ],
  flag: [
    ["path", { d: "M5.5 2.5v19", fill: "none", "stroke-width": 2, "stroke-linecap": "round" }],
    ["path", { d: "M6.5 3.5h12l-3 4.2 3 4.3h-12z", fill: "none", "stroke-width": 1.8, "stroke-linejoin": "round" }],
  ],
  swords: [
    ["path", { d: "M4 3l13.5 13.5M20 3L6.5 16.5", fill: "none", "stroke-width": 2.2, "stroke-linecap": "round" }],
    ["path", { d: "M14.5 19.5l5-5M4.5 14.5l5 5M18 18l3 3M6 18l-3 3", fill: "none", "stroke-width": 2.2, "stroke-linecap": "round" }],
  ],
  tail: [["path", { d: "M12 2c-2.2 4-2.2 8 0 12-3 1-6 4-6.5 8 3-2 4.8-2.6 6.5-2.6s3.5.6 6.5 2.6c-.5-4-3.5-7-6.5-8 2.2-4 2.2-8 0-12z" }]],
  crown: [
    ["path", { d: "M3 8.5l4.6 4L12 5l4.4 7.5L21 8.5 19 18H5z" }],
    ["rect", { x: 5, y: 19.2, width: 14, height: 2.3, rx: 1 }],
  ],
  crownStar: [
    ["path", { d: "M3 8.5l4.6 4L12 5l4.4 7.5L21 8.5 19 18H5z" }],
    ["rect", { x: 5, y: 19.2, width: 14, height: 2.3, rx: 1 }],
    ["circle", { cx: 12, cy: 14, r: 2, class: "hole" }],
  ],
  mask: [
    ["circle", { cx: 12, cy: 12, r: 9, fill: "none", "stroke-width": 2 }],
    ["path", { d: "M12 3a9 9 0 0 0 0 18z" }],
  ],
};

// An edition's suit symbols (cards.js) to shapes, and the special cards' emblems.
const SUIT_SHAPES = { "★": "star", "♥": "heart", "◆": "diamond", "☠": "skull", "♣": "club", "♦": "diamond", "⚓": "anchor" };
const KIND_SHAPES = { escape: "flag", pirate: "swords", mermaid: "tail", choice: "mask" };

/** The SVG picture of a card described by cards.js `describe` (null if it has none). */
export function emblem(d) {
  const shape = d.kind === "number" ? SUIT_SHAPES[d.symbol]
    : d.kind === "king" ? (d.name === "captain" ? "crownStar" : "crown") : KIND_SHAPES[d.kind];
  const parts = SHAPES[shape];
  if (!parts) return null;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `emblem e-${shape}`);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [tag, attrs] of parts) {
    const el = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (attrs.fill === "none") el.setAttribute("stroke", "currentColor");
    else if (!attrs.fill && !attrs.class) el.setAttribute("fill", "currentColor");
    svg.append(el);
  }
  return svg;
}
