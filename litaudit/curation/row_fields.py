"""One row of a results file checked field by field (for :mod:`litaudit.curation.plan`):
typed values, the problems of every field at once, the paper a new bibkey describes; the
database look-ups every row needs are a :class:`~litaudit.curation.import_context.Context`,
read once per import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from litaudit.curation import fields
from litaudit.curation.import_context import Context
from litaudit.curation.papers_read import short_citation, short_venue
from litaudit.curation.rows import Row
from litaudit.errors import LitauditError, Problem
from litaudit.measures import did_you_mean, parse_measure

PAPER_FIELDS = ("citation", "title", "authors", "venue", "year", "doi", "url", "tags")
REQUIRED = (
    "source",
    "collection",
    "measure",
    "value",
    "system",
    "role",
    "transcribed_by",
    "transcribed_at",
)


@dataclass
class PreparedPaper:
    bibkey: str
    values: dict
    line: int


def natural_key(v: dict, bibkey: str | None) -> tuple:
    return (
        v["source"],
        bibkey or "",
        v.get("track") or "",
        v["collection_id"],
        v["n_topics"],
        v["measure"],
        v["system"],
        v["role"],
    )


def parse_row(
    ctx: Context,
    new_measures: set,
    row: Row,
    file: str,
    problems: list[Problem],
    bad,
    absent: set,
    described: set,
    new_papers: dict[str, PreparedPaper],
) -> tuple[dict, str | None, list[str]]:
    """One row's typed values, its bibkey and its missing required fields; its problems
    reported through ``bad`` (every field is checked, so that all are reported at once)."""
    d, texts = _stripped(row.data)

    def opt(name: str) -> str | None:  # fields.text_or_none(d.get(name))
        return (d.get(name) or None) if texts else fields.text_or_none(d.get(name))

    if fields.has_control(d.values()):  # one search of the row; then the fields, to name them
        for k, text in d.items():
            why = fields.check_text(text)
            if why:
                bad(why, k)
                d[k] = ""
    missing = [c for c in REQUIRED if (not d.get(c) if texts else fields.blank(d.get(c)))]
    for c in missing:
        if c not in absent:
            bad("missing provenance" if c.startswith("transcribed") else "missing value", c)
    # the other fields are still checked, so that every problem is reported at once
    v: dict = {"source": None}
    try:
        if "source" not in missing:
            v["source"] = fields.parse_choice(d["source"], fields.SOURCES, "source")
    except fields.FieldError as e:
        bad(str(e), "source")
    bibkey = opt("paper")
    try:
        v["track"] = ctx.parse("track", fields.parse_track, d.get("track"))
    except fields.FieldError as e:
        v["track"] = None
        bad(str(e), "track")
    _check_provenance(
        ctx,
        d,
        v,
        bibkey,
        bad,
        described,
        new_papers,
        lambda key: _prepare_paper(d, key, row.line, file, problems),
    )
    v["collection_id"] = cid = _parse_collection(ctx, d, missing, bad)
    v["measure"] = None
    if "measure" not in missing:
        _grouped(
            ctx,
            ("measure", d["measure"]),
            lambda out, b: out.update(measure=check_measure(ctx, new_measures, d, [], b)),
            v,
            bad,
        )
    _parse_value(ctx, d, v, missing, bad)
    v["system"] = d.get("system")
    v["participant"] = opt("participant")
    own = ("own", *[d.get(name, "") for name, _ in OWN_PARSERS])
    if "role" in missing or "transcribed_at" in missing:
        own_fields(ctx, own, missing, v, bad)
    else:
        _grouped(ctx, own, lambda out, b: own_fields(ctx, own, (), out, b), v, bad)
    v["transcribed_by"] = d.get("transcribed_by")
    v["location"] = opt("location")
    v["notes"] = opt("notes")
    _grouped(
        ctx,
        ("topics", cid, d.get("topic_set"), d.get("n_topics")),
        lambda out, b: check_topics(ctx, d, out, cid, b),
        v,
        bad,
    )
    check_year(ctx, d, v, bibkey, new_papers, bad)
    return v, bibkey, missing


def _stripped(data: dict) -> tuple[dict, bool]:
    """A row's fields with their texts stripped, and whether every field is a text (a
    text file's row: then a blank field is "")."""
    try:
        return dict(zip(data, map(str.strip, data.values()), strict=True)), True
    except TypeError:
        return {k: (v.strip() if isinstance(v, str) else v) for k, v in data.items()}, False


