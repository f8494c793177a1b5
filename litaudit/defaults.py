"""Defaults in one place: every analysis, the CLI and the reports read them from here.

Each constant says where its value comes from (a paper and section, or our own choice and
why). Add a constant here instead of repeating a literal in a command's help or a report.
"""

from __future__ import annotations

# --- extreme-value audits (Carterette, SIGIR 2015) -------------------------------------
ALPHA = 0.05  # Sec. 3.1: the 5% point of the max/min-value distribution
P_INTERVAL = 0.2  # Sec. 3.2: intrinsic-effectiveness interval at p = 0.2 (60% band)
MIN_N = 5  # ours: fewer results make no population (the audits refuse them,
# `audit summary` skips them): their sample sd is too unstable
# (the paper's Table 2 populations: tens to hundreds)
MONTECARLO_TRIALS = 10_000  # ours: Monte Carlo draws when an exact method is not asked for
MONTECARLO_SEED = 2015  # ours: the seed of the extreme-value Monte Carlo

# --- claims (issue 11) -----------------------------------------------------------------
P_FLOOR = 1e-6  # ours: smaller p-values print as "< 1e-06"; below this the normal
# tail of the reference model decides the digits, not the data
# (docs/STATISTICS.md, "p-values and their floor")
BY_INSPECTION_RATIO = 3.0  # ours (issue 30): the null of N equally good systems is
# false by inspection when the N results spread (sample sd) at least 3 times the largest
# se one of them can have under the audit's noise. Under that null each result's
# variance is at most se_max**2, so (N - 1) s**2 / se_max**2 is stochastically below a
# chi-square on N - 1 df, and P(s >= 3 se_max) <= P(chi2_4 >= 36) = 2.9e-7 < P_FLOOR at
# the smallest population (N = MIN_N = 5; smaller at larger N): no p to print
# (docs/STATISTICS.md, "Against chance")
WINNERS_BIAS_TRIALS = 2_000  # ours: simulated replications of the winner's bias (its
# Monte Carlo se is printed beside it)
WINNERS_BIAS_SEED = 2030  # ours: their seed
RESAMPLED_NULL_TRIALS = 4_000  # ours: replications of the resampled equal-means null of a
# per-topic matrix (litaudit.stats.calibrated; its threshold's Monte Carlo se is printed)
RESAMPLED_NULL_SEED = 2018  # ours: their seed (the year of Urbano's first archive)
N_STAR_CAP = 1e12  # ours: N* beyond this prints as "> 1e+12" (capped): no collection
# sees that many experiments, and the tail model is meaningless there

# --- reusability (Carterette et al. 2010; Voorhees et al. 2014; Sanderson et al. 2012) -
REUSE_ALPHA = 0.05  # level of each one-sided test of the reuse verdict (90% intervals)
REUSE_MARGIN_PCT = 1.0  # Voorhees et al. 2014, Sec. 4: "differences that small [1%] are
# within the level of evaluation noise"; the reuse verdict's equivalence margin
AGREEMENT_K = 2  # Carterette et al. 2010, Sec. 4.3: 2 sites held out per topic
AGREEMENT_DEPTH = 100  # Sec. 4.3: the simulated pool of the sites not held out, depth 100
AGREEMENT_MIN_TOPICS = 5  # ours: a pair needs >= 5 baseline and 5 reuse topics (t-tests)
AGREEMENT_MIN_PAIRS = 10  # ours: an analysis needs >= 10 pairs per assignment on average
# (the paper's smallest worked example, APL, has 10 pairs)
AGREEMENT_ASSIGNMENTS = 100  # ours: random hold-out assignments the agreement test averages
AGREEMENT_SEED = 20100719  # ours: seed of those assignments (the SIGIR 2010 opening day)
AGREEMENT_FLIPS = 9999  # ours: random sign flips of the agreement test (p >= 1e-4)
AGREEMENT_FLIP_SEED = 3201  # ours: seed of the sign flips (its own procedure)
AGREEMENT_RANDOMIZATION_SEED = 1007  # ours: seed of `reuse agreement --randomize`
SUBCOLLECTION_SEED = 20120101  # ours: seed of the sub-collection random splits (its own;
# the hold-out assignments no longer borrow it)
REUSE_DEPTH = 100  # Voorhees et al. 2014, Table 1 "K": TREC-8 pooled each run's top
# 100 (`reuse rao/lou` depth; beside `reuse verdict` when the pool depth is unknown)
RAO_MEASURE = "Rprec"  # Voorhees et al. 2014, Sec. 3, Figure 1: RAO beside R-precision
LOU_MEASURE = "AP"  # Voorhees et al. 2014, Sec. 4, Figure 2: LOU compares MAP
LOU_MIN_MAP = 0.1  # Voorhees et al. 2014, Sec. 4, Table 2: automatic runs, MAP >= 0.1
LOU_NOISE_PCT = 1.0  # Voorhees et al. 2014, Sec. 4: a change within 1% is noise
REUSE_BOOTSTRAP = 1999  # ours: resamples of the verdict's studentized bootstrap over topics
# (issue 31; bench/bench_calibration.py, the margin families)
REUSE_BOOTSTRAP_SEED = 31  # ours: its seed (its own procedure)
REUSE_NEW_SITE_SITES = 32  # ours: sites a "reusable within the margin" about a new site
# needs (the smallest number at which bench_calibration's sites-as-a-sample family, robust03's
# skewed site effects, holds its 5%; litaudit/stats/reuse_sites.py)
SUBCOLLECTION_PERMUTATIONS = 1000  # Sanderson et al. 2012, Sec. 3.2: 1,000 random splits
LOU_DEPTHS = (10, 20, 50, 100, 1000)  # ours: pool depths tried when the depth is unknown
# (Carterette et al. 2010 Sec. 4.3 tried 10, 20, 50, 100; 1000 =
# the whole run)

