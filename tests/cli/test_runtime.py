"""litaudit.runtime: the command's allocator set-up (glibc's mallopt through ctypes)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import copy_db


def test_tune_allocator_applies_on_glibc_and_only_for_the_command():
    # a fresh process: importing the library leaves the allocator alone; the command's
    # database opening tunes it, once
    script = (
        "import litaudit.runs.archive, litaudit.runs.ingest, litaudit.runtime as rt\n"
        "print(rt._tuned)\n"
        "print(rt.tune_allocator(), rt.tune_allocator())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "None"
    import platform

    if not (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"):
        pytest.skip(f"not glibc ({platform.libc_ver()}): tune_allocator does nothing there")
    assert out[1] == "True True"


def test_cli_opening_a_database_tunes(cli, reference_db_file, monkeypatch):

    import litaudit.runtime as rt

    copy_db(reference_db_file, cli.db)  # what `init --no-seeds` writes
    calls = []

    def counted() -> bool:
        calls.append(1)
        return True

    monkeypatch.setattr(rt, "tune_allocator", counted)
    assert cli("collections", "list").exit_code == 0  # opens it read-only
    assert cli("runs", "list").exit_code == 0
    assert len(calls) == 2


@pytest.mark.slow
def test_the_command_runs_openblas_on_one_thread_unless_the_user_chose():
    # the command's entry point sets it before numpy is loaded; a user's value is kept;
    # importing the library sets nothing
    script = (
        "import atexit, os, sys\n"
        "import litaudit.runs.archive\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
        "atexit.register(lambda: print(os.environ.get('OPENBLAS_NUM_THREADS')))\n"
        "sys.argv = ['litaudit', '--help']\n"
        "from litaudit.cli.main import main\n"
        "main()\n"
    )
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env
    ).stdout.split()
    assert out[0] == "None" and out[-1] == "1"
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**env, "OPENBLAS_NUM_THREADS": "3"},
    ).stdout.split()
    assert out[0] == "3" and out[-1] == "3"


@pytest.mark.slow
@pytest.mark.parametrize("json_", [True, False])
def test_a_closed_stdout_stops_the_command_quietly(seeded_db_file, tmp_path, json_):
    # `litaudit results list [--json] | head -c 1` over the whole seeded store (31k rows;
    # plain lines or JSON, no rich table: ~1 s, where rich's table took ~55 s): the reader
    # goes away after one byte; the command ends quietly, nothing on stderr (no "Broken
    # pipe" error, no traceback, no message about flushing stdout at exit), exit code 1

    db = tmp_path / "s.duckdb"
    copy_db(seeded_db_file, db)
    args = ["results", "list"] + (["--json"] if json_ else [])
    proc = subprocess.Popen(
        [sys.executable, "-m", "litaudit", "--db", str(db), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**__import__("os").environ, "COLUMNS": "200"},
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(1)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert err == ""
