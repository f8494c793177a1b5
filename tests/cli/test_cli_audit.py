"""`litaudit audit ...` through the CLI (Carterette, SIGIR 2015 audits)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.conftest import copy_db
from tests.typed import some, without_verdict

_COPIED_FROM: dict[str, str] = {}  # a copy (its path) -> the session file it copies


def _copy2(src, dst) -> None:
    """``shutil.copy2``: the bytes, as a sparse copy (conftest.copy_db: 44% of the seeded
    file is pages of zeros), and the source's modification time (see _n_audits)."""
    copy_db(src, dst)
    shutil.copystat(src, dst)


@pytest.fixture
def db(seeded_db_file, tmp_path):
    """A private copy of the seeded database (audit commands write), with its
    modification time (see _n_audits)."""
    path = tmp_path / "audit.duckdb"
    _copy2(seeded_db_file, path)
    _COPIED_FROM[str(path)] = str(seeded_db_file)
    yield path
    del _COPIED_FROM[str(path)]


@pytest.fixture
def small_db(small_seeded_db_file, tmp_path):
    """A private copy of the small seeded database (TREC-7, robust04 and MS MARCO
    dev/small whole: tests/conftest.py), for a check that holds on any population."""
    path = tmp_path / "small.duckdb"
    _copy2(small_seeded_db_file, path)
    _COPIED_FROM[str(path)] = str(small_seeded_db_file)
    yield path
    del _COPIED_FROM[str(path)]


@pytest.fixture(scope="module")
def _shared_copy(seeded_db_file, tmp_path_factory):
    """One copy of the seeded database for the module's refused commands (not a 20 MB
    copy per case). Each case checks it wrote nothing (:func:`_unchanged`)."""
    path = tmp_path_factory.mktemp("cli_audit_refused") / "audit.duckdb"
    shutil.copy2(seeded_db_file, path)
    _COPIED_FROM[str(path)] = str(seeded_db_file)
    yield path
    del _COPIED_FROM[str(path)]


@pytest.fixture
def refused_db(_shared_copy):
    """The seeded database for a command that must refuse and write nothing: the
    module's shared copy (:func:`_shared_copy`)."""
    return _shared_copy


def _unchanged(path) -> bool:
    """Nothing was written to ``path`` since it was copied: a commit while a connection
    is held writes the write-ahead log (``path.wal``), a checkpoint the file itself; so
    no log, and the size and modification time of the file it copies (``copy2``)."""
    now, then = os.stat(path), os.stat(_COPIED_FROM[str(path)])
    return not os.path.exists(f"{path}.wal") and (now.st_size, now.st_mtime_ns) == (
        then.st_size,
        then.st_mtime_ns,
    )


def _n_audits(path) -> int:
    """The audits stored in ``path``. A copy no command wrote (its size and modification
    time those of the file it copies: any write moves them) holds what that file holds:
    counted there, on the DuckDB instance the run keeps it attached to (tests/conftest.py),
    and a written copy is attached to that instance too: not a new DuckDB instance per
    count (40 ms of CPU each, 21 counts)."""
    from litaudit.store.db import open_store

    source = _COPIED_FROM.get(str(path))
    if source is not None and not os.path.exists(f"{path}.wal"):
        now, then = os.stat(path), os.stat(source)
        if (now.st_size, now.st_mtime_ns) == (then.st_size, then.st_mtime_ns):
            path = source
    with open_store(path, read_only=True) as store:
        return some(store.con.execute("SELECT count(*) FROM audits").fetchone())[0]


