"""Rendering stored and fresh audits: one renderer per audit kind, one "saved" footer, one
``--json`` shape.

A renderer takes the typed result of its kind (the registered result type of
:mod:`litaudit.analyses.audits`) and prints it on the terminal. ``audit show ID`` and the
command that made the audit both go through :func:`render_result`, so a stored audit
reads back as it was first printed. A kind without a renderer is shown field by field
(never as raw JSON). See docs/DEVELOPING.md, "Adding an audit kind".

Imports only types from the analyses (never runs one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from litaudit.analyses.audits import Audited, StoredAudit
from litaudit.codec import to_jsonable
from litaudit.render.console import out, print_json, table

Renderer = Callable[[Any], None]
RENDERERS: dict[str, Renderer] = {}


def renderer(kind: str) -> Callable[[Renderer], Renderer]:
    """Register the terminal renderer of an audit kind (a function decorator)."""
    def add(fn: Renderer) -> Renderer:
        RENDERERS[kind] = fn
        return fn

    return add


def line(text: str) -> None:
    """Print a line of text as is (no rich markup: '[audit #3]' stays)."""
    out.print(text, markup=False)


def saved_footer(audit_id: int | None, reused: bool = False) -> str | None:
    """The one footer of every audit command: where its result is stored."""
    if audit_id is None:
        return None
    if reused:
        return (f"audit #{audit_id}: stored earlier by an identical call "
                "(same parameters, input and version), not recomputed")
    return f"saved as audit #{audit_id}"


def envelope(audited: Audited) -> dict:
    """The ``--json`` form of an audit command's outcome."""
    return {"audit_id": audited.audit_id, "reused": audited.reused, "result": audited.result}


def render_result(kind: str, result: Any) -> None:
    """Print ``result`` with its kind's renderer (field by field when it has none)."""
    fn = RENDERERS.get(kind)
    if fn is None:
        _fields(to_jsonable(result), "")
    else:
        fn(result)


def emit(kind: str, audited: Audited, json_out: bool) -> None:
    """Print an audit command's outcome: ``--json`` envelope, or the table and footer."""
    if json_out:
        print_json(envelope(audited))
        return
    render_result(kind, audited.result)
    foot = saved_footer(audited.audit_id, audited.reused)
    if foot:
        line(foot)


def render_stored(a: StoredAudit) -> None:
    """`audit show`: the record's provenance line, then its kind's rendering."""
    line(f"Audit #{a.id} ({a.kind}), {a.created_at[:19]}, litaudit {a.software_version}, "
         f"method {a.method}" + (f", seed {a.seed}, {a.trials} trials" if a.trials else "")
         + f", input {a.input_fingerprint[:12]}")
    result = a.result
    if dataclasses.is_dataclass(result) and any(
            f.name == "audit_id" for f in dataclasses.fields(result)):
        result = dataclasses.replace(result, audit_id=a.id)  # type: ignore[type-var]
    render_result(a.kind, result)


def _fields(d: Any, indent: str) -> None:
    """A result without a renderer: one line per field, nested fields indented."""
    if isinstance(d, dict):
        for k, v in d.items():
            if isinstance(v, (dict, list)) and v:
                line(f"{indent}{k}:")
                _fields(v, indent + "  ")
            else:
                line(f"{indent}{k}: {'-' if v is None or v == [] else v}")
    elif isinstance(d, list):
        for i, v in enumerate(d):
            if isinstance(v, (dict, list)):
                line(f"{indent}[{i}]")
                _fields(v, indent + "  ")
            else:
                line(f"{indent}- {v}")
    else:
        line(f"{indent}{d}")


# ----------------------------------------------------------------------- audit matrix
@renderer("best-matrix")
def _matrix(rep) -> None:
    st = rep.stats
    line(f"Matrix audit: {rep.file} ({rep.measure}, {rep.n_runs} runs x {rep.n_topics} "
         f"topics{'' if rep.topics_complete else ', some cells missing'})")
    ref, th, iv = st.reference, st.thresholds, st.interval
    out.print(table("Table 2 and 3 rows", ["N", "n", "mean", "sd", "max", "mu0", "lower",
                                           "candidates", "max threshold", "above"],
                    [(ref.n_results, ref.n_topics, ref.mu, ref.sd, ref.maximum, iv.mu0,
                      iv.lower, st.n_candidates, th.max_threshold, th.n_above)]))
    out.print(table("Candidate best runs", ["run", "mean"], rep.candidates))


