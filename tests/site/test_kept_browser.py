"""The key of a kept Chromium answer (tests/kept_browser.py): every file the page can
load is in it, by its place in the page's folder and its bytes, not by where the run's
copy of the folder lies; another test's probe copy beside the page is not."""

from __future__ import annotations

from pathlib import Path

from tests.kept_browser import _folder_digest


def _site(root: Path) -> Path:
    (root / "pop").mkdir(parents=True)
    (root / "index.html").write_text("<p>index</p>", "utf-8")
    page = root / "pop" / "a.selftest-1280x800.html"
    page.write_text("<p>a</p><script>probe()</script>", "utf-8")
    return page


def test_the_key_is_the_folders_bytes_not_its_place(tmp_path):
    page = _site(tmp_path / "one")
    key = _folder_digest(tmp_path / "one", page)
    other = _site(tmp_path / "two")
    assert _folder_digest(tmp_path / "two", other) == key  # another run's copy
    (tmp_path / "two" / "index.html").write_text("<p>index!</p>", "utf-8")
    assert _folder_digest(tmp_path / "two", other) != key  # a page it can load changed
    other.write_text("<p>a</p><script>probe(1)</script>", "utf-8")
    (tmp_path / "two" / "index.html").write_text("<p>index</p>", "utf-8")
    assert _folder_digest(tmp_path / "two", other) != key  # the probe script changed
    (tmp_path / "one" / "pop" / "renamed.html").write_bytes(page.read_bytes())
    assert _folder_digest(tmp_path / "one", page) != key  # a file added


def test_another_tests_probe_copy_is_not_in_the_key(tmp_path):
    page = _site(tmp_path)
    key = _folder_digest(tmp_path, page)
    (tmp_path / "index.selftest-1024x768.html").write_text("<p>another test's</p>", "utf-8")
    assert _folder_digest(tmp_path, page) == key