def test_best_prints_tables_2_and_3_and_candidates(cli, db):
    # the paper's model se (--se model); the default se is the measured one
    r = cli(
        "audit", "best", "-c", "trec7", "-m", "MAP", "--source", "official", "--se", "model", db=db
    )
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.startswith("Best-result audit: trec7 AP (official), 50 topics  [audit #1]")
    assert "Table 2: the published population" in out
    assert "│ 103 │ 0.1992 │ 0.0806 │ 0.0114 │ 0.0117 │ 0.3702 │" in out
    assert out.splitlines()[1] == (
        "Population: N = 103 results on 50 topics; sources: TREC trec7/adhoc 103; roles: "
        "official 103; run types: automatic 86, manual 17; topic sets: 351-400 103; reported by "
        "nist 103; dated 1998-06-26 to 1998-08-09."
    )
    assert "Thresholds of the max and min of N = 103 at alpha = 0.05" in out
    assert (
        "│ max above │    0.2367 │                35 │                                0.0513 │"
        in out
    )
    assert "false positives" not in out and "beyond chance" not in out.lower()
    assert "Reference model: a null of 103 equally good systems, each measured with the " in out
    assert "The 103 published results spread with sd 0.0806, 7.1 times that" in out
    assert "Warning" not in out and "rejected" not in out
    assert "│ 0.3702 │ 0.3377 │ [0.3052, 0.3702] │" in out
    assert "CLARIT98COMB" in out and "TREC trec7/adhoc" in out
    assert _n_audits(db) == 1


