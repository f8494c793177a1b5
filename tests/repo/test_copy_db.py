"""tests/conftest.py's sparse copy of a built file gives the file's bytes, whatever its size."""

from __future__ import annotations

import pytest

from tests.conftest import _PAGE, copy_db


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"a pickle shorter than a page",
        b"\0" * _PAGE,
        b"x" * _PAGE,
        b"\0" * (3 * _PAGE) + b"y" * 10,
        b"z" * 10 + b"\0" * (2 * _PAGE) + b"w" * (_PAGE + 1) + b"\0" * 5,
    ],
    ids=["empty", "under-a-page", "one-zero-page", "one-page", "zeros-then-tail", "mixed"],
)
def test_the_copy_has_the_sources_bytes(tmp_path, data):
    src = tmp_path / "built.bin"
    src.write_bytes(data)
    dst = copy_db(src, tmp_path / "copy.bin")
    assert dst.read_bytes() == data