# ------------------------------------------------------------------------ reuse kinds
def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


def _f4(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


@renderer("reuse-rao")
def _rao(rep) -> None:
    rows = [(r.tag, r.participant, r.run_type or "-", r.rao, r.effectiveness, r.topics)
            for r in rep.runs]
    out.print(table(f"Run Average Overlap, {rep.collection_id}, depth {rep.depth} "
                    "(Voorhees et al. 2014)",
                    ["run", "participant", "type", "RAO", rep.measure, "topics"], rows))
    out.print(f"{rep.n_runs} runs, P = {rep.n_participants} participants: RAO range "
              f"[1/P = {rep.lower_bound:.4f}, 1]; mean {_f4(rep.mean_rao)}, "
              f"min {_f4(rep.min_rao)}, max {_f4(rep.max_rao)}")


@renderer("reuse-lou")
def _lou(rep) -> None:
    prow = [(p.participant, p.runs, p.unique_relevant, _pct(p.share_of_relevant),
             _pct(p.share_of_uniques)) for p in rep.participants]
    out.print(table(f"Unique relevant documents, {rep.collection_id}, depth {rep.depth}",
                    ["participant", "runs", "unique", "% of relevant", "% of uniques"], prow,
                    digits=2))
    rrow = [(r.tag, r.participant, r.run_type or "-", r.before, r.after, r.pct_change,
             r.considered) for r in rep.runs]
    m = "MAP" if rep.measure == "AP" else rep.measure
    out.print(table("Leave-out-uniques", ["run", "participant", "type", f"{m} before",
                                          f"{m} after", "% change", "in Table 2"], rrow))
    t2 = [
        ("% of relevant documents that are unique", _pct(rep.unique_fraction)),
        ("largest % of uniques from one participant", _pct(rep.largest_share)),
        ("mean |% difference|", rep.mean_abs_pct),
        ("max |% difference|", rep.max_abs_pct),
        (f"runs with |% difference| > {rep.noise_pct:g}%", f"{rep.n_above} of "
                                                           f"{rep.n_considered}"),
    ]
    out.print(table(f"Table 2 statistics (automatic runs with {m} >= {rep.min_map:g})",
                    ["statistic", "value"], t2, digits=2))
    out.print(f"{rep.n_unique} unique of {rep.n_relevant} relevant documents "
              f"({rep.n_retrieved_relevant} in some run's top {rep.depth}); largest: "
              f"{rep.largest_participant or '-'}")


@renderer("reuse-subcollections")
def _subcollections(rep) -> None:
    srow = [(s.name, s.documents, s.relevant, s.topics) for s in rep.subcollections]
    out.print(table(f"Sub-collections of {rep.collection_id} (split {rep.split})",
                    ["sub-collection", "documents", "relevant", "topics"], srow))
    names = [s.name for s in rep.subcollections]
    rrow = [(r.tag, r.full_map, *r.maps) for r in rep.runs]
    out.print(table("MAP per sub-collection", ["run", "all", *names], rrow))
    prow = [(f"{p.a}-{p.b}", p.tau,
             "-" if p.random_min is None else f"{p.random_min:.2f}-{p.random_max:.2f}",
             p.p_value) for p in rep.pairs]
    out.print(table(f"Kendall's tau per pair and randomization test ({rep.permutations} "
                    f"random splits, seed {rep.seed}; Sanderson et al. 2012, Tables 3-4)",
                    ["pair", "tau", "random tau range", "p"], prow, digits=3))
    sig = ", ".join(f"{n} at {lvl:g}" for lvl, n in rep.significant)
    excl = "; ".join(f"{t} ({why})" for t, why in rep.excluded) or "none"
    out.print(f"{len(rep.runs)} runs ranked; excluded: {excl}")
    out.print(f"pairs significant: {sig} (of {len(rep.pairs)}); mean tau "
              f"{'-' if rep.mean_tau is None else f'{rep.mean_tau:.3f}'}; smallest possible "
              f"p = 1/{rep.permutations + 1}")
