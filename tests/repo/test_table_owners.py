"""One owner per table (docs/DEVELOPING.md, "Who owns which table"): no module outside
litaudit/store/ holds SQL on the results, papers or history tables; the store's modules
(store.results, store.papers, store.history) read and write them for everyone else."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "litaudit"
TABLES = ("results", "papers", "history")
# SQL that writes a table, and SQL that reads one (upper-case keywords: words in prose,
# "update results", are not SQL)
WRITES = re.compile(r"\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(" + "|".join(TABLES) + r")\b")
READS = re.compile(r"(?<!DELETE\s)\b(FROM|JOIN)\s+(" + "|".join(TABLES) + r")\b")


# Reads left where they are, each with its reason ("file: statement"). Keep it empty.
KNOWN_READS: set[str] = set()


def _strings(tree: ast.Module):
    """(line, text) of every string constant but docstrings (f-strings' literal parts
    included)."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def _sql_on_tables(path: Path, text: str) -> list[str]:
    """Every statement in ``text`` (a module's source) that writes or reads an owned
    table, as "file:line: statement"."""
    found = []
    for line, s in _strings(ast.parse(text)):
        for rx in (WRITES, READS):
            found += [
                (line, m.start(), f"{path.name}:{line}: {m.group(0)}") for m in rx.finditer(s)
            ]
    return [f for _, _, f in sorted(found)]


@pytest.mark.slow
def test_no_module_outside_the_store_holds_sql_on_the_owned_tables():
    problems = []
    for path in sorted(PKG.rglob("*.py")):
        if path.relative_to(PKG).parts[0] == "store":
            continue
        problems += _sql_on_tables(path, path.read_text(encoding="utf-8"))
    known = [p for p in problems if re.sub(r":\d+:", ":", p) in KNOWN_READS]
    assert [p for p in problems if p not in known] == []
    assert {re.sub(r":\d+:", ":", p) for p in known} == KNOWN_READS


def test_the_finder_finds_writes_and_reads_but_not_prose(tmp_path):
    src = (
        '"""We update results and insert into history in prose: FROM results r."""\n'
        'con.execute("INSERT INTO history (entity) VALUES (?)")\n'
        'con.execute(f"UPDATE results SET {sets} WHERE id = ?")\n'
        "con.execute('DELETE FROM papers')\n"
        'con.execute("SELECT 1 FROM results r JOIN papers p ON p.id = r.paper_id")\n'
        'con.execute("SELECT * FROM runs")\n'
    )
    assert _sql_on_tables(tmp_path / "x.py", src) == [
        "x.py:2: INSERT INTO history",
        "x.py:3: UPDATE results",
        "x.py:4: DELETE FROM papers",
        "x.py:5: FROM results",
        "x.py:5: JOIN papers",
    ]
