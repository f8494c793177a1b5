"""The user's path (`runs import`, then `runs eval`) loads no library it does not use.

pandas, scipy and sqlmodel (with SQLAlchemy) take 0.1 to 0.4 s to import; the run
archive's commands work on Arrow and numpy alone (litaudit.runs.columns converts without
pandas), so loading one of them would be start-up time a user waits for on each command.
Each command runs in a fresh interpreter (what was imported before cannot hide an import).

Nor what each command does not need of the libraries it uses: numpy.ma (8 ms, which
``np.unique`` loads to ask whether it was given a masked array), rich.progress (7 ms,
only where a bar is drawn: not here, stderr is no terminal), pyarrow.compute (26-38 ms:
its kernels are called by name, litaudit.runs.arrow_calls) and, for `runs eval`, pyarrow
(25-45 ms: the stored tables come to numpy straight from DuckDB).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import copy_db

HEAVY = ("pandas", "scipy", "sqlmodel", "sqlalchemy")
UNUSED = ("numpy.ma", "rich.progress", "pyarrow.compute")  # loaded by neither command
NOT_BY_EVAL = ("pyarrow",)  # `runs import` reads the files with it
# the other command groups: the root makes only the sub-command it runs (cli.main._LazyCommands)
OTHER_GROUPS = tuple(
    f"litaudit.cli.{m}" for m in ("audit", "collections", "measures", "papers", "results", "reuse")
)

# run the command as `litaudit` does, then name the heavy modules it loaded
_PROBE = """
import json, sys
from litaudit.cli.main import app
try:
    app(sys.argv[1:], standalone_mode=False)
finally:
    print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


# the same, for one command run ``times`` times in one interpreter (a module is never
# unloaded: none loaded after the last run is none loaded by any of them)
_PROBE_REPEATED = """
import json, sys
from litaudit.cli.main import app
try:
    for _ in range({times}):
        app(sys.argv[1:], standalone_mode=False)
finally:
    print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def _loaded(
    *args: str, probe: tuple[str, ...] = HEAVY + OTHER_GROUPS + UNUSED, times: int = 1
) -> list[str]:
    script = (
        _PROBE.format(heavy=probe)
        if times == 1
        else _PROBE_REPEATED.format(heavy=probe, times=times)
    )
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_runs_import_and_eval_load_no_pandas_scipy_sqlmodel_or_other_commands(
    reference_db_file, tmp_path
):
    db = str(tmp_path / "t.duckdb")
    copy_db(reference_db_file, db)  # what `init --no-seeds` writes (its own interpreter)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 D{d} {d % 2}\n" for t in (1, 2) for d in range(6)))
    runs = []
    for r in range(2):
        p = tmp_path / f"run{r}.txt"
        p.write_text(
            "".join(
                f"{t} Q0 D{(d + r) % 6} {d + 1} {1 - d / 10:.2f} run{r}\n"
                for t in (1, 2)
                for d in range(5)
            )
        )
        runs.append(str(p))
    assert (
        _loaded("--db", db, "runs", "import", "-c", "robust03", "--qrels", str(qrels), *runs) == []
    )
    # computed and kept, then read back from the store: both in one fresh interpreter
    # (what the first loaded the second would find loaded, so none after both is none
    # by either), not one each (a start-up, 0.3 s of CPU, fewer)
    assert (
        _loaded(
            "--db",
            db,
            "runs",
            "eval",
            "-c",
            "robust03",
            "-m",
            "AP",
            "-m",
            "P@10",
            "-m",
            "Rprec",
            probe=HEAVY + OTHER_GROUPS + UNUSED + NOT_BY_EVAL,
            times=2,
        )
        == []
    )


def test_help_lists_every_command():
    """--help lists every sub-command, in order, so none is lost by loading late."""
    from typer.testing import CliRunner

    from litaudit.cli.main import _TOP, app

    out = CliRunner().invoke(app, ["--help"], terminal_width=100).output
    listed = list(_TOP)
    assert all(f"│ {name} " in out for name in listed)
    assert [out.index(f"│ {name} ") for name in listed] == sorted(
        out.index(f"│ {name} ") for name in listed
    )


def test_the_root_help_is_the_loaded_commands_own_and_loads_none(monkeypatch):
    """The root's --help lists each sub-command from cli.main._LISTED_HELP without loading
    it: each entry is the first paragraph of the command's own help, the screen is the one
    made from the loaded commands, and no command module is imported for it."""
    import inspect

    import typer
    from typer.core import TyperGroup
    from typer.testing import CliRunner

    from litaudit.cli import main as M

    quick = CliRunner().invoke(M.app, ["--help"], terminal_width=100).output
    group = typer.main.get_command(M.app)
    assert isinstance(group, M._Root) and isinstance(group.commands, M._LazyCommands)
    loaded = {name: group.commands[name] for name in M._TOP}  # loads them all
    assert set(M._LISTED_HELP) == set(loaded)
    for name, cmd in loaded.items():
        assert M._LISTED_HELP[name] == inspect.cleandoc(cmd.help or "").split("\n\n")[0], name
    monkeypatch.setattr(M._Root, "format_help", TyperGroup.format_help)  # lists loaded ones
    full = CliRunner().invoke(M.app, ["--help"], terminal_width=100).output
    assert quick == full and "│ reuse " in full
    probe = (
        "import sys\nfrom litaudit.cli.main import app\ntry:\n app(['--help'])\n"
        "except SystemExit: pass\n"
        "print([m for m in sys.modules if m.startswith('litaudit.cli.') and m != 'litaudit.cli.main'])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr
