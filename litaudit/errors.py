"""Typed exceptions. The CLI turns any LitauditError into one red line and exit code 1."""

from __future__ import annotations

from dataclasses import dataclass


class LitauditError(Exception):
    """Base class of every error litaudit reports to a user."""


class ParameterError(LitauditError, ValueError):
    """A statistical procedure was called with parameters outside its domain."""


class StoreError(LitauditError):
    """The database cannot be opened or used."""


class StoreLocked(StoreError):
    """The database file is held by another process."""


class SchemaTooNew(StoreError):
    """The database was written by a newer litaudit than this one."""


class SchemaOutdated(StoreError):
    """The database needs `litaudit db migrate` before a read-only command can use it."""


class NotFound(LitauditError):
    """A named collection, measure, paper, result, run or audit does not exist."""


class IncompleteRun(LitauditError):
    """A stored run's import did not finish; it is not used until imported again."""


@dataclass(frozen=True)
class Problem:
    """One problem found while validating an input file."""

    file: str
    line: int | None
    message: str
    field: str | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        what = f"{self.field}: {self.message}" if self.field else self.message
        return f"{where}: {what}" if where else what

    def as_dict(self) -> dict:
        """The form `--json` prints on stderr: file, line, field, message."""
        return {
            "file": self.file or None,
            "line": self.line,
            "field": self.field,
            "message": self.message,
        }


class ValidationFailed(LitauditError):
    """An input file has problems; nothing was written."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        n = len(self.problems)
        first = str(self.problems[0]) if self.problems else "no details"
        more = f" (and {n - 1} more problem{'s' if n > 2 else ''})" if n > 1 else ""
        super().__init__(f"{first}{more}")


class InputError(LitauditError):
    """A single input file problem with its file and line, for fail-fast readers."""

    def __init__(self, file: str, line: int | None, message: str, field: str | None = None):
        self.problem = Problem(str(file), line, message, field)
        super().__init__(str(self.problem))


def problems_of(exc: LitauditError) -> list[Problem]:
    """Every problem an error carries (one without a file has file and line None)."""
    if isinstance(exc, ValidationFailed):
        return list(exc.problems)
    if isinstance(exc, InputError):
        return [exc.problem]
    return [Problem("", None, str(exc))]
