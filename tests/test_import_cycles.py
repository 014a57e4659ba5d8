"""Issue 14, "Break the import circles server/record.py <-> server/rooms.py and
engines/skull_king/rules.py <-> views.py": no module of server/ or engines/ imports itself
back through others at import time (module-level imports, read from the sources)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    files = [p for top in ("server", "engines") for p in (ROOT / top).rglob("*.py")]
    modules = {_module(p): p for p in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # module level only
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # ``from pkg import sub`` imports the submodule ``pkg.sub`` (the package's
                # __init__ has run already); ``from pkg import name`` imports ``pkg``.
                subs = {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
                found.update(subs)
                if len(subs) < len(node.names):
                    found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    out: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                out.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return out


def test_no_import_circles_in_server_and_engines() -> None:
    graph = _graph()
    assert "server.rooms" not in graph["server.record"]
    assert "engines.skull_king.rules" not in graph["engines.skull_king.views"]
    assert _cycles(graph) == []
