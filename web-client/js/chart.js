// The score chart at the end of a game: each player's cumulative score after every round,
// drawn as SVG. Colour is never the only cue: each line has its own dash pattern and its own
// marker shape, repeated in the legend.

const NS = "http://www.w3.org/2000/svg";
const COLOURS = ["#0f6fb8", "#c0272d", "#1e7a33", "#8a6100", "#6b2c91", "#111111", "#c2571a", "#2a8a8a"];
const DASHES = ["", "8 4", "2 4", "10 3 2 3", "4 4", "12 6", "1 3", "6 2 2 2"];
const MARKERS = ["circle", "square", "triangle", "diamond", "circle", "square", "triangle", "diamond"];
const SYMBOLS = { circle: "●", square: "■", triangle: "▲", diamond: "◆" };

function el(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  for (const c of children) if (c) node.append(c);
  return node;
}

function marker(kind, x, y, colour) {
  const r = 4.5;
  if (kind === "square") return el("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: colour });
  if (kind === "triangle") return el("polygon", { points: `${x},${y - r - 1} ${x - r - 1},${y + r} ${x + r + 1},${y + r}`, fill: colour });
  if (kind === "diamond") return el("polygon", { points: `${x},${y - r - 1} ${x + r + 1},${y} ${x},${y + r + 1} ${x - r - 1},${y}`, fill: colour });
  return el("circle", { cx: x, cy: y, r, fill: colour });
}

/**
 * history: {rounds: [1, 2, ...], series: [{name, values: [cumulative after each round]}]}.
 * Returns {svg, legend: [{symbol, colour, name, last}]} or null when there is nothing to draw.
 */
export function scoreChart(history, { title = "Scores after each round" } = {}) {
  const { rounds, series } = history || {};
  if (!rounds || !rounds.length || !series || !series.length) return null;
  const W = 640, H = 260, L = 48, R = 16, T = 14, B = 30;
  const all = series.flatMap((s) => s.values).concat([0]);
  let lo = Math.min(...all), hi = Math.max(...all);
  if (lo === hi) hi = lo + 10;
  const pad = (hi - lo) * 0.08;
  lo -= pad;
  hi += pad;
  const x = (i) => L + (rounds.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (rounds.length - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "score-chart", role: "img", "aria-label": title },
    el("title", {}, title));
  // Horizontal grid: about five steps of a round number.
  const step = niceStep((hi - lo) / 5);
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    svg.append(el("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: v === 0 ? "#555" : "#d5dbe1", "stroke-width": v === 0 ? 1.5 : 1 }));
    const label = el("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#444" });
    label.textContent = String(v);
    svg.append(label);
  }
  rounds.forEach((r, i) => {
    const label = el("text", { x: x(i), y: H - 10, "text-anchor": "middle", "font-size": 11, fill: "#444" });
    label.textContent = String(r);
    svg.append(label);
  });
  const legend = [];
  series.forEach((s, k) => {
    const colour = COLOURS[k % COLOURS.length];
    const kind = MARKERS[k % MARKERS.length];
    const points = s.values.map((v, i) => `${x(i)},${y(v)}`).join(" ");
    const g = el("g", { "data-seat": k });
    g.append(el("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2.5,
      "stroke-dasharray": DASHES[k % DASHES.length] || null, "stroke-linejoin": "round" }));
    s.values.forEach((v, i) => g.append(marker(kind, x(i), y(v), colour)));
    svg.append(g);
    legend.push({ symbol: SYMBOLS[kind], colour, name: s.name, last: s.values[s.values.length - 1] });
  });
  return { svg, legend };
}

function niceStep(raw) {
  const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}
