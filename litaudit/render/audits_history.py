"""The terminal text of `audit history` (Carterette, SIGIR 2015, sequential testing):
the steps that set a record, listed by result type in
:data:`litaudit.render.audits.RENDERERS`."""

from __future__ import annotations

from litaudit.analyses.extreme.history import HistoryReport
from litaudit.analyses.extreme.wording import cited
from litaudit.analyses.extreme.wording_best import (
    history_chance_sentence,
    history_reference_sentence,
)
from litaudit.analyses.extreme.wording_noise import (
    reference_sentence,
)
from litaudit.render.audits_evidence import line, wide
from litaudit.render.audits_extreme import p_value_text, population_header, value_text
from litaudit.render.audits_records import render_record_steps
from litaudit.render.console import table


def render_history(rep: HistoryReport, audit_id: int | None, every: bool = False) -> None:
    """The steps that set a record (every step with ``every``: `audit history --all`),
    then the count of records and of those beyond the running threshold."""
    h = rep.history
    step = rep.by
    population_header(
        rep,
        "Sequential-testing history",
        audit_id,
        extra=f"  {history_reference_sentence(h.reference)}; all {h.N} results: mean "
        f"{value_text(h.mu)}, sd {value_text(h.sd)}",
    )
    rows = [
        (
            pt.when or pt.year,
            pt.n_new,
            pt.N,
            pt.record,
            "*" if pt.new_record else "",
            pt.expected_max,
            pt.threshold,
            p_value_text(pt.p_value, pt.p_below_floor),
            pt.beyond_chance,
            f"{rec.value_text} {rec.system} ({cited(rec)})",
        )
        for pt, rec in zip(h.points, rep.records, strict=True)
        if every or pt.new_record
    ]
    title = None if every else f"Records ({step}s that set a new record)"
    wide(
        table(
            title,
            [
                step,
                "new",
                "N",
                "record",
                "new",
                "expected max",
                f"threshold ({h.alpha})",
                "p",
                "above",
                "record holder",
            ],
            rows,
        )
    )
    above = [pt for pt in h.points if pt.new_record and pt.beyond_chance]
    line(
        f"{h.n_records} records over {len(h.points)} {step}s; "
        f"{len(above)} of them above the {h.alpha:g} threshold of the max of the N "
        "published so far"
        + (f" ({', '.join(str(pt.when or pt.year) for pt in above)})" if above else "")
        + f"; {h.n_beyond} {step}s with the record above it."
    )
    inspected = history_chance_sentence(rep.spread)
    if inspected:
        line(inspected)
    if rep.noise is not None:
        line(reference_sentence(rep.noise, h.N))
    if rep.record_steps is not None:
        render_record_steps(rep.record_steps)
