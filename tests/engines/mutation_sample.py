"""A quick mutation sample over one engine package (not a test: run it by hand).

Each mutant changes one spot of the package's code -- a comparison flipped (``<`` to
``<=``, ``==`` to ``!=``, ``in`` to ``not in``), ``+``/``-``, ``*``/``//`` or ``&``/``|``
swapped, ``and``/``or`` swapped, a ``not`` dropped, an integer made one bigger, a boolean
constant flipped -- in a copy of the repository, and runs the given tests there; a mutant
is caught when they fail. The sample is drawn with a fixed seed over every such spot, so a
run is repeatable while the package's code stays the same.

    uv run python tests/engines/mutation_sample.py --package engines/pearates --count 80 \\
        --seed 13 -- tests/engines/pearates --ignore=tests/engines/pearates/test_bots.py \\
        --ignore=tests/engines/pearates/test_options_conformance.py

Prints one JSON line per mutant, then ``caught N of M``; a mutant whose tests run past
``--timeout`` seconds (an endless loop) is caught, as ``"timeout"``. A survivor is either a
gap in the tests or an equivalent mutant (a change nothing can observe); say which.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SWAP: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
BIN: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
}


def spots(tree: ast.AST) -> list[tuple[str, ast.AST, int]]:
    """Every place a mutation can go, in a fixed order (ast.walk's)."""
    out: list[tuple[str, ast.AST, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            out += [("cmp", node, i) for i, op in enumerate(node.ops) if type(op) in SWAP]
        elif isinstance(node, ast.BinOp) and type(node.op) in BIN:
            out.append(("bin", node, 0))
        elif isinstance(node, ast.BoolOp):
            out.append(("bool", node, 0))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append(("not", node, 0))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            out.append(("boolc", node, 0))
        elif isinstance(node, ast.Constant) and isinstance(node.value, int):
            out.append(("int", node, 0))
    return out


class _DropNot(ast.NodeTransformer):
    def __init__(self, target: ast.AST) -> None:
        self.target = target

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return node.operand if node is self.target else node


def mutate(source: str, index: int) -> tuple[str, dict[str, object]]:
    """The source with mutation ``index`` applied, and what it changed."""
    tree = ast.parse(source)
    kind, node, i = spots(tree)[index]
    line = getattr(node, "lineno", 0)
    before = ast.unparse(node)
    if kind == "cmp":
        assert isinstance(node, ast.Compare)
        node.ops[i] = SWAP[type(node.ops[i])]()
    elif kind == "bin":
        assert isinstance(node, ast.BinOp)
        node.op = BIN[type(node.op)]()
    elif kind == "bool":
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "boolc":
        assert isinstance(node, ast.Constant)
        node.value = not node.value
    elif kind == "int":
        assert isinstance(node, ast.Constant) and isinstance(node.value, int)
        node.value = node.value + 1
    after = ast.unparse(node)
    if kind == "not":
        assert isinstance(node, ast.UnaryOp)
        after = ast.unparse(node.operand)
        tree = _DropNot(node).visit(tree)
    what = {"line": line, "kind": kind, "before": before[:120], "after": after[:120]}
    return ast.unparse(tree), what


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", required=True, help="e.g. engines/pearates")
    parser.add_argument("--count", type=int, default=80)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--skip", nargs="*", default=["__init__.py", "bots.py"])
    parser.add_argument(
        "--timeout",
        type=float,
        default=900,
        help="seconds per mutant; a run that takes longer hangs: caught (an endless loop)",
    )
    parser.add_argument("tests", nargs="+", help="pytest arguments (after --)")
    args = parser.parse_args()
    files = sorted(
        p.name for p in (ROOT / args.package).glob("*.py") if p.name not in set(args.skip)
    )
    candidates = [
        (name, k)
        for name in files
        for k in range(len(spots(ast.parse((ROOT / args.package / name).read_text()))))
    ]
    sample = random.Random(args.seed).sample(candidates, min(args.count, len(candidates)))
    caught = 0
    ignore = shutil.ignore_patterns(".venv", ".git", "artifacts", "web-client", "__pycache__")
    with tempfile.TemporaryDirectory(prefix="mutants-") as scratch:
        copy = Path(scratch) / "repo"
        shutil.copytree(ROOT, copy, ignore=ignore)
        for name, k in sample:
            target = copy / args.package / name
            original = (ROOT / args.package / name).read_text()
            source, what = mutate(original, k)
            target.write_text(source)
            dead: bool | str
            try:
                run = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "pytest",
                        "-p",
                        "no:cacheprovider",
                        "-x",
                        "-q",
                        *args.tests,
                    ],
                    cwd=copy,
                    env={**os.environ, "PYTHONPATH": str(copy)},
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                )
                dead = run.returncode != 0
            except subprocess.TimeoutExpired:
                dead = "timeout"  # the tests never finish: the mutant is noticed
            finally:
                target.write_text(original)
            caught += bool(dead)
            print(json.dumps({"file": name, **what, "caught": dead}), flush=True)
    print(f"caught {caught} of {len(sample)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
