"""The package's modules read and parsed once per test process, for every contract test
that reads source (tests/repo/test_layers.py, test_module_imports.py,
test_table_owners.py, test_command_shape.py; tests/cli/test_one_meaning.py;
tests/store/test_codec.py). Each check used to parse every module itself and walk each
tree for its imports (1,368 ``ast.parse`` calls in the fast loop): here a module is read
once, parsed once, and its import statements found in one pass; the import statements
are kept across runs (:data:`KEPT`), so the checks that read only those (the layers, the
cycles, the aliases, the imports inside functions) parse no module that has not changed.

Trees are shared: a check reads them and never changes them. Caches are keyed by the
source text (its digest, across runs), so a check's own examples (a string, a file under
tmp_path) are read as what they say."""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import json
import os
import sys
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
    """An import statement: ``import a, b as c`` (``module`` None) or ``from module import
    names`` (``level`` dots before it), its lines, whether it is inside a function (def
    or async def, at any depth) and whether it runs (False under ``if TYPE_CHECKING:``,
    either branch)."""

    is_from: bool
    module: str | None
    level: int
    names: tuple[tuple[str, str | None], ...]  # (name, asname)
    line: int
    end_line: int
    in_function: bool
    runs: bool


# Where import sites are kept across runs (pytest's cache, set by tests/repo/conftest.py;
# None: not kept): one JSON file per source text, named by its digest. Parsing every
# module costs ~1 s of CPU in each worker that runs a contract test; reading the kept
# sites of unchanged modules ~20 ms.
KEPT: Path | None = None
_FORMAT = f"import-sites 1, Python {sys.version_info[0]}.{sys.version_info[1]}"


@functools.cache
def imports(text: str) -> tuple[ImportSite, ...]:
    """Every import statement of a source, in ``ast.walk`` order: kept from an earlier run
    of the same text, else found in one pass over its tree."""
    if KEPT is None:
        return _imports(text)
    digest = hashlib.sha256((_FORMAT + "\0" + text).encode()).hexdigest()[:32]
    path = KEPT / f"{digest}.json"
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        sites = _imports(text)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps([dataclasses.astuple(s) for s in sites]), encoding="utf-8")
        os.replace(tmp, path)  # whole or not at all, whichever worker writes it
        return sites
    return tuple(
        ImportSite(
            is_from=f,
            module=m,
            level=lv,
            names=tuple((n, a) for n, a in names),
            line=ln,
            end_line=end,
            in_function=inf,
            runs=runs,
        )
        for f, m, lv, names, ln, end, inf, runs in rows
    )


def _imports(text: str) -> tuple[ImportSite, ...]:
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
        ImportSite(
            is_from=isinstance(n, ast.ImportFrom),
            module=n.module if isinstance(n, ast.ImportFrom) else None,
            level=n.level if isinstance(n, ast.ImportFrom) else 0,
            names=tuple((a.name, a.asname) for a in n.names),
            line=n.lineno,
            end_line=n.end_lineno or n.lineno,
            in_function=flags[id(n)][0],
            runs=flags[id(n)][1],
        )
        for n in nodes(text)
        if isinstance(n, ast.Import | ast.ImportFrom)
    )
