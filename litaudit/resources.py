"""Where the schema migrations and the seed files are: inside the installed package
(``litaudit/_data/``, put there by the wheel's build step, see setup.py), else the
repository's top-level folders (an editable install or a source checkout).

Stdlib only: the store and the curation code both use it.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]


def data_dir(name: str) -> Path:
    """The folder ``name`` ('schema' or 'seeds') this installation ships."""
    packaged = resources.files("litaudit") / "_data" / name
    if packaged.is_dir():
        return Path(str(packaged))
    return _REPO / name
