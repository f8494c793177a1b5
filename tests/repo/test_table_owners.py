"""One owner per table (docs/DEVELOPING.md, "Who owns which table"): SQL on a table
(``INSERT INTO``, ``UPDATE``, ``DELETE FROM``, ``FROM``, ``JOIN``) stands only in its
owner's modules, and every table of schema/*.sql has an owner.

The tables are read from the schema files (created, less those dropped, renamed ones
under their new names), so a table added without an owner fails here. Each module is
parsed once for every check."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from tests.repo import syntax

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "litaudit"

# table -> the modules (paths under litaudit/) that hold SQL on it: its owner first, then
# the modules the owner's own docs name as part of it (a write path, a seeding read).
OWNERS: dict[str, tuple[str, ...]] = {
    "results": (
        "store/results.py",
        "store/results_write.py",
        "store/results_counts.py",
        "store/seeded.py",
        "store/consistency.py",
    ),
    "papers": ("store/papers.py",),
    "history": ("store/history.py", "store/seeded.py"),
    "collections": ("store/collections.py", "store/collection_names.py"),
    "collection_aliases": ("store/collections.py", "store/collection_names.py"),
    "topic_sets": ("store/collections.py",),
    "measures": ("store/measures.py",),
    "measure_aliases": ("store/measures.py",),
    "pool_depths": ("store/pool_depths.py",),
    "pool_depth_history": ("store/pool_depths.py",),
    "reference_noise": ("store/reference_noise.py",),
    "zero_shot": ("store/zero_shot.py",),
    "audits": ("store/audits.py",),
    # the run archive: loaded, listed and deleted by runs/archive.py, looked up in by
    # runs/archive_lookups.py, written by an import
    **{
        t: ("runs/archive.py", "runs/archive_lookups.py", "runs/ingest_write.py")
        for t in ("runs", "run_topics", "run_docs", "run_qrels", "run_qrels_files", "run_rankings")
    },
    "run_eval_runs": ("runs/evalcache.py",),
    "run_eval_topics": ("runs/evalcache.py",),
}

# Reads of a table by another table's owner, each with its reason ("module: table"):
# a join or a subquery of a listing. Never a write.
JOIN_READS: dict[str, str] = {
    "store/results.py: collections": "a result's collection name in its listings",
    "store/results.py: papers": "a result's paper in its listings",
    "store/results.py: zero_shot": "the --zero-shot filter (where)",
    "store/results_write.py: papers": "a new result's paper in its uid",
    "store/results_counts.py: collections": "the collections holding a measure",
    "store/consistency.py: papers": "a result's paper in the consistency check",
    "store/papers.py: results": "a paper's results (listing, delete check)",
    "store/history.py: results": "a change's result in the history window",
    "store/collections.py: results": "results per collection in `collections list`",
    "runs/evalcache.py: runs": "the archive's state fingerprint (archive.py imports evalcache)",
    "runs/evalcache.py: run_qrels_files": "the same fingerprint",
}

KEYWORD = r"(INSERT\s+INTO|UPDATE|DELETE\s+FROM|FROM|JOIN)"
WRITE_KEYWORDS = ("INSERT", "UPDATE", "DELETE")
# a table named by a formatted value (f"DELETE FROM {t}"): no owner can be checked
RUNTIME_TABLE = re.compile(KEYWORD + r"\s*$")


def schema_tables(files: list[Path] | None = None) -> set[str]:
    """The tables the schema files leave: created, less dropped, renamed ones renamed."""
    tables: set[str] = set()
    for path in files if files is not None else sorted((ROOT / "schema").glob("*.sql")):
        sql = re.sub(r"--[^\n]*", "", path.read_text(encoding="utf-8"))
        for m in re.finditer(
            r"\b(CREATE\s+TABLE|DROP\s+TABLE|ALTER\s+TABLE)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
            r"(\w+)(\s+RENAME\s+TO\s+(\w+))?",
            sql,
            re.IGNORECASE,
        ):
            verb, name = m.group(1).split()[0].upper(), m.group(2).lower()
            if verb == "CREATE":
                tables.add(name)
            elif verb == "DROP":
                tables.discard(name)
            elif m.group(4):
                tables.discard(name)
                tables.add(m.group(4).lower())
    return tables


def _strings(tree: ast.Module):
    """(line, text) of every string constant but docstrings (f-strings' literal parts
    included), and (line, text) of each literal part followed by a formatted value."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    strings, before_value = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            strings.append((node.lineno, node.value))
        if isinstance(node, ast.JoinedStr):
            for a, b in zip(node.values, node.values[1:], strict=False):
                if isinstance(a, ast.Constant) and isinstance(b, ast.FormattedValue):
                    before_value.append((node.lineno, a.value))
    return strings, before_value


# a table named by a formatted value, in a module's source
RUNTIME_IN_SOURCE = re.compile(r"\b" + KEYWORD + r"\s*\{")


