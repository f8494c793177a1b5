"""Literature sections of a report: the stored 'best', 'claim' and 'history' audits.

Carterette, "The Best Published Result is Random", SIGIR 2015: Table 2 (N, mean, sd,
max), Table 3 (mu0, the 1-2p interval, the candidate best set), the alpha threshold
of the max, the record over the years against the expected max, and a claimed value
judged as the best of N + 1 draws. Audits are read from the store; missing ones are run
through :mod:`litaudit.analyses.best` when it is installed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from litaudit.errors import LitauditError
from litaudit.render.console import to_jsonable
from litaudit.render.report.model import (
    Candidate,
    ClaimSection,
    HistoryPoint,
    LiteratureSection,
    as_float,
)

Note = Callable[[str], None]
# result filters an audit's params may carry, as ResultFilter fields
_FILTERS = ("role", "status", "source", "years", "paper", "track")


def _best_module():
    from litaudit.analyses import best

    return best


def _newest(con, kind: str, cid: str, measure: str, accept=lambda a: True):
    from litaudit.analyses.audits import list_audits

    for a in reversed(list_audits(con, kind=kind, collection_id=cid, measure=measure)):
        if accept(a):
            return a
    return None


def _run(con, kind: str, cid: str, measure: str, note: Note, **kwargs):
    """The stored audit of ``kind`` for the current results, running it when missing.

    The analysis is first computed without saving (exact: milliseconds) to learn the
    fingerprint of the current input rows; a stored audit with that fingerprint and the
    default parameters is reused, else the analysis runs again and is stored.
    """
    from litaudit.analyses.audits import get_audit

    best = _best_module()
    fn = getattr(best, f"run_{kind}", None) if best else None
    if fn is None:
        found = _newest(con, kind, cid, measure)
        if found is not None:
            return found, None
        return None, (f"no stored '{kind}' audit and the extreme-value analyses "
                      "(litaudit.analyses.best) are not installed")
    try:
        probe = fn(con, cid, measure, save=False, **kwargs)
    except LitauditError as exc:
        return None, str(exc)
    filters = to_jsonable(probe.filters)
    value = kwargs.get("value")

    def same(a) -> bool:
        return (a.input_fingerprint == probe.fingerprint and a.params.get("filters") == filters
                and a.method == "exact" and a.params.get("n") is None
                and a.params.get("result_id") is None
                and (value is None or _close(a.params.get("value"), value)))

    found = _newest(con, kind, cid, measure, same)
    if found is not None:
        return found, None
    note(f"running the '{kind}' audit of {cid} / {measure}")
    return get_audit(con, fn(con, cid, measure, **kwargs).audit_id), None


def _find(d: Any, *keys: str) -> Any:
    """The first value under one of ``keys`` in ``d`` or in a dict nested one level."""
    if not isinstance(d, dict):
        return None
    for k in keys:
        if k in d:
            return d[k]
    for v in d.values():
        if isinstance(v, dict):
            for k in keys:
                if k in v:
                    return v[k]
    return None


def _core(result: dict) -> dict:
    """The BestAudit part of a stored 'best' result (it may be wrapped)."""
    if "reference" in result and "interval" in result:
        return result
    for v in result.values():
        if isinstance(v, dict) and "reference" in v and "interval" in v:
            return v
    return result


def section(con, ref, measure: str, used: dict, note: Note) -> LiteratureSection:
    """Tables 2-3, thresholds, candidates (with provenance) and history of one measure."""
    best, err = _run(con, "best", ref.id, measure, note)
    hist, herr = _run(con, "history", ref.id, measure, note)
    if hist is not None:
        used[hist.id] = hist
    history = _history(hist.result) if hist is not None else ()
    if best is None:
        return LiteratureSection(measure, None, err, *([None] * 18), (),
                                 hist.id if hist else None, history, herr)
    used[best.id] = best
    r = _core(best.result)
    rf, th, iv, mx = (r.get(k) or {} for k in ("reference", "thresholds", "interval", "mxvd"))
    lower = as_float(iv.get("lower"))
    return LiteratureSection(
        measure=measure, best_audit=best.id, error=None, n=rf.get("n_results"),
        n_topics=rf.get("n_topics"), mean=as_float(rf.get("mu")), sd=as_float(rf.get("sd")),
        se=as_float(rf.get("se")), maximum=as_float(rf.get("maximum")),
        expected_max=as_float(mx.get("expected_max")), alpha=as_float(th.get("alpha")),
        max_threshold=as_float(th.get("max_threshold")),
        min_threshold=as_float(th.get("min_threshold")), n_above=th.get("n_above"),
        n_below=th.get("n_below"),
        expected_above_under_null=as_float(th.get("expected_above_under_null")),
        p=as_float(iv.get("p")), value=as_float(iv.get("value")), mu0=as_float(iv.get("mu0")),
        lower=lower, coverage=as_float(iv.get("coverage")),
        candidates=_candidates(con, ref.id, measure, best, lower),
        history_audit=hist.id if hist else None, history=history, history_error=herr,
        population=_population_text(best.result), model_fit=_fit_text(best.result))


def _population_text(result: dict) -> str | None:
    """The stored audit's population, in the words the terminal uses."""
    from litaudit.analyses.population import population_from_json
    from litaudit.analyses.wording import population_sentence

    d = result.get("population")
    return None if not isinstance(d, dict) else population_sentence(population_from_json(d))


