"""Field-level parsing and validation shared by the importers and the edit commands.

Every parser takes the raw text and returns the typed value or raises ``FieldError``
with a message that the caller attaches to a file, line and field.
"""

from __future__ import annotations

import datetime as dt
import getpass
import os
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from litaudit.errors import LitauditError
from litaudit.store.papers import COLUMNS as PAPERS_COLUMNS

SOURCES = ("paper", "official")
ROLES = ("proposed", "baseline", "official", "reproduction", "leaderboard")
RUN_TYPES = ("automatic", "manual")
STATUSES = ("draft", "verified", "retracted")
# a paper as the curation export and the store folder write it: the papers table's
# columns, as their owner lists them
PAPER_KEYS = PAPERS_COLUMNS
# Who produced a published number (results.reporter): the paper's authors, NIST's official
# evaluation, a leaderboard's maintainers, the MTEB maintainers' own run, or not recorded.
REPORTERS = ("authors", "nist", "leaderboard", "mteb", "pyserini", "unknown")
RUN_TYPE_SPELLINGS = {
    "automatic": "automatic",
    "auto": "automatic",
    "a": "automatic",
    "manual": "manual",
    "man": "manual",
    "m": "manual",
    "human-assisted": "manual",
}
# ASCII digits only: str.isdigit and \d would take Arabic-Indic and other digits
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
INT32_MAX = 2**31 - 1  # the database's INTEGER columns
# control characters a text field may not hold (tab, newline and carriage return may)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


class FieldError(ValueError):
    """A field's text is not a valid value."""


def blank(text) -> bool:
    if type(text) is str:  # the common case first (str.isspace: what str.strip strips)
        return not text or text.isspace()
    return (
        text is None
        or (isinstance(text, str) and text.strip() == "")
        or (isinstance(text, float) and text != text)
    )


def text_or_none(text) -> str | None:
    return None if blank(text) else str(text).strip()


def parse_value(text) -> tuple[float, str]:
    """(numeric value, text exactly as printed). '0.2531' -> (0.2531, '0.2531')."""
    if blank(text):
        raise FieldError("missing value")
    s = str(text).strip()
    if not _NUMBER.fullmatch(s):
        raise FieldError(f"not a number: {s!r}")
    try:
        d = Decimal(s)
    except InvalidOperation:
        raise FieldError(f"not a number: {s!r}") from None
    return float(d), s


def parse_int(text, what: str, minimum: int | None = None) -> int:
    s = str(text).strip()
    if not _INTEGER.fullmatch(s):
        raise FieldError(f"{what} must be a whole number, got {s!r}")
    if len(s.lstrip("+-")) > 12 or abs(int(s)) > INT32_MAX:
        raise FieldError(f"{what} {s} is too large (at most {INT32_MAX})")
    v = int(s)
    if minimum is not None and v < minimum:
        raise FieldError(f"{what} must be at least {minimum}, got {v}")
    return v


def parse_year(text) -> int:
    y = parse_int(text, "year")
    if not 1950 <= y <= 2100:
        raise FieldError(f"year {y} is out of range 1950-2100")
    return y


def parse_timestamp(text, what: str) -> dt.datetime:
    """A stored time as the store writes it (``YYYY-MM-DD HH:MM:SS[.ffffff]``)."""
    try:
        return dt.datetime.fromisoformat(str(text))
    except ValueError:
        raise FieldError(
            f"{what}: expected a timestamp YYYY-MM-DD HH:MM:SS, got {text!r}"
        ) from None


def parse_bool(text) -> bool:
    if isinstance(text, bool):
        return text
    s = str(text).strip().lower()
    if s in ("true", "yes", "y", "1", "t"):
        return True
    if s in ("false", "no", "n", "0", "f"):
        return False
    raise FieldError(f"expected true or false, got {text!r}")


def parse_date(text) -> dt.date:
    if isinstance(text, dt.datetime):
        return text.date()
    if isinstance(text, dt.date):
        return text
    s = str(text).strip()
    if not _DATE.fullmatch(s):
        raise FieldError(f"expected a date YYYY-MM-DD, got {s!r}")
    try:
        d = dt.date.fromisoformat(s)
    except ValueError:
        raise FieldError(f"not a calendar date: {s!r}") from None
    # a day of slack: the curator's clock may be ahead of UTC
    if d > dt.datetime.now(dt.UTC).date() + dt.timedelta(days=1):
        raise FieldError(f"{s} is in the future")
    return d


def has_control(texts) -> bool:
    """Whether any of ``texts`` (non-strings are skipped) holds what :func:`check_text`
    refuses: one search over them all, for a row of many fields."""
    try:
        joined = "\n".join(texts)  # a text file's row: every field a str
    except TypeError:
        joined = "\n".join(t for t in texts if isinstance(t, str))
    return _CONTROL.search(joined) is not None


