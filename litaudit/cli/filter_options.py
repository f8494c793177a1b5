"""The population filters' options of the extreme-value audits (`audit best`, `claim`,
`history`, `summary`, `ranks`) and of `report`: each defined once here, and
:func:`with_filters`, which turns a command's marked parameters into those options and
hands the command one :class:`~litaudit.curation.filters.Filters` of them all (parsed before
it runs). The other options several commands share are in cli/options.py.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import typer

from litaudit.cli.options import (
    reporter_option,
    since_option,
    topics_option,
    until_option,
    years_option,
)
from litaudit.cli.result_options import (
    role_option,
    run_type_option,
    source_option,
    track_option,
)


def optional(flag: str, text: str) -> Any:
    """An option left unset by default, its default said in its help ("(default: all)")."""
    return typer.Option(None, flag, help=text, show_default=False)


SourceOpt = source_option(None, "default: both")
RoleOpt = role_option(None, "repeatable; default: all")
RunTypeOpt = run_type_option(None, "repeatable; default: all")
YearsOpt = years_option("")
SinceOpt = since_option("results dated then or later (undated results by their year)")
UntilOpt = until_option("results dated then or earlier (undated results by their year)")
ReporterOpt = reporter_option("repeatable; default: all")
TrackOpt = track_option(
    None, "or a prefix ending in '/', msmarco-passage/leaderboard/full-ranking; default: all"
)
TopicsOpt = topics_option(
    None, "50, or its name (default: the only one, else the collection's default set)"
)
RetractedOpt = typer.Option(False, "--include-retracted", help="Include retracted results.")
ZeroShotOpt = typer.Option(
    False,
    "--zero-shot",
    help="Only results of models whose declared training data leave out the collection "
    "(MTEB's model metadata; undeclared ones left out).",
)
NonstandardOpt = typer.Option(
    False, "--include-nonstandard", help="Include results flagged non-standard."
)


# the population filters' options, as best/claim/history/summary take them:
# parameter -> (its type, its option); _filters turns them into one Filters
_FILTER_OPTIONS: dict[str, tuple[Any, Any]] = {
    "source": (str, SourceOpt),
    "role": (list[str], RoleOpt),
    "run_type": (list[str], RunTypeOpt),
    "years": (str, YearsOpt),
    "topics": (str, TopicsOpt),
    "include_retracted": (bool, RetractedOpt),
    "include_nonstandard": (bool, NonstandardOpt),
    "since": (str, SinceOpt),
    "until": (str, UntilOpt),
    "reporter": (list[str], ReporterOpt),
    "track": (str, TrackOpt),
    "zero_shot": (bool, ZeroShotOpt),
}


class _FilterOptions(tuple):
    """A command parameter's default that stands for these filter options (see with_filters)."""


def filter_options(*names: str) -> Any:
    """The default of a command parameter that stands for these filter options."""
    return _FilterOptions(names)


POPULATION = filter_options(
    "source", "role", "run_type", "years", "topics", "include_retracted", "include_nonstandard"
)
WINDOW = filter_options("since", "until", "reporter", "track", "zero_shot")


def _filters(role=None, run_type=None, reporter=None, **given):
    """The Filters of the filter options given (the others at Filters.parse's defaults)."""
    from litaudit.curation.filters import Filters

    roles, run_types, reporters = role or (), run_type or (), reporter or ()
    return Filters.parse(roles=roles, run_types=run_types, reporters=reporters, **given)


def _resolved(fn, q: inspect.Parameter) -> inspect.Parameter:
    """The parameter with its annotation evaluated (a shared option of cli/common, an
    ``Annotated`` alias, is what typer reads); a type named only for type checkers (the
    Filters a marked parameter receives) stays a string."""
    if not isinstance(q.annotation, str):
        return q
    try:
        return q.replace(annotation=eval(q.annotation, fn.__globals__))  # noqa: S307
    except NameError:
        return q


def with_filters(fn):
    """``fn`` as a command whose parameters with a filter_options(...) default stand for
    those options, in that place of its --help (one --help order, said in its signature);
    the function gets one Filters of them all in the first such parameter, parsed before
    it runs (a bad --years fails before the store opens). `report` takes them so too."""
    sig = inspect.signature(fn)
    sig = sig.replace(parameters=[_resolved(fn, q) for q in sig.parameters.values()])
    marks = [q for q in sig.parameters.values() if isinstance(q.default, _FilterOptions)]
    params: list[inspect.Parameter] = []
    for q in sig.parameters.values():
        if q not in marks:
            params.append(q)
            continue
        for n in q.default:
            kind, opt = _FILTER_OPTIONS[n]
            params.append(inspect.Parameter(n, q.kind, default=opt, annotation=kind))
    names = [n for m in marks for n in m.default]

    @functools.wraps(fn)
    def command(**kw):
        kw[marks[0].name] = _filters(**{n: kw.pop(n) for n in names})
        return fn(**kw)  # the other marked parameters keep their (unused) default

    command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {q.name: q.annotation for q in params}  # what typer reads
    return command