# the fields whose value is a function of their own text alone, in the order checked
OWN_PARSERS: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("role", fields.FIELD_PARSERS["role"]),
    ("run_type", fields.FIELD_PARSERS["run_type"]),
    ("status", lambda s: fields.parse_choice(s or "draft", fields.STATUSES, "status")),
    ("standard", lambda s: True if fields.blank(s) else fields.parse_bool(s)),
    ("transcribed_at", fields.FIELD_PARSERS["transcribed_at"]),
    ("date", lambda s: None if fields.blank(s) else fields.parse_date(s)),
    ("reporter", fields.FIELD_PARSERS["reporter"]),
    ("url", fields.FIELD_PARSERS["url"]),
    ("code_url", fields.FIELD_PARSERS["code_url"]),
)


def own_fields(ctx: Context, own: tuple, missing, v: dict, bad) -> None:
    """The :data:`OWN_PARSERS` fields from their texts (``own[1:]``), those missing
    left out (reported as missing already)."""
    for (name, fn), text in zip(OWN_PARSERS, own[1:], strict=True):
        if name in missing:
            continue
        try:
            v[name] = ctx.parse(name, fn, text)
        except fields.FieldError as e:
            bad(str(e), name)


def _grouped(ctx: Context, key: tuple, check, v: dict, bad) -> None:
    """``check``'s values into ``v`` and its problems through ``bad``, as a row whose
    texts are ``key``'s gets them (:meth:`Context.group`)."""
    values, problems = ctx.group(key, check)
    v.update(values)
    for message, field in problems:
        bad(message, field)


def _check_provenance(
    ctx: Context,
    d: dict,
    v: dict,
    bibkey: str | None,
    bad,
    described: set,
    new_papers: dict[str, PreparedPaper],
    prepare: Callable[[str], PreparedPaper | None],
) -> None:
    """A paper result's bibkey (its paper prepared by ``prepare`` when new), an official
    one's track."""
    if v["source"] == "paper":
        if not bibkey:
            bad("missing provenance: a paper result needs the paper's bibkey", "paper")
        elif (
            bibkey not in ctx.papers
            and bibkey in described
            and not any(fields.text_or_none(d.get(f"paper_{f}")) for f in PAPER_FIELDS)
        ):
            pass  # described on another line of the file
        elif bibkey not in ctx.papers:
            pp = prepare(bibkey)
            if pp is not None:
                prev = new_papers.get(bibkey)
                if prev is None:
                    new_papers[bibkey] = pp
                elif prev.values != pp.values:
                    bad(f"paper {bibkey!r} is described differently on line {prev.line}", "paper")
    elif v["source"] == "official" and not v["track"]:
        bad("missing provenance: an official result needs its track, e.g. trec7/adhoc", "track")


def _parse_collection(ctx: Context, d: dict, missing: list[str], bad) -> str | None:
    if "collection" in missing:
        return None
    try:
        return ctx.collections.resolve(d.get("collection") or "")
    except LitauditError as exc:
        bad(str(exc), "collection")
        return None


def check_measure(ctx: Context, new_measures: set, d: dict, missing: list[str], bad) -> str | None:
    """The measure's name; one parseable but not yet registered is added to
    ``new_measures`` (the plan's, registered when it is applied)."""
    if "measure" in missing:
        return None
    try:
        m = str(parse_measure(d["measure"]))
        if m not in ctx.measures:
            # parseable but not yet registered: registered when the plan is applied
            pm = parse_measure(m)
            ctx.measures[m] = (pm.min_value, pm.max_value)
            new_measures.add(m)
        return m
    except LitauditError as e:
        bad(str(e), "measure")
        return None


def _parse_value(ctx: Context, d: dict, v: dict, missing: list[str], bad) -> None:
    """``value`` and ``value_text``, checked against the measure's range."""
    if "value" in missing:
        return
    try:
        v["value"], v["value_text"] = fields.parse_value(d["value"])
        if v["measure"]:
            lo, hi = ctx.measures[v["measure"]]
            if not lo <= v["value"] <= hi:
                hint = (
                    " (a percentage? give it as a fraction)"
                    if hi == 1 and v["value"] <= 100
                    else ""
                )
                bad(
                    f"{v['value_text']} is outside the range of {v['measure']} "
                    f"[{lo:g}, {hi:g}]{hint}",
                    "value",
                )
    except fields.FieldError as e:
        bad(str(e), "value")