def check_text(text) -> str | None:
    """The problem with a text field's content, if any (a NUL or another control
    character, or a bidirectional embedding, override or isolate U+202A-202E,
    U+2066-2069 that would reorder what a terminal or a page shows; tab and newlines are
    allowed)."""
    if not isinstance(text, str):
        return None
    m = _CONTROL.search(text)
    if m is None:
        return None
    c = m.group()
    what = (
        "a NUL byte"
        if c == "\x00"
        else f"bidirectional control U+{ord(c):04X}"
        if ord(c) > 0x7F
        else f"control character U+{ord(c):04X}"
    )
    return f"contains {what}"


BIBKEY_MAX = 100  # characters: a bibkey names its paper's file in a store folder


def check_bibkey(key: str, folded: dict[str, str] | None = None) -> str | None:
    """Why ``key`` cannot be a new paper's bibkey: too long for a file name, or equal but
    for case to another paper's (``folded``: casefolded bibkey -> bibkey; their files
    would be one on macOS and Windows)."""
    if len(key) > BIBKEY_MAX:
        return f"bibkey is {len(key)} characters long, at most {BIBKEY_MAX}"
    clash = (folded or {}).get(key.casefold())
    if clash is not None and clash != key:
        return f"bibkey {key!r} differs from paper {clash!r} by case alone"
    return None


def parse_track(text) -> str | None:
    """A track's name or nothing: parts separated by ``/`` (``trec7/adhoc``), none empty
    (``trec7//adhoc`` and ``trec7/adhoc/`` would name no folder of a store folder)."""
    if blank(text):
        return None
    s = str(text).strip()
    if any(not part.strip() for part in s.split("/")):
        raise FieldError(f"track {s!r} has an empty part (write e.g. trec7/adhoc)")
    if any(part in (".", "..") or part != part.strip() for part in s.split("/")):
        raise FieldError(f"track {s!r}: a part may not be . or .. or begin or end with a space")
    return s


def parse_reporter(text) -> str | None:
    if blank(text):
        return None
    return parse_choice(text, REPORTERS, "reporter")


def parse_url(text) -> str | None:
    """An http(s) URL or nothing: other schemes are refused (stored text is never a link
    to anything else)."""
    if blank(text):
        return None
    s = str(text).strip()
    if not re.match(r"^https?://\S+$", s, re.IGNORECASE):
        raise FieldError(f"expected an http(s) URL, got {s!r}")
    return s


def parse_choice(text, choices: tuple[str, ...], what: str) -> str:
    s = str(text).strip().lower()
    if s not in choices:
        raise FieldError(f"{what} must be one of {', '.join(choices)}; got {text!r}")
    return s


def parse_run_type(text) -> str | None:
    if blank(text):
        return None
    s = str(text).strip().lower()
    if s not in RUN_TYPE_SPELLINGS:
        raise FieldError(f"run type must be automatic or manual; got {text!r}")
    return RUN_TYPE_SPELLINGS[s]


# A field's value from its text, by the same rules in an import (curation.importer) and an
# edit (curation.results): one parser per field. Fields whose rules differ between the two
# (status, standard and date default or convert differently; collection and measure are
# looked up) are parsed where they are used.
FIELD_PARSERS: dict[str, Callable[[Any], Any]] = {
    "role": lambda s: parse_choice(s, ROLES, "role"),
    "run_type": parse_run_type,
    "transcribed_at": parse_date,
    "reporter": parse_reporter,
    "url": parse_url,
    "code_url": parse_url,
    "n_topics": lambda s: parse_int(s, "n_topics", minimum=1),
    "year": parse_year,
    "participant": text_or_none,
    "topic_set": text_or_none,
    "location": text_or_none,
    "notes": text_or_none,
    "track": parse_track,
}


# the names litaudit records its own changes under (seed sync, `litaudit sync`): a user's
# change under one of them would be taken for the tool's (the next `init` reverts those)
TOOL_USERS = ("litaudit init", "litaudit sync")


def check_user(name: str, where: str) -> str:
    """``name`` (from ``where``: --who or $LITAUDIT_USER) stripped, or LitauditError when
    it is blank, holds a control character or is a name the tool writes under."""

    s = name.strip()
    why = check_text(s) or ("is empty" if not s else None)
    if why is None and (s.lower() in TOOL_USERS or s.lower().startswith("litaudit ")):
        why = f"{s!r} is the name litaudit records its own changes under; give your own name"
    if why:
        raise LitauditError(f"{where}: {why}")
    return s


def current_user(who: str | None = None) -> str:
    """Who is curating: ``who`` (--who), else $LITAUDIT_USER, else the login name; a
    name the tool writes under (:data:`TOOL_USERS`) is refused."""
    if who is not None:
        return check_user(who, "--who")
    name = os.environ.get("LITAUDIT_USER")
    if name:
        return check_user(name, "$LITAUDIT_USER")
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers)
        return "unknown"


def parse_assignments(items, option: str = "--set") -> tuple[tuple[str, str], ...]:
    """['value=0.31', 'location=Table 4'] -> (('value', '0.31'), ('location', 'Table 4'))
    (a field given twice: its last value, where it was first given)."""
    changes: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise LitauditError(f"{option} {item!r}: expected FIELD=VALUE")
        k, v = item.split("=", 1)
        changes[k.strip()] = v
    return tuple(changes.items())