def test_best_json_and_montecarlo(cli, db):
    r = cli(
        "audit",
        "best",
        "-c",
        "trec7",
        "-m",
        "AP",
        "--run-type",
        "automatic",
        "--method",
        "montecarlo",
        "--trials",
        "2000",
        "--seed",
        "7",
        "--json",
        db=db,
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert list(out) == ["audit_id", "result", "reused"]  # sorted keys
    assert out["audit_id"] == 1 and out["reused"] is False and "audit_id" not in out["result"]
    d = out["result"]
    assert d["best"]["system"] == "ok7ax" and d["best"]["value_text"] == "0.3033"
    assert d["stats"]["method"] == "montecarlo" and d["stats"]["seed"] == 7
    assert d["stats"]["trials"] == 2000 and d["stats"]["thresholds"]["max_threshold_se"] > 0
    assert d["candidates"][0]["result"]["track"] == "trec7/adhoc"
    show = cli("audit", "show", str(out["audit_id"]), "--json", db=db)
    stored = json.loads(show.output)
    assert (stored["method"], stored["seed"], stored["trials"]) == ("montecarlo", 7, 2000)
    assert stored["params"]["filters"]["run_types"] == ["automatic"]


def test_claim_ok7ax(cli, db):
    # Carterette 2015, Sec. 3.1: ok7ax (0.303), the best automatic run, as one of the 103
    # TREC-7 runs: threshold ~0.2375, mu0 ~0.2705, lower bound ~0.2378; exact on the NIST
    # values: 0.2367, 0.2708, 0.2383.
    r = cli(
        "audit", "claim", "-c", "trec7", "-m", "AP", "--system", "ok7ax", "--se", "model", db=db
    )
    assert r.exit_code == 0, r.output
    lines = without_verdict(r.output)
    assert lines[2] == (
        "Against the record: 0.3033 (ok7ax, TREC trec7/adhoc) is below the record, 0.3702 "
        "(CLARIT98COMB, TREC trec7/adhoc), and below the record's 60% band [0.3052, 0.3702] "
        "under the reference model: a gap of 0.067 is wider than the band that picking the "
        "best of 103 equally good systems spans with probability 0.6; a paired test on the "
        "same topics is what would confirm it; 6 other published results are at or above it."
    )
    assert lines[3].startswith(
        "Against chance: 0.3033 is above 0.2367, the value that the best of 103 equally good "
        "systems (the claim as one of the 103 published results), each measured with standard "
        "error 0.0114 around the mean 0.1992, exceeds with probability 0.05 (p < 1e-6). Under "
        "that null 0.051 of the 103 draws are expected above 0.2367; 35 of the 103 published "
        "results are above it."
    )
    assert lines[4].startswith("Gap to the record: 0.3033 is 0.0669 below the record 0.3702")
    assert lines[5] == (
        "The claim's own interval: the lowest population mean whose best of "
        "103 draws reaches 0.3033 with probability 0.2 is mu0 = 0.2708, 10.7% "
        "lower; the claim's 60% interval is [0.2383, 0.3033]."
    )
    assert lines[6].startswith("Reference model: a null of 103 equally good systems")
    assert lines[1].startswith("Population: N = 103 results on 50 topics")
    assert "│ mu0          │ 0.2708           │" in r.output
    j = json.loads(
        cli(
            "audit",
            "claim",
            "-c",
            "trec7",
            "-m",
            "AP",
            "--value",
            "0.24",
            "--hidden-multiplier",
            "3",
            "--json",
            "--no-save",
            db=db,
        ).output
    )
    assert (j["audit_id"], j["reused"]) == (None, False)
    assert j["result"]["stats"]["chance"]["n_draws"] == 3 * 103 + 1
    assert _n_audits(db) == 1


ROBUST_0372 = [
    "Claim audit: robust04 AP (all sources), 249 topics  [audit #1]",
    "Population: N = 328 results on 249 topics; sources: papers 218 (from 109 papers), "
    "TREC trec13/robust 110; roles: official 110, baseline 109, proposed 109; run types: "
    "- 218, automatic 110; topic sets: judged 328; reported by authors 218, nist 110; "
    "dated 2004-07-30 to 2004-08-06 (218 undated).",
    "Against the record: 0.3720 is above the record, 0.3686 (best (proposed), Cormack et "
    "al. (SIGIR 2009)), which lies within the claim's 60% band [0.3253, 0.3720] under "
    "the reference model: a gap of 0.0034 is within what picking the best of 329 equally "
    "good systems produces; only a paired test on the same topics can tell the two apart; "
    "no published result is at or above it.",
    "Against chance: the null of 328 equally good systems is false by inspection: the "
    "published results spread with sd 0.0433, 4.4 times the largest standard error "
    "0.0099 one of them can have (at least 3 times: under that null a spread this wide "
    "has probability below 1e-6), so no p and no N* are given. 0.3720 is above 0.2981, "
    "the value that the best of 329 equally good systems (the claim as one more draw "
    "besides the 328 published results), each measured with standard error 0.0073 around "
    "the mean 0.2719, exceeds with probability 0.05; 84 of the 328 published results are "
    "above it: passing it says only that a result is not one of N equally good systems, "
    "which these are not.",
    "Gap to the record: 0.3720 is 0.0034 above the record 0.3686 (best (proposed), "
    "Cormack et al. (SIGIR 2009)), 0.3 se of a difference (se 0.0103, paired over the "
    "same topics: sqrt(2) x the measured se).",
    "The claim's own interval: the lowest population mean whose best of 329 draws "
    "reaches 0.3720 with probability 0.2 is mu0 = 0.3487, 6.3% lower; the claim's 60% "
    "interval is [0.3253, 0.3720].",
    "How much of the record is luck: the reliability of the published spread is B = "
    "tau^2 / (tau^2 + se^2) = 0.972; with the true means of the published systems spread "
    "by tau = 0.0427 (sd 0.0433 of the results less the noise se 0.0073), the "
    "random-effects estimate of the record's true mean is 0.3659 (posterior sd 0.0072) "
    "for the observed 0.3686: 0.0027 of it, 2.8% of its distance from the mean 0.2719 "
    "((1 - B)(record - mean)), is what the noise explains. Beside it, the winner's bias "
    "by resampling is 0.0081 (Monte Carlo se 0.0001; simulation: the published results "
    "shrunk to their random-effects estimates as true means, each run's noise the se of "
    "a measured reference run drawn at random, the observed best's excess over its true "
    "mean averaged over 2,000 replications (seed 2030)).",
    "Reference model: a null of 328 equally good systems, each measured with the "
    "standard error 0.0073, measured (kind measured: the store's reference noise) as "
    "sqrt(MS_interaction / n) from TREC 2004 Robust AP: 110 runs x 249 topics, "
    "pertopic/robust2004_ap.csv of Urbano's per-topic score matrices (SIGIR 2018 and "
    "SIGIR 2019 archives, CC BY-SA 4.0, posted with the TREC organisers' permission); "
    "its runs' own se range to 0.0099 (the model's sd / sqrt(n) would be 0.0027). The "
    "328 published results spread with sd 0.0433, 5.9 times that, because they are not "
    "equally good; the thresholds and bands say what equally good systems would reach.",
]


def test_claim_above_the_record_but_in_its_interval_says_so(cli, db):
    # issue 11: 0.3720 on robust04 was printed as BEYOND CHANCE; the record (0.3686,
    # Cormack et al., SIGIR 2009) lies in the claim's own 60% interval
    r = cli("audit", "claim", "-c", "robust04", "-m", "AP", "--value", "0.3720", db=db)
    assert r.exit_code == 0, r.output
    assert without_verdict(r.output)[:8] == ROBUST_0372
    low = r.output.lower()
    for word in ("beyond chance", "state of the art", "beats", "better than", "significant"):
        assert word not in low
    assert "│ record in the claim's band     │ yes" in r.output
    assert "│ claim in the record's band     │ no (above it)" in r.output
    assert "│ p = P(max of M >= claim), descriptive" in r.output
    assert "- (null false by inspection)" in r.output and "< 1e-6" not in r.output
    # --json: the same answers, in order, and N* as a capped float
    d = json.loads(
        cli(
            "audit",
            "claim",
            "-c",
            "robust04",
            "-m",
            "AP",
            "--value",
            "0.3720",
            "--json",
            "--no-save",
            db=db,
        ).output
    )["result"]
    assert list(d["answers"]) == ROBUST_0372[2:8]
    ch = d["stats"]["chance"]
    assert ch["n_star"] == 1e12 and ch["n_star_capped"] is True and ch["n_star_cap"] == 1e12
    assert ch["p_value"] == 1e-6 and ch["p_below_floor"] is True
    assert "informative" not in ch and round(ch["gap_sd"], 2) == 0.61
    sp = d["spread"]
    assert sp["false_by_inspection"] is True and round(sp["ratio"], 1) == 4.4
    assert round(d["record_gap"]["z"], 1) == 0.3 and d["record_gap"]["paired"] is True
    assert d["record_holder"]["citation"] == "Cormack et al. (SIGIR 2009)"
    assert d["population"]["n"] == 328 and "fit" not in d["stats"]
    assert d["noise"]["source"] == "reference" and d["noise"]["asked"] == "default"
    assert d["noise"]["kind"] == "measured" and "robust2004_ap.csv" in d["noise"]["origin"]
    # audit show prints the stored audit as the command did
    shown = cli("audit", "show", "1", db=db)
    assert without_verdict(shown.output)[1:9] == ROBUST_0372


def test_a_claim_below_the_record_is_not_above_it(cli, db):
    r = cli("audit", "claim", "-c", "robust04", "-m", "AP", "--value", "0.36", "--no-save", db=db)
    assert r.exit_code == 0, r.output
    assert without_verdict(r.output)[2] == (
        "Against the record: 0.3600 is below the record, 0.3686 (best (proposed), Cormack et "
        "al. (SIGIR 2009)), within the record's 60% band [0.3220, 0.3686] under the reference "
        "model: a gap of 0.0086 is within what picking the best of 328 equally good systems "
        "produces; only a paired test on the same topics can tell the two apart; 3 published "
        "results are at or above it."
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("--value", "37.2"),
            "claimed AP 37.2 is not a fraction; did you mean 0.372? (AP lies between 0 and 1)",
        ),
        (("--value", "5"), "claimed AP 5 is not a fraction; did you mean 0.05?"),
        (("--value", "-0.2"), "claimed AP -0.2 is negative; AP lies between 0 and 1"),
        (
            ("--value", "0.3", "--p", "0.6"),
            "p must be strictly between 0 and 0.5 (the interval covers 1 - 2p), got 0.6",
        ),
        (("--value", "0.3", "--alpha", "1.5"), "alpha must be strictly between 0 and 1, got 1.5"),
        (
            ("--value", "0.3", "--years", "2019"),
            "robust04 AP: 2 result(s) after the filters; an extreme-value audit needs at least 5",
        ),
        (("--system", "best (proposed)"), "system 'best (proposed)' names 109 results"),
        (("--value", "0.3", "--system", "x"), "give exactly one of"),
        ((), "give exactly one of"),
    ],
)
def test_bad_claims_are_one_line_and_exit_1(cli, refused_db, args, message):
    db = refused_db
    r = cli("audit", "claim", "-c", "robust04", "-m", "AP", *args, db=db)
    assert r.exit_code == 1, r.output
    assert r.output.startswith("Error: ") and message in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert _n_audits(db) == 0
    assert _unchanged(db), "a refused claim wrote to the database"


