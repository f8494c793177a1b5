"""The package's modules read and parsed once per test process, for every contract test
that reads source (tests/repo/test_layers.py, test_module_imports.py,
test_table_owners.py, test_command_shape.py; tests/cli/test_one_meaning.py;
tests/store/test_codec.py). Each check used to parse every module itself and walk each
tree for its imports (1,368 ``ast.parse`` calls in the fast loop): here a module is read
once, parsed once, and its import statements found in one pass.

Trees are shared: a check reads them and never changes them. Caches are keyed by the
source text, so a check's own examples (a string, a file under tmp_path) are parsed
afresh."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "litaudit"


@functools.cache
def modules() -> tuple[Path, ...]:
    """Every module of litaudit/, sorted."""
    return tuple(sorted(PACKAGE.rglob("*.py")))


@functools.cache
def source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@functools.cache
def parse(text: str) -> ast.Module:
    """The syntax tree of a source text, parsed once."""
    return ast.parse(text)


def tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once for all the checks."""
    return parse(source(path))


@functools.cache
def nodes(text: str) -> tuple[ast.AST, ...]:
    """Every node of a source's tree, in ``ast.walk`` order (walked once)."""
    return tuple(ast.walk(parse(text)))


@dataclass(frozen=True, kw_only=True)
class ImportSite:
    """An import statement, whether it is inside a function (def or async def, at any
    depth) and whether it runs (False under ``if TYPE_CHECKING:``, either branch)."""

    node: ast.Import | ast.ImportFrom
    in_function: bool
    runs: bool


@functools.cache
def imports(text: str) -> tuple[ImportSite, ...]:
    """Every import statement of a source, in ``ast.walk`` order, found in one pass."""
    flags: dict[int, tuple[bool, bool]] = {}

    def visit(node: ast.AST, in_function: bool, runs: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                flags[id(child)] = (in_function, runs)
                continue
            child_runs = runs and not (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            )
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            visit(child, inner, child_runs)

    visit(parse(text), False, True)
    return tuple(
        ImportSite(node=n, in_function=flags[id(n)][0], runs=flags[id(n)][1])
        for n in nodes(text)
        if isinstance(n, ast.Import | ast.ImportFrom)
    )