def sql_on_tables(name: str, text: str, tables: set[str]) -> list[tuple[int, str, str, str]]:
    """(line, keyword, table, statement) of every SQL statement in ``text`` (a module's
    source) on one of ``tables`` (upper-case keywords: words in prose, "update results",
    are not SQL), and (line, keyword, "", ...) where a table is named at run time."""
    rx = re.compile(r"\b" + KEYWORD + r"\s+(" + "|".join(sorted(tables)) + r")\b")
    if not rx.search(text) and not RUNTIME_IN_SOURCE.search(text):
        return []  # no SQL on a table here: not parsed
    strings, before_value = _strings(syntax.parse(text))
    found = [
        (line, m.group(1).split()[0], m.group(2), m.group(0))
        for line, s in strings
        for m in rx.finditer(s)
        if not (m.group(1) == "FROM" and s[: m.start()].rstrip().endswith("DELETE"))
    ]
    found += [
        (line, m.group(1).split()[0], "", f"{m.group(0).strip()} {{...}}")
        for line, s in before_value
        if (m := RUNTIME_TABLE.search(s))
    ]
    return sorted(found)


def problems(found: dict[str, list[tuple[int, str, str, str]]]) -> list[str]:
    """Every statement of ``found`` (path under litaudit/ -> its statements, as
    :func:`sql_on_tables` gives them) outside its table's owner, as "path:line: statement
    (why)"."""
    out = []
    for rel, statements in sorted(found.items()):
        for line, keyword, table, stmt in statements:
            where = f"{rel}:{line}: {stmt}"
            if not table:
                out.append(f"{where} (a table named at run time: write it out)")
            elif rel in OWNERS.get(table, ()):
                continue
            elif keyword in WRITE_KEYWORDS:
                out.append(f"{where} (only {OWNERS[table][0]} writes {table})")
            elif f"{rel}: {table}" not in JOIN_READS:
                out.append(f"{where} (ask {OWNERS[table][0]})")
    return out


@functools.cache
def _found() -> dict[str, list[tuple[int, str, str, str]]]:
    """Every module's statements on the schema's tables, found once for every check."""
    tables = schema_tables()
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        out[rel] = sql_on_tables(rel, syntax.source(path), tables)
    return out


def test_every_table_of_the_schema_has_an_owner():
    tables = schema_tables()
    assert len(tables) >= 21
    assert sorted(tables - OWNERS.keys()) == [], "add the table's owner to OWNERS"
    assert sorted(OWNERS.keys() - tables) == [], "a table the schema no longer has"
    for table, modules in OWNERS.items():
        for rel in modules:
            assert (PKG / rel).is_file(), (table, rel)


def test_no_sql_on_a_table_outside_its_owner():
    assert problems(_found()) == []


def test_every_listed_join_read_is_still_there():
    used = {f"{rel}: {s[2]}" for rel, statements in _found().items() for s in statements}
    assert sorted(set(JOIN_READS) - used) == []


def test_the_finder_finds_stray_sql_but_not_prose(tmp_path):
    src = (
        '"""We update results and insert into history in prose: FROM results r."""\n'
        'con.execute("INSERT INTO history (entity) VALUES (?)")\n'
        'con.execute(f"UPDATE results SET {sets} WHERE id = ?")\n'
        "con.execute('DELETE FROM papers')\n"
        'con.execute("SELECT 1 FROM results r JOIN papers p ON p.id = r.paper_id")\n'
        'con.execute("SELECT * FROM runs")\n'
        'con.execute(f"DELETE FROM {t} WHERE collection_id = ?")\n'
        'con.execute("SELECT * FROM runs_of_mine")\n'
    )
    tables = {"results", "papers", "history", "runs"}
    assert problems({"analyses/x.py": sql_on_tables("x.py", src, tables)}) == [
        "analyses/x.py:2: INSERT INTO history (only store/history.py writes history)",
        "analyses/x.py:3: UPDATE results (only store/results.py writes results)",
        "analyses/x.py:4: DELETE FROM papers (only store/papers.py writes papers)",
        "analyses/x.py:5: FROM results (ask store/results.py)",
        "analyses/x.py:5: JOIN papers (ask store/papers.py)",
        "analyses/x.py:6: FROM runs (ask runs/archive.py)",
        "analyses/x.py:7: DELETE FROM {...} (a table named at run time: write it out)",
    ]
    # the owner may; another owner may read (a listed join), never write
    assert problems({"store/results.py": sql_on_tables("results.py", src, tables)}) == [
        "store/results.py:2: INSERT INTO history (only store/history.py writes history)",
        "store/results.py:4: DELETE FROM papers (only store/papers.py writes papers)",
        "store/results.py:6: FROM runs (ask runs/archive.py)",
        "store/results.py:7: DELETE FROM {...} (a table named at run time: write it out)",
    ]


def test_a_new_table_without_an_owner_fails(tmp_path):
    (tmp_path / "001.sql").write_text(
        "CREATE TABLE runs (id INTEGER);\nCREATE TABLE old (id INTEGER);\n"
        "CREATE TABLE t_new (id INTEGER); -- CREATE TABLE in_a_comment\n"
        "DROP TABLE runs;\nALTER TABLE t_new RENAME TO run_notes;\n"
        "ALTER TABLE old ADD COLUMN x INTEGER;\n"
    )
    tables = schema_tables([tmp_path / "001.sql"])
    assert tables == {"old", "run_notes"}
    assert sorted(tables - OWNERS.keys()) == ["old", "run_notes"]
