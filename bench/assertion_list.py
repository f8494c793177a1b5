"""The suite's checks, listed from the source: every ``assert`` statement and every
``pytest.raises``/``pytest.warns`` under tests/, with the function it is in.

Moving tests onto shared fixtures (issue 37, item 4: compute once, assert many) must not
lose a check. Run this on two checkouts and compare them:

    python bench/assertion_list.py > before.txt              # on main
    python bench/assertion_list.py --compare before.txt      # on the branch

The listing is one check a line, ``file::function<TAB>expression``; ``--compare`` counts
the checks of both, matches them by their expression (wherever a check moved), and prints
those found in one listing only. An expression that reads a renamed variable shows up as
one line gone and one come: the comparison is for a reader, who matches those by hand.
"""

from __future__ import annotations

import argparse
import ast
import collections
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHECKERS = {"raises", "warns", "deprecated_call"}


def _checks(tree: ast.AST) -> list[tuple[str, str]]:
    """(function qualname, expression) for each check in ``tree``, in source order."""
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, where: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            here = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                here = [*where, child.name]
            if isinstance(child, ast.Assert):
                found.append((".".join(where) or "<module>", ast.unparse(child.test)))
            elif isinstance(child, ast.Call):
                func = child.func
                if isinstance(func, ast.Attribute) and func.attr in CHECKERS:
                    if isinstance(func.value, ast.Name) and func.value.id == "pytest":
                        found.append((".".join(where) or "<module>", ast.unparse(child)))
            visit(child, here)

    visit(tree, [])
    return found


def listing(root: Path) -> list[str]:
    rows = []
    for path in sorted((root / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        rel = path.relative_to(root).as_posix()
        for where, expr in _checks(tree):
            rows.append(f"{rel}::{where}\t{' '.join(expr.split())}")
    return rows


def compare(before: list[str], after: list[str]) -> str:
    def exprs(rows: list[str]) -> collections.Counter[str]:
        return collections.Counter(row.split("\t", 1)[1] for row in rows)

    b, a = exprs(before), exprs(after)
    gone, come = b - a, a - b
    out = [
        f"checks: {sum(b.values())} before, {sum(a.values())} after; "
        f"{sum((b & a).values())} the same expression in both; "
        f"{sum(gone.values())} only before, {sum(come.values())} only after"
    ]
    rows_b, rows_a = collections.Counter(before), collections.Counter(after)
    for title, diff, moved in (
        ("only before", gone, rows_b - rows_a),
        ("only after", come, rows_a - rows_b),
    ):
        if diff:
            out.append(f"-- {title} (and where the count of each changed):")
            for row, n in sorted(moved.items()):
                if row.split("\t", 1)[1] in diff:
                    out.append(f"{n}x {row}")
    moved_only = [r for r in (rows_b - rows_a) if r.split("\t", 1)[1] not in gone]
    out.append(f"-- {len(moved_only)} checks moved to another function (same expression)")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO, help="the checkout (default: this)")
    parser.add_argument("--compare", type=Path, help="an earlier listing to compare with")
    args = parser.parse_args()
    rows = listing(args.root)
    if args.compare is None:
        print("\n".join(rows))
    else:
        before = args.compare.read_text(encoding="utf-8").splitlines()
        print(compare(before, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
