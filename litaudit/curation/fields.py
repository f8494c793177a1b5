"""Field-level parsing and validation shared by the importers and the edit commands.

Every parser takes the raw text and returns the typed value or raises ``FieldError``
with a message that the caller attaches to a file, line and field.
"""

from __future__ import annotations

import datetime as dt
import getpass
import os
import re
from decimal import Decimal, InvalidOperation

SOURCES = ("paper", "official")
ROLES = ("proposed", "baseline", "official", "reproduction")
RUN_TYPES = ("automatic", "manual")
STATUSES = ("draft", "verified", "retracted")
# Who produced a published number (results.reporter): the paper's authors, NIST's official
# evaluation, a leaderboard's maintainers, the MTEB maintainers' own run, or not recorded.
REPORTERS = ("authors", "nist", "leaderboard", "mteb", "unknown")
RUN_TYPE_SPELLINGS = {
    "automatic": "automatic", "auto": "automatic", "a": "automatic",
    "manual": "manual", "man": "manual", "m": "manual", "human-assisted": "manual",
}
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


class FieldError(ValueError):
    """A field's text is not a valid value."""


def blank(text) -> bool:
    return text is None or (isinstance(text, str) and text.strip() == "") or (
        isinstance(text, float) and text != text)


def text_or_none(text) -> str | None:
    return None if blank(text) else str(text).strip()


def parse_value(text) -> tuple[float, str]:
    """(numeric value, text exactly as printed). '0.2531' -> (0.2531, '0.2531')."""
    if blank(text):
        raise FieldError("missing value")
    s = str(text).strip()
    if not _NUMBER.match(s):
        raise FieldError(f"not a number: {s!r}")
    try:
        d = Decimal(s)
    except InvalidOperation:
        raise FieldError(f"not a number: {s!r}") from None
    return float(d), s


def parse_int(text, what: str, minimum: int | None = None) -> int:
    s = str(text).strip()
    if not re.fullmatch(r"[+-]?\d+", s):
        raise FieldError(f"{what} must be a whole number, got {s!r}")
    v = int(s)
    if minimum is not None and v < minimum:
        raise FieldError(f"{what} must be at least {minimum}, got {v}")
    return v


def parse_year(text) -> int:
    y = parse_int(text, "year")
    if not 1950 <= y <= 2100:
        raise FieldError(f"year {y} is out of range 1950-2100")
    return y


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
    try:
        return dt.date.fromisoformat(s[:10])
    except ValueError:
        raise FieldError(f"expected a date YYYY-MM-DD, got {s!r}") from None


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


def current_user() -> str:
    """Who is curating: $LITAUDIT_USER, else the login name."""
    name = os.environ.get("LITAUDIT_USER")
    if name:
        return name
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers)
        return "unknown"
