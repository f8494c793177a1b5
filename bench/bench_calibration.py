"""Calibration of the reusability decision (issue 19, item 13).

Families (litaudit/analyses/reuse/calibration.py says how each case is drawn); the
decision is the verdict's: the 90% interval of the held-out runs' relative shift against
a margin of 1% of the mean score, every site pair held out with equal weight.
- no bias, robust2004_ap.csv (110 runs x 249 topics, full judgments) with independent
  judging noise (sd 0.02 AP) on every (topic, hold-out, run) score: 14 random sites;
- no bias, adhoc7_ap.csv (TREC-7, 103 runs x 50 topics) with the same noise, 14 sites;
- no bias, robust03 archive (17 runs), full qrels on both sides plus the same noise:
  4 to 8 random sites, a random 50 of the 100 topics;
- bias, robust03 archive: the same draws, every topic scored with the depth-10 or depth-20
  pool of the sites not held out (Carterette et al. 2010, Section 4.3);
- deep pools, robust03-shaped: the same draws pooled to depth 1000 (4 to 8 sites, all 100
  topics).
Requirements: "lose more than 1%" in at most 5% of the no-bias cases and at least 80% of
the shallow-pool cases; "reusable within 1%" in at least 80% of the depth-1000 cases (each
within two Monte Carlo standard errors). Beside them: how often the interval lies wholly
below 0 on the no-bias families (a one-sided 5% test of no shift: about 5% when the
interval is calibrated, 0 when the noise cancels exactly) and the paper's chi-square with
the pairs taken as independent (one random assignment per case).

Then the chance families (issue 30, item 3; bench/chance_calibration.py): one per shared
per-topic matrix (20), the false alarms of the threshold of the max and of the F test
under equal-means nulls resampled from the matrix's residuals, before (Normal threshold
with the measured se; the F test on its df) and after (both by resampling the case's own
residuals, litaudit.stats.calibrated), and the studentized max-t test of equal means
(the bootstrap-t, each run's own se). Requirement: the resampled threshold's and the
max-t's rates <= 5% within their 95% intervals; a family above 5% is run again with 2.5
times the cases (the resampled and permutation F are shown, not required: runs differ in
noise).

Run: .venv/bin/python bench/bench_calibration.py [--quick] [--only reuse|chance|sites]
[--perms N]   (400 cases per family; --quick: 100; --perms adds the permutation F with N
permutations a case, slow on robust04). Then the families at the margin (issue 31,
:func:`margin`) and the order check: robust03's verdict with the participants renamed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from litaudit.analyses.reuse import calibration as cal
from litaudit.analyses.reuse import calibration_margin

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SEED = 11_2026  # the bench's own seed (case i of family f: [SEED + f, i])
NOISE = 0.02  # AP points: judging noise of the no-bias families


def load_robust03() -> tuple:
    from litaudit.analyses.reuse.coded_archive import load_coded
    from litaudit.curation.seed import load_seeds
    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store

    tmp = Path(tempfile.mkdtemp()) / "bench.duckdb"
    with open_store(tmp) as store:
        load_seeds(store)
        import_archive(
            store,
            "trec-robust-2003",
            [DATA / "trec" / "runs" / "robust03"],
            qrels_path=DATA / "trec" / "qrels" / "qrels.robust03.txt",
        )
        return tmp, load_coded(store.con, "trec-robust-2003")[1]


def _r(x: cal.Rate, n: int) -> str:
    if x.count == 0:
        return f"0.0% (95% upper bound {100 * x.upper95:.1f}%)"
    if x.count == n:
        return f"100.0% (95% lower bound {100 * x.lower95:.1f}%)"
    return f"{100 * x.rate:.1f}% +- {100 * x.se:.1f}"


def show(r: cal.FamilyResult, seconds: float) -> None:
    n = r.cases
    print(
        f"{r.family}: {n} cases [{seconds:.0f} s]\n"
        f"  reusable within 1%: {_r(r.reusable, n)}; lose more than 1%: {_r(r.lose, n)}; "
        f"inconclusive: {_r(r.inconclusive, n)}\n"
        f"  interval below 0: {_r(r.below_zero, n)}; paper's chi-square rejects: "
        f"{_r(r.paper, n)}; mean shift {r.mean_shift_pct:+.3f}%, mean 90% CI width "
        f"{r.mean_width_pct:.3f}%"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100 cases per family (default 400)")
    ap.add_argument("--only", choices=("reuse", "chance", "sites"), help="one group of families")
    ap.add_argument("--cases", type=int, help="cases per family (overrides --quick)")
    ap.add_argument("--resamples", type=int, default=1999, help="bootstrap resamples (sites)")
    ap.add_argument("--perms", type=int, default=0, help="permutation F: permutations a case")
    args = ap.parse_args()
    n = args.cases or (100 if args.quick else 400)
    if not DATA.is_dir():
        print(f"skipped: {DATA} is absent")
        return 0
    chance_ok = True
    if args.only == "sites":
        return 0 if sites_as_sample(load_robust03()[1], n, args.resamples) else 1
    if args.only != "reuse":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import chance_calibration

        chance_ok = chance_calibration.run(DATA, n, 400, args.perms, SEED)
        print("chance: calibrated tests within 5%:", "yes" if chance_ok else "NO")
        if args.only == "chance":
            return 0 if chance_ok else 1
    from litaudit.analyses.agreement.input import read_score_matrix

    _, _, r04 = read_score_matrix(DATA / "pertopic" / "robust2004_ap.csv")
    _, _, a7 = read_score_matrix(DATA / "pertopic" / "adhoc7_ap.csv")
    coded_path, coded = load_robust03()
    print(f"margin 1%, 90% intervals (alpha 0.05 each side), {n} cases per family")

    def sites(rng) -> int:
        return int(rng.integers(4, 9))

    families = [
        (
            "no bias",
            f"robust04 per-topic + noise (sd {NOISE}), 14 random sites",
            lambda rng: cal.matrix_case(r04, rng, sites=14, noise=NOISE),
        ),
        (
            "no bias",
            f"TREC-7 per-topic + noise (sd {NOISE}), 14 random sites",
            lambda rng: cal.matrix_case(a7, rng, sites=14, noise=NOISE),
        ),
        (
            "no bias",
            f"robust03 full qrels + noise (sd {NOISE}), 4-8 random sites, 50 random topics",
            lambda rng: cal.archive_case(
                coded, rng, depth=None, sites=sites(rng), topics=50, noise=NOISE
            ),
        ),
        (
            "shallow",
            "robust03 depth-10/20 pools without the held-out sites, 4-8 sites, 50 topics",
            lambda rng: cal.archive_case(
                coded, rng, depth=int(rng.choice([10, 20])), sites=sites(rng), topics=50
            ),
        ),
        (
            "deep",
            "robust03-shaped, depth-1000 pools, 4-8 random sites, 100 topics",
            lambda rng: cal.archive_case(coded, rng, depth=1000, sites=sites(rng)),
        ),
    ]
    ok = True
    for f, (kind, name, make) in enumerate(families):
        t = time.perf_counter()
        r = cal.run_family(name, n, make, seed=SEED + f)
        show(r, time.perf_counter() - t)
        if kind == "no bias" and r.lose.rate - 2 * r.lose.se > 0.05:
            ok = False
        if kind == "shallow" and r.lose.rate + 2 * r.lose.se < 0.80:
            ok = False
        if kind == "deep" and r.reusable.rate + 2 * r.reusable.se < 0.80:
            ok = False
    print("requirements met within Monte Carlo error:", "yes" if ok else "NO")
    ok = margin(coded, n) and ok
    return 0 if order_free(coded_path) and ok and chance_ok else 1


# ------------------------------------------------------------------ at the margin (issue 31)
MARGIN_FAMILIES = (  # (pool depth whose real loss pattern is scaled, true shift %)
    (100, -1.0),
    (20, -1.0),
    (50, -2.0),
    (100, -0.25),
)


def _ci(x: cal.Rate) -> str:
    """A rate with its exact one-sided 95% Monte Carlo bounds."""
    return f"{100 * x.rate:.1f}% [{100 * x.lower95:.1f}, {100 * x.upper95:.1f}]"


def margin(coded, n: int) -> bool:
    """Families whose true shift is known and lies at or near the margin
    (litaudit/analyses/reuse/calibration.py, "at the margin"): robust03's real loss
    pattern at a pool depth, scaled so that the shift over its 100 topics is exactly the
    target, the topics resampled with replacement. Errors: at -1%, "reusable" and "lose"
    (the truth is on the margin: both are wrong); at -2%, "reusable"; at -0.25%, "lose".
    Requirement for the verdict's interval: every error at most 5% and coverage of the
    90% interval at least 85% (each within two Monte Carlo standard errors). The mean
    score taken as known (the interval before issue 31) and the delta method are shown
    beside it."""
    from litaudit.stats.holdout_shift import BOOT_T

    ok = True
    print(f"at the margin: robust03's loss pattern scaled, 100 topics resampled, {n} cases")
    for f, (depth, target) in enumerate(MARGIN_FAMILIES):
        t = time.perf_counter()
        loss = calibration_margin.scaled_loss(coded, depth=depth, target_pct=target)
        name = f"depth-{depth} loss x {loss.scale:.3f}: true shift {target:+.2f}%"
        fams = calibration_margin.margin_family(
            name,
            n,
            target,
            lambda rng, x=loss: calibration_margin.scaled_case(x, rng),
            seed=SEED + 100 + f,
        )
        print(f"{name} [{time.perf_counter() - t:.0f} s]")
        for method, r in fams.items():
            errors = [r.reusable, r.lose] if target >= -1.0 else [r.reusable]
            errors = [r.lose] if target > -1.0 else errors
            print(
                f"  {method}: reusable {_ci(r.reusable)}, lose {_ci(r.lose)}, "
                f"inconclusive {_ci(r.inconclusive)}; covers the truth {_ci(r.covered)}, "
                f"mean width {r.mean_width_pct:.3f}%"
            )
            if method == BOOT_T:
                ok = ok and all(e.rate - 2 * e.se <= 0.05 for e in errors)
                ok = ok and r.covered.rate + 2 * r.covered.se >= 0.85
    print("margin requirements met within Monte Carlo error:", "yes" if ok else "NO")
    return sites_as_sample(coded, n) and ok


SITE_COUNTS = (4, 8, 16, 32, 48)  # sites drawn per case in the sites-as-a-sample families


def sites_as_sample(coded, n: int, resamples: int = 1999) -> bool:
    """Families whose truth is about a new site (calibration.py, "sites as a sample"):
    robust03's 16 sites' per-topic shifts at depth 100, moved so that the mean over sites
    and topics is exactly -1% (a new site loses exactly 1%), 4 to 48 sites and 100 topics
    drawn with replacement. Both "reusable" and "lose" are errors. Requirement for the
    verdict's decision (litaudit/stats/reuse_sites.py): each error at most 5% within two
    Monte Carlo standard errors, at every number of sites. Beside it: the same interval
    without the floor on the sites a "reusable" needs, the two-way t interval (the
    verdict's before) and the topics-only interval; the coverage of each."""
    print(
        f"sites as a sample: robust03 depth 100, a new site loses exactly 1%, {n} cases, "
        f"pigeonhole bootstrap {resamples} resamples"
    )
    pop = calibration_margin.site_sample(coded, depth=100, target_pct=-1.0)
    ok = True
    for f, m in enumerate(SITE_COUNTS):
        t = time.perf_counter()
        fams = calibration_margin.margin_family(
            f"{m} sites drawn",
            n,
            -1.0,
            lambda rng, k=m: calibration_margin.site_case(pop, rng, sites=k, resamples=resamples),
            seed=SEED + 200 + f,
        )
        print(f"  {m} sites drawn [{time.perf_counter() - t:.0f} s]")
        for method, r in fams.items():
            print(
                f"    {method}: reusable {_ci(r.reusable)}, lose {_ci(r.lose)}; "
                f"covers the truth {_ci(r.covered)}"
            )
            if method.startswith("the verdict's"):
                ok = ok and all(e.rate - 2 * e.se <= 0.05 for e in (r.reusable, r.lose))
    print("sites-as-a-sample requirements met within Monte Carlo error:", "yes" if ok else "NO")
    return ok


def order_free(db_path) -> bool:
    """robust03's verdict at depth 100 with the participants as named and renamed."""
    import dataclasses

    import numpy as np

    from litaudit.analyses.reuse import verdict as V
    from litaudit.analyses.reuse import verdict_settings
    from litaudit.analyses.reuse.coded_archive import load_coded
    from litaudit.store.db import open_store

    t = time.perf_counter()
    with open_store(db_path) as store:
        cid, coded = load_coded(store.con, "trec-robust-2003")
        names = coded.participant_names
        perm = np.arange(len(names))[::-1]  # reversed order: new code of each old one
        renamed = [""] * len(names)
        for new in perm:
            renamed[new] = f"site{new:02d}"
        other = dataclasses.replace(
            coded,
            participant_names=tuple(renamed),
            participant_of_run=perm[coded.participant_of_run],
        )
        out = []
        for c in (coded, other):
            asked = verdict_settings.VerdictSettings(depth=100, assignments=1)
            v = V.run_verdict(store.con, cid, asked, save=False, loaded=(cid, c)).result
            assert v.decision is not None
            out.append(v.decision.result.ci)
    same = out[0] == out[1]
    print(
        f"order: robust03 at depth 100, participants as named {out[0]}, renamed in reverse "
        f"order {out[1]}: {'identical' if same else 'DIFFERENT'} "
        f"[{time.perf_counter() - t:.0f} s]"
    )
    return same


if __name__ == "__main__":
    sys.exit(main())
