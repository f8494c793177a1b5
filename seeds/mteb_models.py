"""Read the training data MTEB's model registry declares, into seeds/mteb_training.json.gz.

A developer script, run once by hand on a checkout of the mteb package's source (never
by `litaudit init`, never at run time); the JSON it writes is committed and read by
seeds/transcribe.py, which derives the zero-shot flag of each MTEB result from it.

    python seeds/mteb_models.py SRC --commit SHA --version V   # SRC: the mteb repository

What it reads, without importing mteb (standard library only: the files are parsed, and
the few expressions the registry builds its sets with are evaluated: literals, names
defined or imported in the package, ``set(...)``, ``|``, ``{**a, **b}``, ``[*a, *b]``):

- every ``ModelMeta(name=..., training_datasets=..., adapted_from=...)`` under
  ``mteb/models``. ``training_datasets`` is a set of MTEB task names (older versions: a
  dict whose keys are task names); None: the model declares none (unknown).
- every ``TaskMetadata(name=..., adapted_from=[...], superseded_by=...)`` under
  ``mteb/tasks``: MTEB counts a task as trained on when the model declares it or a task
  linked to it this way (``ModelMeta.get_training_datasets``, ``_collect_similar_tasks``:
  MSMARCOHardNegatives is adapted from MSMARCO, so declaring one declares both), and adds
  the training data of the model it is ``adapted_from``.

A model whose declaration this cannot evaluate is listed under ``unreadable``.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parent / "mteb_training.json.gz"


class Unreadable(Exception):
    """An expression this reader does not evaluate."""


def _module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class Package:
    """Top-level assignments and imports of every module under ``root/mteb``."""

    def __init__(self, root: Path, sub: str):
        self.assigns: dict[str, dict[str, ast.expr]] = {}
        self.imports: dict[str, dict[str, tuple[str, str]]] = {}
        self.trees: dict[str, ast.Module] = {}
        for path in sorted((root / "mteb" / sub).rglob("*.py")):
            mod = _module_name(root, path)
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            self.trees[mod] = tree
            env: dict[str, ast.expr] = {}
            imp: dict[str, tuple[str, str]] = {}
            for node in tree.body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    if isinstance(node.targets[0], ast.Name):
                        env[node.targets[0].id] = node.value
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    if node.value is not None:
                        env[node.target.id] = node.value
                elif (
                    isinstance(node, ast.ImportFrom)
                    and node.module is not None
                    or (isinstance(node, ast.ImportFrom) and node.level)
                ):
                    base = _resolve_from(mod, node, path.name == "__init__.py")
                    for a in node.names:
                        imp[a.asname or a.name] = (base, a.name)
            self.assigns[mod] = env
            self.imports[mod] = imp

    def lookup(self, mod: str, name: str, depth: int = 0) -> tuple[str, ast.expr]:
        if depth > 20:
            raise Unreadable(name)
        if name in self.assigns.get(mod, {}):
            return mod, self.assigns[mod][name]
        if name in self.imports.get(mod, {}):
            base, orig = self.imports[mod][name]
            return self.lookup(base, orig, depth + 1)
        raise Unreadable(f"{mod}.{name}")

    def value(self, mod: str, node: ast.expr | None, depth: int = 0):
        """A set of strings, a string, None, or Unreadable."""
        if depth > 50:
            raise Unreadable("too deep")
        v = lambda n: self.value(mod, n, depth + 1)  # noqa: E731
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            if node.value is None or isinstance(node.value, str):
                return node.value
            raise Unreadable(ast.dump(node))
        if isinstance(node, ast.Name):
            m, expr = self.lookup(mod, node.id)
            return self.value(m, expr, depth + 1)
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            return _elements(node.elts, v)
        if isinstance(node, ast.Dict):  # {task: splits} or {**a, **b}: its keys
            return _keys(node, v)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitOr, ast.Add)):
            return _as_set(v(node.left)) | _as_set(v(node.right))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            return _as_set(v(node.left)) - _as_set(v(node.right))
        if isinstance(node, ast.Call):
            return _call(node, v)
        raise Unreadable(ast.dump(node)[:80])


def _elements(elts: list[ast.expr], v) -> set[str]:
    """The strings of a set, list or tuple display (``*a`` spliced in)."""
    out: set[str] = set()
    for e in elts:
        if isinstance(e, ast.Starred):
            out |= _as_set(v(e.value))
        else:
            x = v(e)
            if not isinstance(x, str):
                raise Unreadable(ast.dump(e))
            out.add(x)
    return out


def _keys(node: ast.Dict, v) -> set[str]:
    """The keys of a dict display (``**a`` spliced in)."""
    out: set[str] = set()
    for k, val in zip(node.keys, node.values, strict=True):
        if k is None:
            out |= _as_set(v(val))
        else:
            x = v(k)
            if not isinstance(x, str):
                raise Unreadable(ast.dump(k))
            out.add(x)
    return out


def _call(node: ast.Call, v) -> set[str]:
    """``set(x)``, ``frozenset(x)``, ``list(x)``, ``dict(x)`` and ``a.union(b)``,
    ``a.copy()``, ``a.keys()``."""
    if isinstance(node.func, ast.Name):
        if node.func.id in ("set", "frozenset", "list", "dict") and not node.keywords:
            return set() if not node.args else _as_set(v(node.args[0]))
    if isinstance(node.func, ast.Attribute):
        if node.func.attr in ("union", "copy", "keys") and not node.keywords:
            out = _as_set(v(node.func.value))
            for a in node.args:
                out |= _as_set(v(a))
            return out
    raise Unreadable(ast.dump(node)[:80])


def _as_set(x) -> set[str]:
    if isinstance(x, set):
        return x
    raise Unreadable(repr(x)[:80])


def _resolve_from(mod: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = mod.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*parts, node.module] if node.module else parts)


def _calls(tree: ast.Module, func: str):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            if name == func:
                yield {k.arg: k.value for k in node.keywords if k.arg}


def read_models(root: Path) -> tuple[dict, dict, list]:
    """({model: declared training tasks or None}, {model: adapted_from}, unreadable)."""
    pkg = Package(root, "models")
    declared: dict[str, set[str] | None] = {}
    adapted: dict[str, str] = {}
    unreadable = []
    for mod, tree in pkg.trees.items():
        for kw in _calls(tree, "ModelMeta"):
            try:
                name = pkg.value(mod, kw.get("name"))
            except Unreadable:
                continue  # a ModelMeta built from variables (a factory), not a registry entry
            if not isinstance(name, str):
                continue
            try:
                td = pkg.value(mod, kw.get("training_datasets"))
                src = pkg.value(mod, kw.get("adapted_from"))
            except Unreadable:
                unreadable.append(name)
                continue
            declared[name] = None if td is None else set(td)
            if isinstance(src, str):
                adapted[name] = src
    return declared, adapted, sorted(set(unreadable) - set(declared))


def read_similar(root: Path) -> dict[str, set[str]]:
    """MTEB's similar tasks (adapted_from, superseded_by), as an undirected graph."""
    pkg = Package(root, "tasks")
    graph: dict[str, set[str]] = defaultdict(set)
    for mod, tree in pkg.trees.items():
        for kw in _calls(tree, "TaskMetadata"):
            try:
                name = pkg.value(mod, kw.get("name"))
                links = pkg.value(mod, kw.get("adapted_from")) or set()
                sup = pkg.value(mod, kw.get("superseded_by"))
            except Unreadable:
                continue
            if not isinstance(name, str):
                continue
            for other in _as_set(links) | ({sup} if isinstance(sup, str) else set()):
                graph[name].add(other)
                graph[other].add(name)
    return graph