@pytest.mark.parametrize("cmd", ["best", "history"])
def test_every_audit_needs_five_results(cli, refused_db, cmd):
    db = refused_db
    r = cli("audit", cmd, "-c", "robust04", "-m", "AP", "--years", "2019", db=db)
    assert r.exit_code == 1
    assert (
        "robust04 AP: 2 result(s) after the filters; an extreme-value audit needs at least 5"
    ) in r.output
    s = cli("audit", "summary", "--min-n", "4", db=db)
    assert s.exit_code == 1 and "--min-n must be at least 5, got 4" in s.output
    assert _unchanged(db), "a refused audit wrote to the database"


def test_history(cli, db):
    r = cli("audit", "history", "-c", "robust04", "-m", "AP", "--source", "papers", db=db)
    assert r.exit_code == 0, r.output
    assert "Sequential-testing history: robust04 AP (papers), 249 topics" in r.output
    assert "│ 2005 │" in r.output and "3 records over 15 years" in r.output
    assert without_verdict(r.output)[1].startswith(
        "Population: N = 218 results on 249 topics; sources: papers 218 (from 109 papers)"
    )
    # p-values 30+ standard errors out print as the floor, next to the reference model
    assert "< 1e-6" in r.output and "e-2" not in r.output
    assert "reference: running (mean and sd of the results published up to each step" in r.output
    assert "Reference model: a null of 218 equally good systems" in r.output
    assert "beyond chance" not in r.output.lower()
    d = json.loads(
        cli(
            "audit",
            "history",
            "-c",
            "robust04",
            "-m",
            "AP",
            "--source",
            "papers",
            "--json",
            "--no-save",
            db=db,
        ).output
    )
    assert (d["audit_id"], d["reused"]) == (None, False)
    d = d["result"]
    last = d["history"]["points"][-1]
    assert last["p_value"] == 1e-6 and last["p_below_floor"] is True
    assert d["population"]["roles"] == [
        {"label": "baseline", "n": 109},
        {"label": "proposed", "n": 109},
    ]


