"""tests/conftest.py's ``tmp_path`` (``_own_folder``): a new empty folder a test, named
after it, removed at its end when it passed, kept when it failed."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import _own_folder


def test_each_folder_is_new_empty_and_named_after_its_test(tmp_path: Path):
    assert tmp_path.is_dir() and not any(tmp_path.iterdir())
    assert tmp_path.name.startswith("test_each_folder_is_new_empty_")
    made = []
    for _ in range(3):
        with _own_folder(tmp_path, "test_x[a/b c]", lambda: False) as path:
            assert path.is_dir() and not any(path.iterdir())
            assert path.parent == tmp_path and path.name.startswith("test_x_a_b_c_")
            made.append(path)
    assert len(set(made)) == 3  # each one new, all kept (remove() said no)
    long = "t" * 40
    with _own_folder(tmp_path, long, lambda: False) as path:
        assert path.name.rstrip("0123456789") == "t" * 30


def test_a_folder_is_removed_only_when_its_test_passed(tmp_path: Path):
    with _own_folder(tmp_path, "passed", lambda: True) as path:
        (path / "sub").mkdir()
        (path / "sub" / "file").write_text("x")
    assert not path.exists()
    with _own_folder(tmp_path, "failed", lambda: False) as path:
        (path / "file").write_text("x")
    assert (path / "file").read_text() == "x"


def test_a_name_taken_another_way_is_skipped(tmp_path: Path):
    with _own_folder(tmp_path, "t", lambda: False) as first:
        pass
    number = int(first.name[1:])
    (tmp_path / f"t{number + 1}").mkdir()  # the next number, made by someone else
    with _own_folder(tmp_path, "t", lambda: False) as second:
        assert second.name == f"t{number + 2}" and not any(second.iterdir())
