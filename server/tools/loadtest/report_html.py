"""The HTML report of a whole run: one self-contained page with inline SVG charts."""

from __future__ import annotations

import html
import time
from collections.abc import Sequence

from server.tools.loadtest.results import Campaign
from server.tools.loadtest.tally import TENTHS, Report, percentile


def _svg_chart(
    title: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, str, Sequence[float | None]]],
    unit: str,
    line: tuple[str, float] | None = None,
) -> str:
    """A line chart: one point per step (evenly spaced), one polyline per series."""
    width, height, left, right, top, bottom = 640, 300, 60, 150, 30, 40
    values = [v for _, _, vs in series for v in vs if v is not None]
    if line is not None:
        values.append(line[1])
    top_value = max(values, default=1.0) * 1.1 or 1.0
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(labels)

    def x(i: int) -> float:
        return left + (plot_w * (i + 0.5) / n if n else 0)

    def y(v: float) -> float:
        return top + plot_h * (1 - v / top_value)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{html.escape(title)}">',
        f'<text x="{left}" y="18" font-weight="bold">{html.escape(title)}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'stroke="#444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#444"/>',
    ]
    for k in range(5):
        v = top_value * k / 4
        parts.append(
            f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11">'
            f"{v:.0f}</text>"
            f'<line x1="{left}" y1="{y(v):.1f}" x2="{left + plot_w}" y2="{y(v):.1f}" '
            'stroke="#ddd"/>'
        )
    parts.append(
        f'<text x="12" y="{top + plot_h / 2}" font-size="11" '
        f'transform="rotate(-90 12 {top + plot_h / 2})" text-anchor="middle">{unit}</text>'
    )
    for i, label in enumerate(labels):
        parts.append(
            f'<text x="{x(i):.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'font-size="11">{html.escape(label)}</text>'
        )
    if line is not None:
        name, value = line
        parts.append(
            f'<line x1="{left}" y1="{y(value):.1f}" x2="{left + plot_w}" y2="{y(value):.1f}" '
            'stroke="#999" stroke-dasharray="6 4"/>'
            f'<text x="{left + plot_w + 6}" y="{y(value) + 4:.1f}" font-size="11">'
            f"{html.escape(name)}</text>"
        )
    for k, (name, colour, vs) in enumerate(series):
        points = [(x(i), y(v)) for i, v in enumerate(vs) if v is not None]
        if points:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            parts.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>'
            )
            parts += [
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"/>' for px, py in points
            ]
        parts.append(
            f'<rect x="{left + plot_w + 6}" y="{top + 14 * k}" width="10" height="10" '
            f'fill="{colour}"/><text x="{left + plot_w + 20}" y="{top + 9 + 14 * k}" '
            f'font-size="11">{html.escape(name)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


def _over_time_chart(name: str, report: Report) -> str:
    """One step's p99 latencies in each tenth of its games' time: where its tail was."""
    t, width = report.tally, report.seconds / TENTHS
    labels = [f"{i * width:.0f} s" for i in range(TENTHS)]
    series = [
        ("move p99", "#d62728", report.tenths(t.move_ms, t.move_at)),
        ("reveal fan-out p99", "#2ca02c", report.tenths(t.fanout_ms, t.fanout_at)),
    ]
    title = f"Over the games' time: {report.plan.rooms} rooms{name}"
    return _svg_chart(title, labels, series, "ms")


def html_report(result: Campaign) -> str:
    """One self-contained page: the latency-over-load curve and moves/s per step (inline
    SVG; with ``against``, the other revision's too), the table of every step, the raw
    limit, idle memory, and the text report."""
    reports = [s.report for s in result.steps]
    others = [s.report for s in result.against_steps]
    labels = [f"{r.plan.rooms} rooms" for r in reports]

    def pct(values: list[float], p: float) -> float | None:
        return percentile(values, p) if values else None

    series = [
        ("move p50", "#1f77b4", [pct(r.tally.move_ms, 50) for r in reports]),
        ("move p99", "#d62728", [pct(r.tally.move_ms, 99) for r in reports]),
        ("reveal fan-out p99", "#2ca02c", [pct(r.tally.fanout_ms, 99) for r in reports]),
    ]
    speeds = [("moves/s", "#9467bd", [r.moves_per_second for r in reports])]
    if result.against:
        name = result.against
        series.append((f"move p99 [{name}]", "#ff9896", [pct(r.tally.move_ms, 99) for r in others]))
        speeds.append((f"moves/s [{name}]", "#c5b0d5", [r.moves_per_second for r in others]))
    latency = _svg_chart("Latency over load", labels, series, "ms")
    raw = result.raw.per_second if result.raw is not None else None
    throughput = _svg_chart(
        "Moves per second", labels, speeds, "moves/s", line=("raw limit", raw) if raw else None
    )
    rows = []
    labelled = [(result.label, s) for s in result.steps]
    labelled += [(result.against or "", s) for s in result.against_steps]
    over_time = "\n".join(
        _over_time_chart(f" [{label}]" if result.against else "", step.report)
        for label, step in labelled
        if step.report.seconds and step.report.tally.move_at
    )
    for label, step in labelled:
        report, t = step.report, step.report.tally

        def cell(values: list[float], p: float) -> str:
            return f"{percentile(values, p):.1f}" if values else "-"

        errors = ", ".join(f"{c} {n}" for c, n in sorted(t.errors.items())) or "none"
        cpu = step.per_move_ms(step.cpu)
        rows.append(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    label,
                    f"{report.plan.rooms} ({report.plan.rooms * report.plan.players})",
                    f"{t.finished}/{t.rooms}",
                    f"{report.moves_per_second:.1f}",
                    cell(t.move_ms, 50),
                    cell(t.move_ms, 95),
                    cell(t.move_ms, 99),
                    cell(t.fanout_ms, 50),
                    cell(t.fanout_ms, 99),
                    "-" if step.rss is None else f"{step.rss / 2**20:.0f}",
                    "-" if cpu is None else f"{cpu:.2f}",
                    f"{step.load:.1f}",
                    errors,
                )
            )
            + "</tr>"
        )
    head = (
        "node",
        "rooms (sockets)",
        "games over",
        "moves/s",
        "move p50 ms",
        "move p95 ms",
        "move p99 ms",
        "fan-out p50 ms",
        "fan-out p99 ms",
        "node MiB",
        "node CPU ms/move",
        "load average",
        "errors",
    )
    text = "\n".join(result.lines())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tortuga load test</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}pre{{background:#f6f6f6;padding:1em}}
</style></head><body>
<h1>Tortuga load test</h1>
<p>{html.escape(result.plan.game)}, {result.plan.players} seats per room, pace
{result.plan.pace:g} s, {time.strftime("%Y-%m-%d %H:%M:%S")}</p>
{latency}
{throughput}
{over_time}
<table><tr>{"".join(f"<th>{html.escape(h)}</th>" for h in head)}</tr>
{"".join(rows)}</table>
<h2>Report</h2>
<pre>{html.escape(text)}</pre>
</body></html>
"""