@pytest.mark.slow(reason="the summarized seeded store (a session fixture, 6 s of CPU)")
def test_summary_is_what_make_run_prints(cli, summarized):
    # `audit summary` on the seeded store, run once for the session (conftest.py)
    output, db = summarized.text, summarized.db
    lines = output.splitlines()
    assert lines[0] == (
        "Extreme-value audits (Carterette, SIGIR 2015): alpha = 0.05, p = 0.2, N >= 5"
    )
    header = next(ln for ln in lines if "collection" in ln)
    for col in ("measure", "source", "N", "best", "mu0", "lower", "candidates", "threshold"):
        assert col in header
    assert any(
        ln.startswith("│ trec7 ") and "│ AP " in ln and "│ official │ 103 │" in ln for ln in lines
    )
    assert any(ln.startswith("│ robust04 ") and "│ AP " in ln and "│ papers " in ln for ln in lines)
    assert "types)" in header and "roles (run" in output and "se (kind)" in header
    # the seeded BEIR/MS MARCO names and leaderboard digits widen the table: the cell wraps
    i = next(k for k, ln in enumerate(lines) if ln.startswith("│ trec7 ") and "│ AP " in ln)
    cell = " ".join(ln.rstrip(" │").rsplit("│", 1)[1].strip() for ln in lines[i : i + 4])
    assert "official 103 (automatic 86, manual 17)" in " ".join(cell.split())
    null = next(ln for ln in lines if ln.startswith("Every audit uses one null"))
    assert null == (
        "Every audit uses one null: N equally good systems, each measured with the "
        "population's standard error (kinds: measured 6, bound 298; measured from per-topic "
        "scores where the store has them, else the [0, 1] bound sqrt(m (1 - m) / n), else the "
        "model's sd / sqrt(n)); `audit best --se` takes another. The published results spread "
        "at least 3 times the largest se one of them can have, so that the null is false by "
        "inspection and no p is given, in 170 of 304 populations (alpha 0.05)."
    )
    # the papers' BEIR tables (seeds/results/literature.csv.gz) hold 1 to 4 values a dataset
    # (and Tevatron's two SciFact R@100 lines: beir-scifact R@100, paper, N = 2)
    assert "8 group(s) skipped:" in lines
    assert "rejected in" not in output
    n = _n_audits(db)
    assert n > 40
    listed = cli("audit", "list", "--kind", "best", "--json", db=db)
    assert len(json.loads(listed.output)) == n
    shown = cli("audit", "show", "1", db=db)
    assert shown.exit_code == 0 and "Best-result audit:" in shown.output