def _fit_text(result: dict) -> str | None:
    from litaudit.analyses.wording import fit_sentence
    from litaudit.stats.modelfit import ModelFit

    d = result.get("fit")
    return None if not isinstance(d, dict) else fit_sentence(ModelFit(**d))


def _candidates(con, cid: str, measure: str, best, lower: float | None
                ) -> tuple[Candidate, ...]:
    """The candidate best set with citations: stored provenance, else the store's rows."""
    stored = _find(best.result, "candidate_rows", "candidates")
    if isinstance(stored, list) and stored and isinstance(stored[0], dict):
        rows = stored
    else:
        if lower is None:
            return ()
        from litaudit.curation.results import ResultFilter, query_results

        filt = {k: best.params[k] for k in _FILTERS if best.params.get(k) is not None}
        rows = [r for r in query_results(con, ResultFilter(collection=cid, measure=measure,
                                                           include_retracted=False, **filt))
                if r["value"] >= lower]
        rows.sort(key=lambda r: (-r["value"], r["id"]))
    out = []
    rows = [r.get("result", r) for r in rows]   # analyses.best wraps rows as {rank, gap, result}
    for i, r in enumerate(rows, start=1):
        cite = r.get("citation") or r.get("track")
        out.append(Candidate(i, float(r["value"]), r.get("value_text"), r.get("system"),
                             r.get("source"), cite, r.get("year"), r.get("paper_doi")
                             or r.get("doi"), r.get("paper_url") or r.get("url")))
    return tuple(out)


def _history(result: Any) -> tuple[HistoryPoint, ...]:
    pts = result
    if isinstance(result, dict):
        inner = result.get("history")
        pts = inner.get("points") if isinstance(inner, dict) else result.get("points")
    if not isinstance(pts, list):
        return ()
    out = []
    for p in pts:
        if not isinstance(p, dict) or p.get("year") is None:
            continue
        out.append(HistoryPoint(
            int(p["year"]), int(p.get("N") or p.get("n") or 0),
            as_float(_first(p, "record", "best", "max_so_far")),
            as_float(_first(p, "expected_max", "expected")),
            as_float(_first(p, "threshold", "max_threshold", "alpha_threshold"))))
    return tuple(out)


def _first(d: dict, *keys: str):
    for k in keys:
        if d.get(k) is not None:
            return d[k]
    return None


# ----------------------------------------------------------------------------------- claim

def claim_section(con, ref, measure: str, value: float, lit: LiteratureSection, used: dict,
                  note: Note) -> ClaimSection:
    """The claim audit of ``value``: the stored 'claim' audit with this value, else run it.

    Its sentences and numbers are read from the stored result (kind 'claim', written by
    :func:`litaudit.analyses.best.run_claim`), so the report says what the terminal said.
    """
    a, err = _run(con, "claim", ref.id, measure, note, value=value)
    if a is None:
        return ClaimSection(measure, None, err, value,
                            answers=(f"{_v(value)} could not be audited: {err}",))
    used[a.id] = a
    r = a.result
    st = r["stats"]
    rc, ch, iv = st["record"], st["chance"], st["interval"]
    holder = r["record_holder"]
    cited = holder["citation"] if holder["source"] == "paper" and holder["citation"] else \
        f"TREC {holder['track']}"
    return ClaimSection(
        measure=measure, audit=a.id, error=None, value=value, answers=tuple(r["answers"]),
        population=_population_text(r),
        record_text=f"{holder['value_text']} {holder['system']} ({cited})",
        record_value=as_float(rc["record"]),
        record_lower=as_float(rc["record_interval"]["lower"]),
        claim_in_record_interval=rc["claim_in_record_interval"],
        record_in_claim_interval=rc["record_in_claim_interval"],
        n_at_or_above=rc["n_at_or_above"], n_draws=ch["n_draws"], alpha=as_float(ch["alpha"]),
        threshold=as_float(ch["threshold"]), passes=ch["passes"],
        expected_above_under_null=as_float(ch["expected_above_under_null"]),
        n_published_above=ch["n_published_above"], p_value=as_float(ch["p_value"]),
        p_below_floor=bool(ch["p_below_floor"]), p_floor=as_float(ch["p_floor"]),
        n_star=as_float(ch["n_star"]), n_star_capped=bool(ch["n_star_capped"]),
        n_star_cap=as_float(ch["n_star_cap"]), mu0=as_float(iv["mu0"]),
        lower=as_float(iv["lower"]), coverage=as_float(iv["coverage"]))


def _close(x, y: float) -> bool:
    return x is not None and math.isclose(float(x), y, rel_tol=0, abs_tol=1e-12)


def _v(x: float) -> str:
    """A claimed value as the user typed it (0.36, not 0.3600)."""
    return f"{x:.6f}".rstrip("0").rstrip(".") if x == x else "nan"