# --- today's populations (issue 13) ----------------------------------------------------
# A population is reported as far from the audits' Normal model when its sample skewness
# or excess kurtosis exceeds these in size. Ours, and only shown (the audit still runs):
# real published populations are rarely Normal (Shapiro-Wilk rejects 155 of the 173 seeded
# ones at 0.01, so a test would flag everything); these flag marked departures (long tails
# of weak or broken systems, mixtures of generations: 51 of 173) and leave Carterette's
# TREC-7 example (skewness -0.3) unflagged.
NORMAL_FIT_MAX_SKEW = 1.5
NORMAL_FIT_MAX_KURTOSIS = 3.0
NORMAL_FIT_ALPHA = 0.05  # ours (issue 19): the sizes above warn only when Shapiro-Wilk also
# rejects normality at this level: the sizes alone warned on 14.7% of Normal samples of 5
# (9.4% at 6, 6.1% at 8); with the test at most 5% at every N >= 5 (bench/bench_shape.py)

# --- run archives (issue 15) -----------------------------------------------------------
IMPORT_GROUP_BYTES = 128 << 20  # ours: run files are imported in groups of this much text
# (uncompressed); a larger file in pieces of IMPORT_CHUNK_BYTES, two to a group (read on
# two threads). Chosen with bench/bench_runs_scale.py: its peak memory, docs/DEVELOPING.md
# "Measurements behind the defaults"
IMPORT_CHUNK_BYTES = 64 << 20  # ours: see IMPORT_GROUP_BYTES
DUCKDB_MEMORY_LIMIT = "256MB"  # ours: DuckDB's memory limit while an import or an
# evaluation works in several groups (its block cache
# otherwise grows with the archive: docs/DEVELOPING.md,
# "Measurements behind the defaults")
EVAL_GROUP_LINES = 4_000_000  # ours: stored runs are evaluated in groups of this many
# lines, a larger run by ranges of its topics (time and memory per group size:
# docs/DEVELOPING.md, "Measurements behind the defaults")

# --- input and output limits (issue 12) ------------------------------------------------
MAX_CSV_FIELD = 1 << 20  # ours: characters in one CSV field (csv's own limit, 131072, is
# too small for long notes; larger is not a results file)
MAX_PROBLEMS_SHOWN = 50  # ours: problems listed on the terminal (--json lists them all)
SEED_IDS_SHOWN = 20  # ours: ids `init` lists of the seeded rows a user changed that the
# seeds no longer hold as they are (--json lists them all)
RESULTS_PAGE = 40  # ours: rows `results list` shows in a terminal (--all, --limit: more)
MAX_TRIALS = 10_000_000  # ours: Monte Carlo trials; more would not fit in memory

# --- claims with evidence (issue 21) ---------------------------------------------------
PAIRED_LEVEL = 0.95  # the paired comparison's interval of the mean difference (95%)
RANDOMIZATION_PERMUTATIONS = 100_000  # ours: random sign assignments of the paired
# randomization test when there are more than 2^40 to enumerate (p resolution 1e-5, Monte
# Carlo se at most 0.0016)
RANDOMIZATION_SEED = 2007  # ours: its seed (the year of Smucker, Allan, Carterette)
PAIRED_WORST_TOPICS = 5  # ours: topics listed where the claim loses most
RANKS_RESAMPLES = 2000  # ours: bootstrap resamples of `audit ranks` (P(first) MC se <= 0.011)
RANKS_SEED = 0  # ours: their seed (honestboard's default: equal resamples for equal B)
WINNER_SEED = 2024  # ours: seed of the winner's hybrid quantile and bootstrap when no --seed
# (the year of Andrews, Kitagawa and McCloskey's "Inference on winners"); issue 34
