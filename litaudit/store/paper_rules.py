"""The rules a paper row keeps (the DDL's CHECKs of ``papers``, schema 001), as plain
functions: :class:`litaudit.store.models.Paper`'s validators call them, and
:func:`litaudit.store.papers.check_paper` applies them without importing SQLModel
(pydantic, SQLAlchemy: ~0.4 s of CPU at the first paper a process writes, which ``papers
add`` and ``papers edit`` paid before their write).

- bibkey and citation not blank; year 1950-2100 or none; a URL http(s) or none.
"""

from __future__ import annotations

import re

YEARS = (1950, 2100)
_URL = re.compile(r"^https?://\S+$", re.IGNORECASE)


def not_blank(value, what: str):
    if value is None or not str(value).strip():
        raise ValueError(f"{what} cannot be empty")
    return value


def in_years(value):
    if value is not None and not YEARS[0] <= value <= YEARS[1]:
        raise ValueError(f"year {value} is out of range {YEARS[0]}-{YEARS[1]}")
    return value


def web_url(value):
    if value is not None and not _URL.match(value):
        raise ValueError(f"expected an http(s) URL, got {value!r}")
    return value
