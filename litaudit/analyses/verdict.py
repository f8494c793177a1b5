"""The reusability verdict of a collection: every check of the run-archive analyses with
its number, threshold and pass/fail, stored as an audit (kind 'reuse-verdict').

Gathers RAO, leave-out-uniques (Voorhees, Lin, Efron, SIGIR 2014), sub-collection tau
(Sanderson, Turpin, Zhang, Scholer, CIKM 2012), from ``litaudit.analyses.reuse`` and
``litaudit.analyses.subcollection_tau``, and,
where the archive allows it, agreement in significance (Carterette et al., SIGIR 2010)
from ``litaudit.analyses.agreement``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from litaudit.analyses.coded_archive import load_coded
from litaudit.analyses.reuse import (
    DEFAULT_DEPTH,
    LOU_MAX_PCT,
    LOU_MEASURE,
    LOU_MIN_MAP,
    RAO_MEASURE,
    SOURCE_VOORHEES,
    LOUReport,
    RAOReport,
    run_lou,
    run_rao,
    save_reuse_audit,
)
from litaudit.analyses.subcollection_tau import (
    DEFAULT_SEED,
    SOURCE_SANDERSON,
    SUBCOLLECTION_ALPHA,
    SUBCOLLECTION_BOTTOM,
    SUBCOLLECTION_PERMUTATIONS,
    SubcollectionReport,
    run_subcollections,
    subcollection_params,
)
from litaudit.errors import LitauditError, ParameterError


@dataclass(frozen=True)
class Check:
    """One number of the verdict with its threshold; passed is None when only reported."""

    component: str              # rao | lou | subcollections | agreement
    name: str
    value: float | None
    threshold: float | None
    rule: str
    passed: bool | None
    source: str
    note: str


@dataclass(frozen=True)
class Verdict:
    """Reusability verdict of a collection from its run archive."""

    collection_id: str
    passed: bool | None         # every applicable check passes (None: none applicable)
    n_checks: int               # checks with a pass/fail
    n_failed: int
    checks: tuple[Check, ...]
    audits: tuple[tuple[str, int], ...]   # (kind, audit id) of the components used
    skipped: tuple[str, ...]    # components not available, with the reason


def _checks_rao(rep: RAOReport) -> list[Check]:
    return [Check("rao", "mean RAO", rep.mean_rao, rep.lower_bound,
                  f"reported; range [1/P = {rep.lower_bound:.4f}, 1]", None, SOURCE_VOORHEES,
                  f"depth {rep.depth}, {rep.n_runs} runs, {rep.n_participants} participants; "
                  "no threshold in the paper (Section 3: read with effectiveness)"),
            Check("rao", "max RAO", rep.max_rao, None, "reported", None, SOURCE_VOORHEES,
                  "a distinctive run exists when well above 1/P")]


def _checks_lou(rep: LOUReport) -> list[Check]:
    out = [
        Check("lou", "unique relevant / all relevant", rep.unique_fraction, None, "reported",
              None, SOURCE_VOORHEES, f"Table 2 row 1; {rep.n_unique} of {rep.n_relevant}; "
              "within this archive's runs only"),
        Check("lou", "largest participant share of uniques", rep.largest_share, None,
              "reported", None, SOURCE_VOORHEES,
              f"Table 2 row 2; {rep.largest_participant or '-'}"),
        Check("lou", "mean |% change| of MAP", rep.mean_abs_pct, None, "reported", None,
              SOURCE_VOORHEES, f"Table 2 row 3; {rep.n_considered} automatic runs with "
              f"MAP >= {rep.min_map:g}"),
    ]
    if rep.n_considered == 0:
        out.append(Check("lou", "max |% change| of MAP", None, rep.noise_pct,
                         f"max <= {rep.noise_pct:g}%", None, SOURCE_VOORHEES,
                         "no automatic run with MAP >= "
                         f"{rep.min_map:g} ({rep.n_unknown_type} runs of unknown type)"))
    else:
        out.append(Check("lou", "max |% change| of MAP", rep.max_abs_pct, rep.noise_pct,
                         f"max <= {rep.noise_pct:g}%", rep.max_abs_pct <= rep.noise_pct,
                         SOURCE_VOORHEES, f"Table 2 rows 4-5; {rep.n_above} of "
                         f"{rep.n_considered} runs above {rep.noise_pct:g}%"))
    return out


def _checks_sub(rep: SubcollectionReport, alpha: float) -> list[Check]:
    out = []
    for p in rep.pairs:
        out.append(Check(
            "subcollections", f"p of tau {p.a}-{p.b}", p.p_value, alpha, f"p >= {alpha:g}",
            None if p.p_value is None else p.p_value >= alpha, SOURCE_SANDERSON,
            "no tau: a side without relevant documents" if p.p_value is None else
            f"tau {p.tau:.3f}; random {p.random_min:.2f}..{p.random_max:.2f} "
            f"(R = {p.random_valid}, seed {rep.seed})"))
    return out


def _agreement_checks(con, cid: str, *, depth: int, seed: int | None,
                      save_audit: bool) -> tuple[list[Check], int | None, str | None]:
    """Checks of the significance-agreement component, or why there are none."""
    from litaudit.analyses.agreement import agreement_component

    try:
        comp = agreement_component(con, cid, depth=depth, seed=seed, save_audit=save_audit)
    except LitauditError as exc:     # e.g. too few sites to hold any out
        return [], None, f"agreement: no data ({exc})"
    if comp is None:
        return [], None, "agreement: no data"
    checks = [Check("agreement", ch.name, ch.value, ch.threshold, ch.rule, ch.passed,
                    "Carterette, Kanoulas, Pavlu, Fang, SIGIR 2010", ch.note)
              for ch in comp.checks]
    return checks, comp.audit_id, None


def _stored_or_run(con, kind: str, cid: str, measure: str, params: dict, fp: str, run):
    """Reuse an audit with exactly these inputs, else compute (and store) it."""
    from litaudit.analyses.audits import find_audit
    from litaudit.codec import to_jsonable

    found = find_audit(con, kind=kind, collection_id=cid, measure=measure,
                       params=to_jsonable(params), input_fingerprint=fp)
    if found is not None:
        return found.result, found.id
    rep, aid = run()
    return to_jsonable(rep), aid


def run_verdict(con, collection: str, *, depth: int = DEFAULT_DEPTH, split: str = "prefix",
                permutations: int = SUBCOLLECTION_PERMUTATIONS, seed: int = DEFAULT_SEED,
                alpha: float = SUBCOLLECTION_ALPHA, workers: int = 1, agreement: bool = True,
                save: bool = True, progress: Callable[[int], None] | None = None
                ) -> tuple[Verdict, int | None]:
    """Gather RAO, LOU, sub-collections (stored audits with the same inputs are reused) and,
    when available, the significance-agreement component into one verdict."""
    from litaudit.analyses.audits import find_audit

    loaded = load_coded(con, collection)
    cid, coded = loaded
    fp = coded.fingerprint
    rao_d, rao_id = _stored_or_run(
        con, "reuse-rao", cid, RAO_MEASURE, {"depth": depth}, fp,
        lambda: run_rao(con, cid, depth=depth, save=save, loaded=loaded))
    lou_d, lou_id = _stored_or_run(
        con, "reuse-lou", cid, LOU_MEASURE,
        {"depth": depth, "min_map": LOU_MIN_MAP, "noise_pct": LOU_MAX_PCT}, fp,
        lambda: run_lou(con, cid, depth=depth, save=save, loaded=loaded))
    checks = _checks_rao(_from_dict(RAOReport, rao_d)) + _checks_lou(_from_dict(LOUReport, lou_d))
    audits = [("reuse-rao", rao_id), ("reuse-lou", lou_id)]
    skipped = []
    split_rule = split if split.startswith("prefix") else str(Path(split))
    found = find_audit(con, kind="reuse-subcollections", collection_id=cid, measure="AP",
                       params=subcollection_params(split_rule, True, SUBCOLLECTION_BOTTOM),
                       input_fingerprint=fp)
    if found is not None and found.seed == seed and found.trials == permutations:
        sub = _from_dict(SubcollectionReport, found.result)
        sub_id = found.id
    else:
        try:
            sub, sub_id = run_subcollections(con, cid, split=split, permutations=permutations,
                                             seed=seed, workers=workers, save=save,
                                             loaded=loaded, progress=progress)
        except ParameterError as exc:
            sub, sub_id = None, None
            skipped.append(f"subcollections: {exc}")
    if sub is not None:
        checks += _checks_sub(sub, alpha)
        audits.append(("reuse-subcollections", sub_id))
    if agreement:
        ag_checks, ag_id, why = _agreement_checks(con, cid, depth=depth, seed=seed,
                                                  save_audit=save)
        checks += ag_checks
        if why:
            skipped.append(why)
        elif ag_id is not None:
            audits.append(("reuse-agreement", ag_id))
    decided = [ch.passed for ch in checks if ch.passed is not None]
    verdict = Verdict(
        collection_id=cid, passed=all(decided) if decided else None, n_checks=len(decided),
        n_failed=sum(not p for p in decided), checks=tuple(checks),
        audits=tuple((k, i) for k, i in audits if i is not None), skipped=tuple(skipped))
    aid = save_reuse_audit(con, "reuse-verdict", cid, None,
                {"depth": depth, "split": split_rule, "alpha": alpha, "agreement": agreement},
                "gathered", fp, verdict, seed=seed, trials=permutations) if save else None
    return verdict, aid


def _from_dict(cls, d):
    """Rebuild a report dataclass (flat fields and tuples of dataclasses) from stored JSON."""
    import dataclasses
    import typing

    if isinstance(d, cls):
        return d
    hints = typing.get_type_hints(cls)
    kw = {}
    for f in dataclasses.fields(cls):
        v = d.get(f.name)
        h = hints[f.name]
        args = typing.get_args(h)
        inner = args[0] if args else None
        if (typing.get_origin(h) is tuple and dataclasses.is_dataclass(inner)
                and isinstance(v, list)):
            v = tuple(_from_dict(inner, x) for x in v)
        elif isinstance(v, list):
            v = tuple(tuple(x) if isinstance(x, list) else x for x in v)
        kw[f.name] = v
    return cls(**kw)
