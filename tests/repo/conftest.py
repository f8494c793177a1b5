"""The repository's contracts run in the fast loop too: `make test-fast` selects
``not slow or contract``, and every test of these files is marked ``contract`` here (not
in the files, which their owners rewrite), however much CPU it takes (issue 37: the owner
test and the layers test in `make test-fast`)."""

from __future__ import annotations

import pytest

CONTRACTS = ("test_table_owners.py", "test_layers.py")


def pytest_configure(config):
    """The contract tests' import statements kept across runs in pytest's cache
    (tests/repo/syntax.py), unless the cache is off (``-p no:cacheprovider``)."""
    from tests.repo import syntax

    cache = getattr(config, "cache", None)
    syntax.KEPT = cache.mkdir("litaudit-import-sites") if cache is not None else None


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.name in CONTRACTS and item.path.parent.name == "repo":
            item.add_marker(pytest.mark.contract)
