"""Literature sections of a report: the stored 'best', 'claim' and 'history' audits.

Carterette, "The Best Published Result is Random", SIGIR 2015: Table 2 (N, mean, sd,
max), Table 3 (mu0, the 1-2p interval, the candidate best set), the beyond-chance
threshold, the record over the years against the expected max, and a claimed value
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
    filters = to_jsonable(best.filter_params(probe.filters))
    value = kwargs.get("value")

    def same(a) -> bool:
        return (a.input_fingerprint == probe.fingerprint and a.params.get("filters") == filters
                and a.method == "exact" and a.params.get("n") is None
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
        expected_false_positives=as_float(th.get("expected_false_positives")),
        p=as_float(iv.get("p")), value=as_float(iv.get("value")), mu0=as_float(iv.get("mu0")),
        lower=lower, coverage=as_float(iv.get("coverage")),
        candidates=_candidates(con, ref.id, measure, best, lower),
        history_audit=hist.id if hist else None, history=history, history_error=herr,
        population=(best.result.get("population") or {}).get("text"),
        population_warning=(best.result.get("population") or {}).get("warning"))


def _candidates(con, cid: str, measure: str, best, lower: float | None
                ) -> tuple[Candidate, ...]:
    """The candidate best set with citations: stored provenance, else the store's rows."""
    stored = _find(best.result, "candidate_rows", "candidates")
    if isinstance(stored, list) and stored and isinstance(stored[0], dict):
        rows = stored
    else:
        if lower is None:
            return ()
        from litaudit.curation.filters import AUDIT, Filters
        from litaudit.curation.results import query_results

        fd = best.params.get("filters") or {}
        kw: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in fd.items()
                              if k in Filters.__dataclass_fields__}
        filt = Filters(**kw) if kw else AUDIT
        rows = [r for r in query_results(con, filt, collection=cid, measure=measure)
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
            as_float(_first(p, "threshold", "max_threshold", "alpha_threshold")),
            p.get("when"), bool(p.get("new_record"))))
    return tuple(out)


def _first(d: dict, *keys: str):
    for k in keys:
        if d.get(k) is not None:
            return d[k]
    return None


# ----------------------------------------------------------------------------------- claim

def claim_section(con, ref, measure: str, value: float, lit: LiteratureSection, used: dict,
                  note: Note) -> ClaimSection:
    """The claim check of ``value``: stored 'claim' audit with this value, else run it."""
    a, err = _run(con, "claim", ref.id, measure, note, value=value)
    if a is None:
        return ClaimSection(measure, None, err, value, *([None] * 8),
                            f"{_v(value)} could not be checked: {err}")
    used[a.id] = a
    r = a.result
    iv = _find(r, "interval") or {}
    n_draws = _find(r, "n_draws")
    pv = as_float(_find(r, "p_value"))
    alpha = as_float(_find(r, "alpha"))
    beyond = _find(r, "beyond_chance")
    lower = as_float(iv.get("lower")) if isinstance(iv, dict) else None
    cur_lower = as_float(r.get("current_lower", lit.lower))
    in_set = r.get("in_candidate_set")
    if in_set is None and cur_lower is not None:
        in_set = value >= cur_lower
    ns = _find(r, "n_star")
    return ClaimSection(measure, a.id, None, value, n_draws, alpha, pv, beyond,
                        as_float(iv.get("mu0")) if isinstance(iv, dict) else None, lower,
                        ns, in_set, claim_sentence(value, n_draws, pv, alpha, beyond, ns,
                                                   in_set, cur_lower))


def _close(x, y: float) -> bool:
    return x is not None and math.isclose(float(x), y, rel_tol=0, abs_tol=1e-12)


def _v(x: float) -> str:
    """A claimed value as the user typed it (0.36, not 0.3600)."""
    return f"{x:.6f}".rstrip("0").rstrip(".") if x == x else "nan"


def fmt_p(p: float) -> str:
    """A p-value with 4 decimals, or in scientific notation below 0.0001."""
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.2e}"


def fmt_count(n: int) -> str:
    """A count in full up to a billion, else in scientific notation."""
    return str(n) if n < 10**9 else f"about {float(n):.2e}"


def claim_sentence(value: float, n_draws, p_value, alpha, beyond, n_star, in_set,
                   lower) -> str:
    """The claim check in plain words (the reviewer's question, answered)."""
    if n_draws is None or p_value is None:
        return f"{_v(value)} could not be checked against the published results."
    p = f"p = {fmt_p(p_value)}"
    if beyond:
        s = (f"{_v(value)} is beyond what the best of {n_draws} equally good systems reaches "
             f"by chance ({p} < {alpha:g}).")
        if n_star is not None:
            s += (f" It would stop being beyond chance only if {fmt_count(n_star)} equally "
                  "good systems had been tried.")
    else:
        s = (f"{_v(value)} is within what the best of {n_draws} equally good systems reaches "
             f"by chance ({p} >= {alpha:g}).")
    if in_set is not None and lower is not None:
        s += (f" It is {'in' if in_set else 'below'} the candidate best set of the published "
              f"results (lower bound {lower:.4f}).")
    return s