def check_topics(ctx: Context, d: dict, v: dict, cid: str | None, bad) -> None:
    """``topic_set`` and ``n_topics`` (the collection's default topic set when neither
    is given)."""
    v["topic_set"] = fields.FIELD_PARSERS["topic_set"](d.get("topic_set"))
    try:
        known = cid and v["topic_set"] and (cid, v["topic_set"]) in ctx.topic_sets
        if cid and v["topic_set"] and not known:
            names = [n for (c, n) in ctx.topic_sets if c == cid]
            bad(
                f"unknown topic set {v['topic_set']!r} of {cid}"
                f"{did_you_mean(v['topic_set'], names) or ' (known: ' + (', '.join(names) or 'none') + ')'}",
                "topic_set",
            )
        if not fields.blank(d.get("n_topics")):
            v["n_topics"] = fields.FIELD_PARSERS["n_topics"](d["n_topics"])
            if known and ctx.topic_sets[(cid, v["topic_set"])] != v["n_topics"]:
                bad(
                    f"topic set {v['topic_set']!r} has "
                    f"{ctx.topic_sets[(cid, v['topic_set'])]} topics, not {v['n_topics']}",
                    "n_topics",
                )
        elif known:
            v["n_topics"] = ctx.topic_sets[(cid, v["topic_set"])]
        elif cid and cid in ctx.default_topics and not v["topic_set"]:
            name, n = ctx.default_topics[cid]
            v["topic_set"] = name
            v["n_topics"] = n
        else:
            v["n_topics"] = None
            if cid and not v["topic_set"]:
                bad("missing number of topics and the collection has no default", "n_topics")
    except fields.FieldError as e:
        bad(str(e), "n_topics")
        v["n_topics"] = None


def check_year(
    ctx: Context, d: dict, v: dict, bibkey: str | None, new_papers: dict[str, PreparedPaper], bad
) -> None:
    """``year``: given, else the date's, the paper's, or a TREC track's (trec7: 1998)."""
    try:
        if not fields.blank(d.get("year")):
            v["year"] = ctx.parse("year", fields.FIELD_PARSERS["year"], d["year"])
        elif v.get("date"):
            v["year"] = v["date"].year
        elif (
            v["source"] == "paper"
            and bibkey in new_papers
            and new_papers[bibkey].values.get("year")
        ):
            v["year"] = new_papers[bibkey].values["year"]
        elif v["source"] == "paper" and bibkey in ctx.papers and ctx.papers[bibkey][1]:
            v["year"] = ctx.papers[bibkey][1]
        elif (
            v["track"]
            and v["track"].lower().startswith("trec")
            and v["track"][4:].split("/")[0].isascii()
            and v["track"][4:].split("/")[0].isdigit()
        ):
            v["year"] = 1991 + int(v["track"][4:].split("/")[0])
            fields.parse_year(v["year"])
        else:
            if v["source"]:
                bad("missing year (of the paper or the submission)", "year")
            v["year"] = None
    except fields.FieldError as e:
        bad(str(e), "year")


def _prepare_paper(
    d: dict, bibkey: str, line: int, file: str, problems: list[Problem]
) -> PreparedPaper | None:
    """A new paper from the row's paper_* columns. ``paper_citation`` is optional: without
    it the short citation is made from the authors, venue and year (as `papers add`
    does); a row with none of citation, title and authors names an unknown paper."""

    vals: dict[str, Any] = {f: fields.text_or_none(d.get(f"paper_{f}")) for f in PAPER_FIELDS}
    why = fields.check_bibkey(bibkey)
    if why:
        problems.append(Problem(file, line, why, "paper"))
        return None
    if not (vals["citation"] or vals["title"] or vals["authors"]):
        problems.append(
            Problem(
                file,
                line,
                f"unknown paper {bibkey!r}: add it first "
                "(litaudit papers add/import) or give paper_citation, "
                "paper_title or paper_authors",
                "paper",
            )
        )
        return None
    try:
        vals["url"] = fields.parse_url(vals["url"])
    except fields.FieldError as e:
        problems.append(Problem(file, line, str(e), "paper_url"))
        return None
    if vals["year"] is not None:
        try:
            vals["year"] = fields.parse_year(vals["year"])
        except fields.FieldError as e:
            problems.append(Problem(file, line, str(e), "paper_year"))
            return None
    if not vals["citation"]:
        vals["citation"] = short_citation(vals["authors"], short_venue(vals["venue"]), vals["year"])
    return PreparedPaper(bibkey, vals, line)
