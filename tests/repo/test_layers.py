"""The layer rules of docs/DEVELOPING.md, read from every module's imports (ast): top-level
and inside functions alike."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pytest

from tests.repo import syntax

PKG = Path(__file__).resolve().parents[2] / "litaudit"
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
# what render may take from the analyses: result types, constants, and reading stored
# audits; never a function that computes or stores one. analyses.wording (how a p-value is
# written) and each sub-package's wording turn typed results into the sentences the audits
# store (string formatting, no statistic): the renderers use the same functions so that
# terminal and report say the same words.
RENDER_MAY_READ = {
    "litaudit.analyses.audits": {
        "StoredAudit",
        "Audited",
        "get_audit",
        "list_audits",
        "kinds",
        "result_type",
        "fingerprint",
    },
    "litaudit.analyses.wording": {"p_text", "fmt_p", "sci", "printed_number"},
    "litaudit.analyses.extreme.wording": {
        "fmt_n_star",
        "who",
        "result_label",
        "population_sentence",
        "cited",
    },
    "litaudit.analyses.extreme.wording_noise": {
        "reference_sentence",
        "luck_sentence",
        "summary_null_sentence",
        "resampled_sentence",
        "interaction_sentence",
    },
    "litaudit.analyses.extreme.wording_best": {
        "history_reference_sentence",
        "best_chance_sentence",
        "best_threshold_sentence",
        "history_chance_sentence",
    },
    "litaudit.analyses.reuse.wording": {
        "decision_sentence",
        "sites_sentence",
        "outcome_words",
        "depth_sentence",
        "shift_words",
        "interval_sentence",
        "next_step",
        "site_counts",
        "these_words",
        "new_site_method_words",
    },
}


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


@pytest.fixture(scope="module", autouse=True)
def _parsed() -> None:
    """Every module's imports found before the first check (a shared fixture:
    --cpu-durations counts it apart from the tests; tests/repo/syntax.py parses a module
    only when a run before has not kept its import statements)."""
    for _, path in _modules():
        syntax.imports(syntax.source(path))
    _graph(False)
    _graph(True)


@functools.cache
def _imports(name: str, path: Path) -> tuple[tuple[str, list[str] | None, int], ...]:
    """(module imported, names taken from it or None, line) for every import statement."""
    return tuple(_each_import(name, path))


def _each_import(name: str, path: Path):
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for site in syntax.imports(syntax.source(path)):
        if not site.is_from:
            for n, _ in site.names:
                yield n, None, site.line
        else:
            mod = site.module or ""
            if site.level:
                base = package.split(".")
                base = base[: len(base) - site.level + 1]
                mod = ".".join(base + ([mod] if mod else []))
            names = [n for n, _ in site.names]
            submods = [
                f"{mod}.{n}"
                for n in names
                if (PKG.parent / f"{mod}.{n}".replace(".", "/")).with_suffix(".py").exists()
                or (PKG.parent / f"{mod}.{n}".replace(".", "/")).is_dir()
            ]
            if submods:  # `from litaudit.analyses.extreme import best` imports a module
                for sm in submods:
                    yield sm, None, site.line
            else:
                yield mod, names, site.line


def _layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def _is_type_or_constant(n: str) -> bool:
    return n[:1].isupper()


def _violation(name: str, mod: str, names) -> str | None:
    layer, top = _layer(name), mod.split(".")[0]
    target = _layer(mod) if top == "litaudit" else None
    if layer == "stats":
        if top in STDLIB or top in ("numpy", "scipy"):
            return None
        if mod in ("litaudit.errors", "litaudit.defaults") or mod.startswith("litaudit.stats"):
            return None
        return "the statistics core imports only numpy, scipy, the stdlib, errors, defaults"
    if name in (
        "litaudit.codec",
        "litaudit.codec_decode",
        "litaudit.defaults",
        "litaudit.errors",
        "litaudit.measures",
    ):
        if top in STDLIB or mod in (
            "litaudit.errors",
            "litaudit",
            "numpy",
            "litaudit.codec_decode",
        ):
            return None
        return "a layer-neutral module imports only the stdlib and litaudit.errors"
    if layer == "store" and target in ("analyses", "render", "cli"):
        return "the store never imports analyses, render or cli"
    if layer == "analyses" and target in ("render", "cli"):
        return "an analysis never imports render or cli"
    if layer == "render" and target == "analyses":
        allowed = RENDER_MAY_READ.get(mod, set())
        if names is None:
            return "render imports an analyses module (it may take types only)"
        bad = [n for n in names if n not in allowed and not _is_type_or_constant(n)]
        if bad:
            return f"render runs analyses ({', '.join(bad)}): run them before rendering"
    if layer in ("render", "runs", "curation", "store") and target == "cli":
        return "only the CLI imports the CLI"
    return None


def test_every_module_keeps_its_layer():
    problems = []
    for name, path in _modules():
        for mod, names, line in _imports(name, path):
            why = _violation(name, mod, names)
            if why:
                problems.append(f"{path.relative_to(PKG.parent)}:{line}: {mod}: {why}")
    assert problems == []


@pytest.mark.parametrize(
    "name, mod, names, bad",
    [
        ("litaudit.stats.x", "duckdb", None, True),
        ("litaudit.stats.x", "numpy", None, False),
        ("litaudit.analyses.x", "litaudit.render.console", ["out"], True),
        ("litaudit.render.x", "litaudit.analyses.extreme.best", ["run_best"], True),
        ("litaudit.render.x", "litaudit.analyses.extreme.best", ["BestReport"], False),
        ("litaudit.render.x", "litaudit.analyses.audits", ["run_or_reuse"], True),
        ("litaudit.store.x", "litaudit.analyses.audits", ["fingerprint"], True),
    ],
)
def test_the_rules_catch_a_leak(name, mod, names, bad):
    assert (_violation(name, mod, names) is not None) == bad


_LOADED_CODE = (
    "import sys, pkgutil, importlib, litaudit.analyses as a\n"
    "for m in pkgutil.walk_packages(a.__path__, 'litaudit.analyses.'):\n"
    "    importlib.import_module(m.name)\n"
    "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'rich'\n"
    "             or m.startswith(('litaudit.render', 'litaudit.cli')))\n"
    "print(','.join(bad))\n"
)


def _loaded_by_the_analyses(path: Path) -> None:
    """Build: what a fresh interpreter holds of rich, litaudit.render and litaudit.cli
    once it has imported every module of litaudit.analyses (one line, comma-separated)."""
    out = subprocess.run(
        [sys.executable, "-c", _LOADED_CODE],
        capture_output=True,
        text=True,
        check=True,
        cwd=PKG.parent,
    )
    path.write_text(out.stdout, encoding="utf-8")


@pytest.mark.slow(reason="a fresh interpreter imports every analysis (1.4 s) when code changed")
def test_importing_the_analyses_loads_no_rendering(tmp_path_factory):
    """Run in a subprocess once, and kept across runs while nothing it imports changes
    (tests/conftest.py ``_built_once``: under the digest of the package, the installed
    distributions and Python; the name carries the digest of the probe's code): each
    run checks the current code's answer."""
    import hashlib

    from tests.conftest import _built_once

    name = f"analyses-imports-{hashlib.sha256(_LOADED_CODE.encode()).hexdigest()[:12]}.txt"
    loaded = _built_once(tmp_path_factory, name, _loaded_by_the_analyses)
    assert loaded.read_text(encoding="utf-8").strip() == ""


# ------------------------------------------------------------------ seams without cycles

# Cycles left for another round, each with its reason; the test fails when one is fixed
# (shrink the set) or a new one appears. None is left.
KNOWN_CYCLES: set[frozenset[str]] = set()


def _edges(*, in_functions: bool) -> dict[str, set[str]]:
    """module -> the litaudit modules it imports: at module level only, or (in_functions)
    inside functions too. Imports under ``if TYPE_CHECKING:`` are not run: left out. (A
    copy of the graph the module fixture builds once.)"""
    return {k: set(v) for k, v in _graph(in_functions).items()}


@functools.cache
def _import_lines(path: Path, in_functions: bool) -> frozenset[int]:
    """The lines of the import statements that run: not under ``if TYPE_CHECKING:``, and
    (unless ``in_functions``) not inside a function (tests/repo/syntax.py's one pass)."""
    return frozenset(
        site.line
        for site in syntax.imports(syntax.source(path))
        if site.runs and (in_functions or not site.in_function)
    )


@functools.cache
def _graph(in_functions: bool) -> dict[str, set[str]]:
    names = dict(_modules())
    edges: dict[str, set[str]] = {n: set() for n in names}
    for name, path in names.items():
        lines = _import_lines(path, in_functions)
        for mod, _, line in _imports(name, path):
            if line not in lines:
                continue
            while mod not in names and "." in mod:
                mod = mod.rpartition(".")[0]
            if mod in names and mod != name and mod.startswith("litaudit."):
                edges[name].add(mod)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(frozenset(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_at_module_level():
    assert _cycles(_edges(in_functions=False)) == []


def test_no_import_inside_a_function_that_hides_a_cycle():
    """An import moved into a function to dodge a cycle still couples the modules both
    ways: counted with the module-level ones, no new cycle appears."""
    assert set(_cycles(_edges(in_functions=True))) == KNOWN_CYCLES


def _idea(mod: str) -> str:
    """What an analyses module belongs to: its sub-package (``litaudit.analyses.reuse.verdict``
    -> ``litaudit.analyses.reuse``), or itself at the top level (``analyses.audits``)."""
    parts = mod.split(".")
    return ".".join(parts[:3]) if parts[:2] == ["litaudit", "analyses"] else mod


def _idea_edges(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph of the analyses collapsed to their ideas (sub-packages)."""
    out: dict[str, set[str]] = {}
    for a, targets in edges.items():
        if not a.startswith("litaudit.analyses."):
            continue
        out.setdefault(_idea(a), set())
        for b in targets:
            if b.startswith("litaudit.analyses.") and _idea(b) != _idea(a):
                out[_idea(a)].add(_idea(b))
                out.setdefault(_idea(b), set())
    return out


def test_the_analyses_subpackages_import_one_another_without_a_cycle():
    """A sub-package of the analyses is one idea (extreme-value audits, reusability,
    agreement): one may use another, never both ways (imports inside functions count)."""
    assert _cycles(_idea_edges(_edges(in_functions=True))) == []


def test_the_subpackage_cycle_finder_finds_one():
    a, b = "litaudit.analyses.a", "litaudit.analyses.b"
    edges = {f"{a}.x": {f"{b}.y"}, f"{b}.y": set(), f"{b}.z": {f"{a}.w"}, f"{a}.w": set()}
    assert _cycles(_idea_edges(edges)) == [frozenset({a, b})]
    del edges[f"{b}.z"]
    assert _cycles(_idea_edges(edges)) == []


def test_the_cycle_finder_finds_one():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _private_imports(name: str, path: Path) -> list[str]:
    """``from litaudit.x import _name`` in another module than x (dunders are fine), and a
    private module (``litaudit.analyses.reuse._part``) imported from outside its package."""
    found = []
    for mod, names, line in _imports(name, path):
        if not mod.startswith("litaudit") or mod == name:
            continue
        parts = mod.split(".")
        private = [i for i, p in enumerate(parts) if p.startswith("_") and not p.startswith("__")]
        if private and not name.startswith(".".join(parts[: private[0]]) + "."):
            found.append(f"{path.name}:{line}: {mod}")
        if names is None:
            continue
        found += [
            f"{path.name}:{line}: {mod}.{n}"
            for n in names
            if n.startswith("_") and not n.startswith("__")
        ]
    return found


# Private names imported across modules, each with its reason ("file: module.name").
# Shrink this set; never grow it. None is left.
KNOWN_PRIVATE_IMPORTS: set[str] = set()


def test_no_private_name_is_imported_across_modules():
    problems = [p for name, path in _modules() for p in _private_imports(name, path)]
    known = [
        p for p in problems if p.split(":")[0] + ":" + p.split(":", 2)[2] in KNOWN_PRIVATE_IMPORTS
    ]
    assert [p for p in problems if p not in known] == []
    assert {p.split(":")[0] + ":" + p.split(":", 2)[2] for p in known} == KNOWN_PRIVATE_IMPORTS


def test_the_private_import_check_finds_one(tmp_path):
    bad = tmp_path / "x.py"
    bad.write_text("from litaudit.runs.archive import _hidden, __version__, shown\n")
    assert _private_imports("litaudit.other", bad) == ["x.py:1: litaudit.runs.archive._hidden"]
    part = tmp_path / "y.py"  # a new file: syntax trees are cached by path
    part.write_text("from litaudit.analyses.reuse._part import shown\n")
    assert _private_imports("litaudit.analyses.extreme.best", part) == [
        "y.py:1: litaudit.analyses.reuse._part"
    ]
    assert _private_imports("litaudit.analyses.reuse.verdict", part) == []


def test_no_module_matches_pytests_test_file_pattern():
    """A library module named like a test file (``*_test.py``, ``test_*.py``) would be
    collected by ``pytest litaudit`` and confuses readers."""
    bad = [
        p.name for p in PKG.rglob("*.py") if p.stem.endswith("_test") or p.stem.startswith("test_")
    ]
    assert bad == []
