"""The reusability verdict of a collection, stored as an audit (kind 'reuse-verdict').

One of three outcomes, none a proof: "evidence against reuse" (which parts, with effect
sizes), "no evidence against reuse in these data", "not enough data".

What decides (docs/STATISTICS.md, reusability): the shift of held-out runs in a pooling
simulation (Carterette, Kanoulas, Pavlu, Fang, SIGIR 2010, Sections 3.1, 3.2.3, 4.3):
how much lower a site's runs score, relative to the other runs, on topics the site did
not contribute judgments to, in expectation over the design's random hold-out
assignments (:mod:`litaudit.stats.holdout_shift`; exact, no seed), tested over topics.
The pool depth of an archive is not recorded, so the test is made at every depth of
``defaults.LOU_DEPTHS`` (and the one asked for), Holm-corrected across them.

What is shown beside it, never as a gate: the paper's agreement-in-significance analysis
over random assignments (its chi-square p per assignment, and a sign-flip test that keeps
the pairs' dependence: :mod:`litaudit.analyses.agreement_test`); RAO and leave-out-uniques
over the same depths (Voorhees, Lin, Efron, SIGIR 2014); sub-collection tau (Sanderson,
Turpin, Zhang, Scholer, CIKM 2012); each with the papers' reference values.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit import defaults
from litaudit.analyses.agreement_test import (
    AgreementTest,
    HoldoutDesign,
    archive_agreement,
    holdout_design,
    matrix_agreement,
)
from litaudit.analyses.audits import Audited, register_kind
from litaudit.analyses.coded_archive import LOAD_STEPS, load_coded
from litaudit.analyses.reuse import (
    lou_of_archive,
    run_lou,
    run_rao,
)
from litaudit.analyses.subcollection_tau import (
    DEFAULT_SEED as SUBCOLLECTION_SEED,
)
from litaudit.analyses.subcollection_tau import (
    SUBCOLLECTION_PERMUTATIONS,
    run_subcollections,
)
from litaudit.errors import ParameterError
from litaudit.stats.agreement import adjust_pvalues
from litaudit.stats.holdout_shift import HoldoutShift, holdout_shift

KIND = "reuse-verdict"
EVIDENCE = "evidence against reuse"
NO_EVIDENCE = "no evidence against reuse in these data"
NOT_ENOUGH = "not enough data"
OUTCOMES = (EVIDENCE, NO_EVIDENCE, NOT_ENOUGH)
SOURCE_2010 = "Carterette, Kanoulas, Pavlu, Fang, SIGIR 2010"
SOURCE_2014 = "Voorhees, Lin, Efron, SIGIR 2014"
SOURCE_2012 = "Sanderson, Turpin, Zhang, Scholer, CIKM 2012"


@dataclass(frozen=True)
class Coverage:
    """What the verdict used, against the official run list when the store has it."""

    runs: int
    participants: int  # the sites of the hold-out design
    topics: int
    official_runs: int | None  # runs NIST lists for the collection (seeded results)
    official_participants: int | None
    subset: bool | None  # the archive holds fewer runs than the official list
    note: str


@dataclass(frozen=True)
class SiteShift:
    site: str
    runs: int
    shift_pct: float  # mean shift of its runs, % of the mean score


@dataclass(frozen=True)
class ShiftTest:
    """The deciding test at one pool depth (None: scores given, no pooling)."""

    depth: int | None
    result: HoldoutShift
    p_adjusted: float  # Holm across every test entering the verdict
    evidence: bool
    most_affected: tuple[SiteShift, ...]  # the sites whose runs lose most (up to 3)


@dataclass(frozen=True)
class LOUDepth:
    """Leave-out-uniques at one depth (Voorhees et al. 2014, Table 2 rows 1, 3-5)."""

    depth: int
    unique_fraction: float | None
    considered: int
    mean_abs_pct: float | None
    max_abs_pct: float | None
    above_noise: int


@dataclass(frozen=True)
class RAOSummary:
    depth: int
    mean_rao: float | None
    max_rao: float | None
    lower_bound: float


@dataclass(frozen=True)
class SubcollectionSummary:
    """Sanderson et al. 2012: descriptive (differences across sub-collections are common
    in collections taken as reusable)."""

    pairs: int
    significant: int  # p < alpha, uncorrected (as the paper counts)
    significant_holm: int  # after Holm within the family
    mean_tau: float | None
    permutations: int
    seed: int


@dataclass(frozen=True)
class Reference:
    """A number the papers give, beside ours: shown, never enforced."""

    quantity: str
    ours: str
    paper: str
    source: str


@register_kind(KIND)
@dataclass(frozen=True)
class Verdict:
    """Reusability verdict of a collection (from its run archive) or of a score matrix."""

    collection_id: str | None
    outcome: str  # one of OUTCOMES
    headline: str
    alpha: float
    correction: str
    measure: str
    coverage: Coverage
    design: HoldoutDesign | None
    tests: tuple[ShiftTest, ...]  # every test entering the verdict
    agreement: AgreementTest | None  # descriptive
    lou: tuple[LOUDepth, ...]
    rao: RAOSummary | None
    subcollections: SubcollectionSummary | None
    references: tuple[Reference, ...]
    audits: tuple[tuple[str, int], ...]  # (kind, audit id) of the components stored
    notes: tuple[str, ...]


# ------------------------------------------------------------------ decision


def decide(
    tests: Sequence[tuple[int | None, HoldoutShift, tuple[SiteShift, ...]]],
    alpha: float,
    correction: str,
) -> tuple[str, str, tuple[ShiftTest, ...]]:
    """Outcome, headline and the tests with their adjusted p-values."""
    if not tests:
        return NOT_ENOUGH, "not enough data: no hold-out test could be made", ()
    p = np.array([t[1].p_value for t in tests])
    adj = adjust_pvalues(p, correction)
    out = tuple(
        ShiftTest(d, r, float(a), bool(a < alpha), sites)
        for (d, r, sites), a in zip(tests, adj, strict=True)
    )
    hit = [t for t in out if t.evidence]
    if not hit:
        return (
            NO_EVIDENCE,
            (
                f"{NO_EVIDENCE}: held-out sites' runs do not score differently "
                f"on the topics they did not judge (smallest adjusted p "
                f"{min(adj):.3g}, alpha {alpha:g}, {correction})"
            ),
            out,
        )
    parts = "; ".join(
        (f"depth {t.depth}: " if t.depth is not None else "")
        + f"{t.result.shift_pct:+.2f}% (adjusted p {t.p_adjusted:.2g})"
        for t in hit
    )
    return (
        EVIDENCE,
        (
            f"{EVIDENCE}: held-out sites' runs score differently, relative to "
            f"the other runs, on the topics they did not judge: {parts}"
        ),
        out,
    )


def _site_shifts(r: HoldoutShift, site, names) -> tuple[SiteShift, ...]:
    per = np.array(r.per_run)
    rows = []
    for s, name in enumerate(names):
        sel = (np.asarray(site) == s) & np.isfinite(per)
        if sel.any():
            rows.append(
                SiteShift(name, int(sel.sum()), 100.0 * float(per[sel].mean()) / r.mean_score)
            )
    rows.sort(key=lambda x: x.shift_pct)
    return tuple(rows[:3])


# ------------------------------------------------------------------ coverage


def official_counts(con, cid: str) -> tuple[int | None, int | None]:
    """Distinct official runs and participants the store lists for the collection."""
    try:
        r = con.execute(
            "SELECT count(DISTINCT system), count(DISTINCT participant) FROM "
            "results WHERE collection_id = ? AND source = 'official' AND "
            "status <> 'retracted'",
            [cid],
        ).fetchone()
    except Exception:  # noqa: BLE001 - a store without results has no official list
        return None, None
    return (int(r[0]) or None, int(r[1]) or None) if r else (None, None)


def coverage(runs: int, participants: int, topics: int, official) -> Coverage:
    o_runs, o_parts = official
    if o_runs is None:
        return Coverage(
            runs,
            participants,
            topics,
            None,
            None,
            None,
            "the official run list of this collection is not in the database",
        )
    subset = runs < o_runs
    note = (
        f"the archive holds {runs} of the {o_runs} official runs ({participants} of "
        f"{o_parts} participants): the verdict is about these runs' pools, not the "
        "collection's"
        if subset
        else f"the archive holds all {o_runs} official runs"
    )
    return Coverage(runs, participants, topics, o_runs, o_parts, subset, note)


# ------------------------------------------------------------------ references


def references(
    tests,
    lou: tuple[LOUDepth, ...],
    sub: SubcollectionSummary | None,
    agreement: AgreementTest | None,
) -> tuple[Reference, ...]:
    out = []
    for t in tests:
        out.append(
            Reference(
                "held-out runs' score shift" + (f", depth {t.depth}" if t.depth else ""),
                f"{t.result.shift_pct:+.2f}%",
                "differences within 1% are evaluation noise (Section 4, on TREC-8)",
                SOURCE_2014,
            )
        )
    for x in lou:
        out.append(
            Reference(
                f"LOU, depth {x.depth}: runs above 1% / considered; max |% change|",
                f"{x.above_noise} / {x.considered}; "
                + ("-" if x.max_abs_pct is None else f"{x.max_abs_pct:.2f}%"),
                "TREC-8: 0 runs above 1% ('highly reusable'); MB2013: 15 of 57, max about 8%",
                SOURCE_2014,
            )
        )
    if sub is not None:
        share = f"{sub.significant} of {sub.pairs}" if sub.pairs else "-"
        out.append(
            Reference(
                "sub-collection pairs with p < 0.05",
                share,
                "55 of 68 pairs (81%) over TRECs 2-8, TREC-8 included",
                SOURCE_2012,
            )
        )
    if agreement is not None:
        for p in agreement.parts:
            if p.status == "tested" and p.paper_p is not None:
                out.append(
                    Reference(
                        f"{p.analysis}: chi-square p (pairs as independent)",
                        f"median {p.paper_p.median:.3f} over {agreement.assignments} assignments",
                        "Tables 3-5: 0.58, 0.36 (MQ 2008 within, participant), 0.74 (Robust "
                        "2004 within), 0 (MQ 2009 between)",
                        SOURCE_2010,
                    )
                )
    return tuple(out)


# ------------------------------------------------------------------ archive verdict


def verdict_steps(depths, assignments: int, permutations: int, subcollections: bool) -> int:
    """Progress units of :func:`run_verdict` (for a progress bar)."""
    return LOAD_STEPS + 2 * len(depths) + assignments + (permutations if subcollections else 0)


def _depths(depth: int) -> tuple[int, ...]:
    return tuple(sorted(set(defaults.LOU_DEPTHS) | {depth}))


def run_verdict(
    con,
    collection: str,
    *,
    depth: int = defaults.AGREEMENT_DEPTH,
    split: str = "prefix",
    permutations: int = SUBCOLLECTION_PERMUTATIONS,
    split_seed: int = SUBCOLLECTION_SEED,
    seed: int = defaults.AGREEMENT_SEED,
    assignments: int = defaults.AGREEMENT_ASSIGNMENTS,
    alpha: float = defaults.REUSE_ALPHA,
    correction: str = defaults.REUSE_CORRECTION,
    workers: int = 1,
    subcollections: bool = False,
    save: bool = True,
    progress: Callable[[int], None] | None = None,
    loaded=None,
) -> Audited[Verdict]:
    """The verdict of a stored run archive (see the module doc), stored as an audit; an
    identical call (same parameters, seeds, archive and version) hands back the stored one.
    ``loaded``: the (collection id, coded archive) of ``collection`` when the caller has
    it already (as :func:`load_coded` returns it)."""
    from litaudit.analyses.audits import run_or_reuse

    if not 0 < alpha < 1:
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    if loaded is None:
        loaded = load_coded(con, collection, progress)
    elif progress is not None:
        progress(LOAD_STEPS)  # loaded by the caller: its steps are done
    cid, coded = loaded
    depths = _depths(depth)
    params = {
        "depth": depth,
        "depths": list(depths),
        "split": split,
        "alpha": alpha,
        "correction": correction,
        "assignments": assignments,
        "split_seed": split_seed,
        "permutations": permutations,
        "flip_seed": defaults.AGREEMENT_FLIP_SEED,
        "subcollections": subcollections,
    }
    if not split.startswith("prefix") and Path(split).is_file():
        # the mapping file is input too (as in run_subcollections)
        params["split_sha256"] = hashlib.sha256(Path(split).read_bytes()).hexdigest()
    return run_or_reuse(
        con,
        KIND,
        collection_id=cid,
        measure=None,
        params=params,
        fingerprint=coded.fingerprint,
        method="expected hold-out shift, topic t-test, Holm",
        seed=seed,
        trials=assignments,
        save=save,
        compute=lambda: _archive_verdict(
            con,
            loaded,
            depth=depth,
            split=split,
            permutations=permutations,
            split_seed=split_seed,
            seed=seed,
            assignments=assignments,
            alpha=alpha,
            correction=correction,
            workers=workers,
            subcollections=subcollections,
            save=save,
            progress=progress,
        ),
    )


def _lou_depths(coded, lou_main, depth: int, depths, tick) -> list[LOUDepth]:
    """LOU at every depth: ``lou_main`` at ``depth``, the others computed (with the runs'
    full-qrels means of ``lou_main``)."""
    lou = []
    before = np.array([np.nan if r.before is None else r.before for r in lou_main.runs])
    for d in depths:
        rep = lou_main if d == depth else lou_of_archive(coded, depth=d, coded=coded, before=before)
        lou.append(
            LOUDepth(
                d,
                rep.unique_fraction,
                rep.n_considered,
                rep.mean_abs_pct,
                rep.max_abs_pct,
                rep.n_above,
            )
        )
        tick(1)
    return lou


def _pool_shift_tests(coded, depths, notes: list[str], tick, keep: int | None = None):
    """The hold-out design, the shift test at every depth (none under 3 participants,
    with a note) and the pool table at depth ``keep`` (None when not made)."""
    from litaudit.analyses.holdout_pools import design_counts, pool_scores

    site = coded.participant_of_run
    names = coded.participant_names
    m = len(names)
    design = None
    kept = None
    tests = []
    if m < 3:
        notes.append(
            f"{m} participant(s): the hold-out design needs at least 3 sites "
            f"(k = {defaults.AGREEMENT_K} held out of each topic)"
        )
        for _ in depths:
            tick(1)
    else:
        design = holdout_design(m, len(coded.topic_names), defaults.AGREEMENT_K)
        if design.note:
            notes.append(f"hold-out design {design.note}")
        for d in depths:
            ps = pool_scores(coded, site, k=defaults.AGREEMENT_K, depth=d)
            r = holdout_shift(ps.ap, design_counts(ps), site, ps.subsets)
            tests.append((d, r, _site_shifts(r, site, names)))
            kept = ps if d == keep else kept
            tick(1)
    return design, tests, kept


def _archive_verdict(
    con,
    loaded,
    *,
    depth: int,
    split: str,
    permutations: int,
    split_seed: int,
    seed: int,
    assignments: int,
    alpha: float,
    correction: str,
    workers: int,
    subcollections: bool,
    save: bool,
    progress: Callable[[int], None] | None,
) -> Verdict:
    tick = progress or (lambda n: None)
    cid, coded = loaded
    m = len(coded.participant_names)
    depths = _depths(depth)
    notes: list[str] = []
    audits: list[tuple[str, int]] = []
    cov = coverage(len(coded.tags), m, len(coded.topic_names), official_counts(con, cid))
    # descriptive: RAO and LOU at the asked depth (stored), LOU at every depth
    # (each reused when an identical call stored it)
    rao, rao_id = run_rao(con, cid, depth=depth, save=save, loaded=loaded)
    lou_main, lou_id = run_lou(con, cid, depth=depth, save=save, loaded=loaded)
    audits += [("reuse-rao", rao_id), ("reuse-lou", lou_id)]
    lou = _lou_depths(coded, lou_main, depth, depths, tick)
    if lou_main.n_unknown_type:
        notes.append(f"{lou_main.n_unknown_type} run(s) of unknown type are left out of LOU")
    # the deciding tests
    design, tests, pools = _pool_shift_tests(coded, depths, notes, tick, keep=depth)
    outcome, headline, shift_tests = decide(tests, alpha, correction)
    # descriptive: the paper's agreement analysis over random assignments
    agreement = None
    if m >= 3:
        agreement = archive_agreement(
            coded,
            depth=depth,
            assignments=assignments,
            seed=seed,
            alpha=alpha,
            progress=tick,
            pools=pools,
        )
    else:
        tick(assignments)
    sub = None
    if subcollections:
        sub, sub_id = _subcollections(
            con, cid, split, permutations, split_seed, workers, save, loaded, alpha, notes, tick
        )
        if sub_id is not None:
            audits.append(("reuse-subcollections", sub_id))
    else:
        notes.append("sub-collection tau (descriptive) not computed: add --subcollections")
    v = Verdict(
        collection_id=cid,
        outcome=outcome,
        headline=headline,
        alpha=alpha,
        correction=correction,
        measure="AP",
        coverage=cov,
        design=design,
        tests=shift_tests,
        agreement=agreement,
        lou=tuple(lou),
        rao=RAOSummary(rao.depth, rao.mean_rao, rao.max_rao, rao.lower_bound),
        subcollections=sub,
        references=references(shift_tests, tuple(lou), sub, agreement),
        audits=tuple((k, i) for k, i in audits if i is not None),
        notes=tuple(notes),
    )
    return v


def _subcollections(
    con, cid, split, permutations, split_seed, workers, save, loaded, alpha, notes, tick
):
    try:
        done = run_subcollections(
            con,
            cid,
            split=split,
            permutations=permutations,
            seed=split_seed,
            workers=workers,
            save=save,
            loaded=loaded,
            progress=tick,
        )
    except ParameterError as exc:
        notes.append(f"sub-collections: {exc}")
        tick(permutations)
        return None, None
    rep, sub_id = done.result, done.audit_id
    if done.reused:
        tick(permutations)
    p = np.array([x.p_value for x in rep.pairs if x.p_value is not None])
    adj = adjust_pvalues(p, "holm") if p.size else p
    return SubcollectionSummary(
        len(rep.pairs),
        int((p < alpha).sum()),
        int((adj < alpha).sum()),
        rep.mean_tau,
        rep.permutations,
        rep.seed,
    ), sub_id


# ------------------------------------------------------------------ score-matrix verdict


def _too_few_sites(m: int, cov, notes: list[str], alpha: float, correction: str) -> Verdict:
    """The score-matrix verdict with fewer than 3 sites: no hold-out design."""
    outcome, headline, tests = decide([], alpha, correction)
    return Verdict(
        None,
        outcome,
        headline,
        alpha,
        correction,
        "AP",
        cov,
        None,
        tests,
        None,
        (),
        None,
        None,
        (),
        (),
        tuple(notes + [f"{m} site(s): the hold-out design needs at least 3"]),
    )


def matrix_verdict(
    scores,
    sites,
    *,
    names=None,
    source: str = "scores",
    seed: int = defaults.AGREEMENT_SEED,
    assignments: int = defaults.AGREEMENT_ASSIGNMENTS,
    alpha: float = defaults.REUSE_ALPHA,
    correction: str = defaults.REUSE_CORRECTION,
    progress: Callable[[int], None] | None = None,
) -> Verdict:
    """The verdict on a runs x topics matrix of full-judgment scores (e.g. the per-topic
    files of shared/data) with run sites: every run is scored with the same judgments
    whichever sites are held out, so the shift is 0 by construction; the agreement
    analysis over random assignments is shown beside it."""
    x = np.asarray(scores, dtype=float)
    site = np.unique(np.asarray(sites), return_inverse=True)[1]
    labels = names or tuple(str(s) for s in sorted(set(sites)))
    m = int(site.max()) + 1
    n_r, n_t = x.shape
    cov = coverage(n_r, m, n_t, (None, None))
    notes = [
        "one score per run and topic: the scores do not depend on which sites are held "
        "out (reusable by construction), so the shift is 0 whatever the data"
    ]
    if m < 3:
        return _too_few_sites(m, cov, notes, alpha, correction)
    design = holdout_design(m, n_t, defaults.AGREEMENT_K)
    if design.note:
        notes.append(f"hold-out design {design.note}")
    from itertools import combinations

    from litaudit.stats.design import round_robin
    from litaudit.stats.holdout_shift import round_robin_counts

    subsets = ((),) + tuple(combinations(range(m), defaults.AGREEMENT_K))
    index = {s: n for n, s in enumerate(subsets)}
    order = [index[tuple(sorted(s))] for s in round_robin(tuple(range(m)), defaults.AGREEMENT_K)]
    table = np.broadcast_to(x.T[:, None, :], (n_t, len(subsets), n_r))
    r = holdout_shift(table, round_robin_counts(subsets, n_t, 0, order), site, subsets)
    outcome, headline, tests = decide([(None, r, _site_shifts(r, site, labels))], alpha, correction)
    agreement = matrix_agreement(
        x, site, assignments=assignments, seed=seed, alpha=alpha, source=source, progress=progress
    )
    return Verdict(
        None,
        outcome,
        headline,
        alpha,
        correction,
        "AP",
        cov,
        design,
        tests,
        agreement,
        (),
        None,
        None,
        references(tests, (), None, agreement),
        (),
        tuple(notes),
    )
