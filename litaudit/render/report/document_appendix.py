"""The appendices of a report as blocks: A, the audits cited with their parameters in
words; B, where each cited value was transcribed (split from :mod:`.document`, issue 37;
no behaviour changed)."""

from __future__ import annotations

from litaudit.render.report.blocks import Heading, Table, f4
from litaudit.render.report.build import cite_text
from litaudit.render.report.model import Candidate, Report, anchor


def params_text(params: dict) -> str:
    """An audit's parameters in words: 'alpha 0.05; p 0.2; filters: dated up to ...'."""
    from litaudit.curation.filters import Filters

    parts = []
    for k in sorted(params):
        v = params[k]
        if k in ("collection", "measure", "method") or v is None:
            continue  # said elsewhere (the method has its column), or not given
        if k == "filters" and isinstance(v, dict):
            known = {f: v[f] for f in Filters.__dataclass_fields__ if f in v}
            for f in ("roles", "run_types", "statuses", "reporters"):
                if known.get(f) is not None:
                    known[f] = tuple(known[f])
            if known.get("years") is not None:
                known["years"] = tuple(known["years"])
            try:
                words = Filters(**known).describe()
            except TypeError:  # a stored shape this version does not know
                words = ", ".join(f"{a} {b}" for a, b in sorted(v.items()) if b)
            parts.append(f"filters: {words or 'none'}")
        elif isinstance(v, dict):
            inner = ", ".join(f"{a} {_value(b)}" for a, b in sorted(v.items()))
            parts.append(f"{k.replace('_', ' ')}: {inner or 'none'}")
        else:
            parts.append(f"{k.replace('_', ' ')} {_value(v)}")
    return "; ".join(parts) or "-"


def _value(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        return ", ".join(_value(x) for x in v) or "none"
    if isinstance(v, dict):
        return ", ".join(f"{a} {_value(b)}" for a, b in sorted(v.items())) or "none"
    return f"{v:g}" if isinstance(v, float) else str(v)


def audits_appendix(rep: Report) -> list:
    """Appendix A: the audits cited, their parameters in words (the JSON report has them
    as stored)."""
    rows = []
    for a in rep.audits:
        row = (
            f"#{a.id}",
            a.kind,
            a.measure or "-",
            params_text(a.params),
            a.method,
            "-" if a.seed is None else str(a.seed),
            "-" if a.trials is None else str(a.trials),
            a.input_fingerprint[:16],
            a.software_version,
        )
        rows.append(row + ((a.created_at or "-",) if rep.generated_at else ()))
    cols = (
        "audit",
        "kind",
        "measure",
        "parameters",
        "method",
        "seed",
        "trials",
        "input fingerprint",
        "version",
    ) + (("created",) if rep.generated_at else ())
    return [
        Heading(2, "Appendix A: the audits cited", anchor("audits")),
        Table(
            cols,
            tuple(rows),
            "Input fingerprints are SHA-256 (first 16 hex digits "
            "shown; the JSON report has them in full, with the parameters as stored).",
        ),
    ]


def provenance_appendix(rep: Report) -> list:
    """Appendix B: where each cited value was transcribed from (file, line, column, or
    track), and its curation status."""
    seen: dict[tuple, Candidate] = {}
    for c in rep.claims:
        if c.record_holder is not None:
            seen.setdefault(_key(c.record_holder), c.record_holder)
    for lit in rep.literature:
        for x in ((lit.record,) if lit.record else ()) + lit.candidates:
            seen.setdefault(_key(x), x)
    if not seen:
        return []
    rows = tuple(
        (
            c.value_text or f4(c.value),
            c.system or "-",
            cite_text(c),
            c.location or c.track or "-",
            c.reporter or "-",
            c.status or "-",
        )
        for c in seen.values()
    )
    return [
        Heading(2, "Appendix B: where the cited values were transcribed", anchor("provenance")),
        Table(("value", "system", "cited as", "transcribed from", "reported by", "status"), rows),
    ]


def _key(c: Candidate) -> tuple:
    return (c.value_text, c.system, c.citation, c.location, c.date)
