"""The layer rules of docs/DEVELOPING.md, read from every module's imports (ast): top-level
and inside functions alike."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "litaudit"
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
# what render may take from the analyses: result types, constants, and reading stored
# audits; never a function that computes or stores one
# audits; never a function that computes or stores one. analyses.wording turns typed
# results into the sentences the claim audit stores (string formatting, no statistic): the
# renderers use the same functions so that terminal and report say the same words.
RENDER_MAY_READ = {
    "litaudit.analyses.audits": {
        "StoredAudit",
        "Audited",
        "get_audit",
        "list_audits",
        "find_audit",
        "kinds",
        "result_type",
        "fingerprint",
    },
    "litaudit.analyses.wording": {
        "p_text",
        "fmt_p",
        "fmt_n_star",
        "sci",
        "who",
        "result_label",
        "reference_sentence",
        "luck_sentence",
        "summary_null_sentence",
        "history_reference_sentence",
        "uninformative_sentence",
        "interaction_sentence",
        "population_sentence",
        "cited",
    },
}


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _imports(name: str, path: Path):
    """(module imported, names taken from it or None, line) for every import statement."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([mod] if mod else []))
            names = [a.name for a in node.names]
            submods = [
                f"{mod}.{n}"
                for n in names
                if (PKG.parent / f"{mod}.{n}".replace(".", "/")).with_suffix(".py").exists()
                or (PKG.parent / f"{mod}.{n}".replace(".", "/")).is_dir()
            ]
            if submods:  # `from litaudit.analyses import best` imports a module
                for sm in submods:
                    yield sm, None, node.lineno
            else:
                yield mod, names, node.lineno


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
    if name in ("litaudit.codec", "litaudit.defaults", "litaudit.errors", "litaudit.measures"):
        if top in STDLIB or mod in ("litaudit.errors", "litaudit", "numpy"):
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
        ("litaudit.render.x", "litaudit.analyses.best", ["run_best"], True),
        ("litaudit.render.x", "litaudit.analyses.best", ["BestReport"], False),
        ("litaudit.render.x", "litaudit.analyses.audits", ["save_audit"], True),
        ("litaudit.store.x", "litaudit.analyses.audits", ["fingerprint"], True),
    ],
)
def test_the_rules_catch_a_leak(name, mod, names, bad):
    assert (_violation(name, mod, names) is not None) == bad


def test_importing_the_analyses_loads_no_rendering():
    code = (
        "import sys, pkgutil, importlib, litaudit.analyses as a\n"
        "for m in pkgutil.iter_modules(a.__path__):\n"
        "    importlib.import_module('litaudit.analyses.' + m.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'rich'\n"
        "             or m.startswith(('litaudit.render', 'litaudit.cli')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PKG.parent
    )
    assert out.stdout.strip() == ""