def training_tasks(model: str, declared: dict, adapted: dict, similar: dict) -> set[str] | None:
    """MTEB's get_training_datasets: the declared tasks, those of the model it is adapted
    from, and every task linked to one of them; None when the model declares none."""
    if declared.get(model) is None:
        return None
    tasks = set(declared[model])
    seen = {model}
    src = adapted.get(model)
    while src is not None and src not in seen and src in declared:
        seen.add(src)
        tasks |= declared[src] or set()
        src = adapted.get(src)
    out, todo = set(tasks), list(tasks)
    while todo:
        for t in similar.get(todo.pop(), ()):
            if t not in out:
                out.add(t)
                todo.append(t)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="a checkout of embeddings-benchmark/mteb")
    ap.add_argument("--commit", required=True, help="the commit SRC is at")
    ap.add_argument("--version", required=True, help="the mteb version of that commit")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    declared, adapted, unreadable = read_models(args.src)
    similar = read_similar(args.src)
    models = {
        m: (None if (t := training_tasks(m, declared, adapted, similar)) is None else sorted(t))
        for m in sorted(declared)
    }
    doc = {
        "_about": "Training data declared by MTEB's model registry (ModelMeta.training_datasets, "
        "with the tasks MTEB links to them and the data of the model each is adapted from), "
        "read by seeds/mteb_models.py; null: the model declares none. seeds/README.md.",
        "source": f"embeddings-benchmark/mteb at commit {args.commit} (mteb {args.version})",
        "unreadable": unreadable,
        "models": models,
    }
    text = json.dumps(doc, indent=0) + "\n"  # deterministic gzip: no name, mtime 0
    args.out.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    known = sum(v is not None for v in models.values())
    print(
        f"wrote {args.out}: {len(models)} models, {known} declare training data, "
        f"{len(unreadable)} unreadable",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