def test_no_save_opens_read_only(cli, small_db):
    db = small_db
    r = cli("audit", "summary", "--no-save", "--json", db=db)
    assert r.exit_code == 0
    rows = json.loads(r.output)["rows"]
    assert rows and all(row["audit_id"] is None for row in rows)
    assert _n_audits(db) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (("best", "-c", "nope", "-m", "AP"), "unknown collection 'nope'"),
        (
            ("best", "-c", "trec7", "-m", "AP", "--alpha", "1.5"),
            "alpha must be strictly between 0 and 1",
        ),
        (("best", "-c", "trec7", "-m", "AP", "--p", "0"), "p must be strictly between 0 and 0.5"),
        (("best", "-c", "trec7", "-m", "AP", "--source", "blogs"), "--source"),
        (("best", "-c", "trec7", "-m", "AP", "--method", "bayes"), "unknown method 'bayes'"),
        (("best", "-c", "trec7", "-m", "AP", "--years", "1990"), "0 result(s) after the filters"),
        (
            ("claim", "-c", "trec7", "-m", "AP", "--value", "0.3", "--hidden-multiplier", "0.5"),
            "hidden multiplier must be >= 1",
        ),
        (("history", "-c", "trec7", "-m", "AP", "--reference", "oracle"), "unknown reference"),
        (("show", "999"), "no audit with id 999"),
    ],
)
def test_errors_are_one_line_and_exit_1(cli, refused_db, args, message):
    db = refused_db
    r = cli("audit", *args, db=db)
    assert r.exit_code == 1
    assert message in r.output
    assert "Traceback" not in r.output
    assert _n_audits(db) == 0
    assert _unchanged(db), "a refused audit wrote to the database"


def test_too_few_results_counts_the_retracted_ones(cli, small_db):
    # a population emptied by retractions (as init's seed sync retracts rows the seeds
    # no longer hold) says how many retracted results the audit left out, and how to see
    # them (MS MARCO dev/small's R@100: 6 seed results, 3 retracted here)
    import json

    db, c, m = small_db, "msmarco-passage/dev/small", "R@100"
    rows = json.loads(cli("results", "list", "-c", c, "-m", m, "--json", db=db).stdout)
    ids = [str(r["id"]) for r in rows]
    assert len(ids) >= 5
    res = cli("results", "retract", *ids[3:], "--reason", "test", db=db)
    assert res.exit_code == 0, res.output
    res = cli("audit", "best", "-c", c, "-m", m, db=db)
    assert res.exit_code == 1
    assert (
        f"msmarco-passage-dev {m}: 3 result(s); an extreme" in res.stderr
    )  # its short name; no filter
    assert f"; {len(ids) - 3} retracted result(s) left out" in res.stderr
    assert cli("audit", "best", "-c", c, "-m", m, "--include-retracted", db=db).exit_code == 0


def test_se_option_and_history_reference(cli, db):
    bad = cli("audit", "claim", "-c", "robust04", "-m", "AP", "--value", "0.3", "--se", "x", db=db)
    assert bad.exit_code == 1 and len(bad.output.strip().splitlines()) == 1
    assert (
        "--se: 'x' is not one of model, interaction, measured, bound or a standard error"
        in bad.output
    )
    given = cli(
        "audit", "best", "-c", "trec7", "-m", "AP", "--se", "0.0155", "--no-save", db=db
    ).output
    assert "each measured with the standard error 0.0155 given with --se" in given
    assert "How much of the best is luck:" in given
    final = cli(
        "audit",
        "history",
        "-c",
        "robust04",
        "-m",
        "AP",
        "--reference",
        "final",
        "--no-save",
        db=db,
    ).output
    assert "reference: final (mean and sd of all results, later ones included" in final
    assert "look-ahead" in final
