"""litaudit.runtime: the command's allocator set-up (glibc's mallopt through ctypes)."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_tune_allocator_applies_on_glibc_and_only_for_the_command():
    # a fresh process: importing the library leaves the allocator alone; the command's
    # database opening tunes it, once
    script = (
        "import litaudit.runs.archive, litaudit.runs.ingest, litaudit.runtime as rt\n"
        "print(rt._tuned)\n"
        "print(rt.tune_allocator(), rt.tune_allocator())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "None"
    import platform

    if not (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"):
        pytest.skip(f"not glibc ({platform.libc_ver()}): tune_allocator does nothing there")
    assert out[1] == "True True"


def test_cli_opening_a_database_tunes(cli, monkeypatch):
    import litaudit.runtime as rt

    assert cli("init").exit_code == 0
    calls = []
    monkeypatch.setattr(rt, "tune_allocator", lambda: calls.append(1) or True)
    assert cli("collections", "list").exit_code == 0       # opens it read-only
    assert cli("runs", "list").exit_code == 0
    assert len(calls) == 2
