"""No function in litaudit/ is over 80 lines (issue 14: long functions on the paths people
extend are split into named steps)."""

from __future__ import annotations

import ast
from pathlib import Path

import litaudit

MAX_LINES = 80
PACKAGE = Path(litaudit.__file__).parent


def _long_functions(root: Path, limit: int) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > limit:
                    out.append(
                        f"{path.relative_to(root.parent)}:{node.lineno} {node.name} ({n} lines)"
                    )
    return out


def test_no_function_over_80_lines():
    offenders = _long_functions(PACKAGE, MAX_LINES)
    assert not offenders, "functions over 80 lines (split them into named steps):\n" + "\n".join(
        offenders
    )


def test_the_check_finds_a_long_function(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    (pkg / "m.py").write_text(f"def short():\n    return 1\n\n\ndef long():\n{body}")
    assert _long_functions(pkg, MAX_LINES) == ["pkg/m.py:5 long (81 lines)"]
