"""The measure registry (litaudit.measures) and the evaluator's providers: every spelling,
and every declared measure checked against trec_eval (pytrec_eval) or ir_measures on real
TREC runs (robust03)."""

from __future__ import annotations

import inspect
from importlib.metadata import version

import numpy as np
import pytest

from litaudit.errors import NotFound
from litaudit.measures import FAMILIES, MeasureName, aliases_for, parse_measure
from tests.kept_oracle import kept
from tests.runs.oracle_input import archive_digest


@pytest.mark.parametrize(
    "text, want",
    [
        ("AP", "AP"),
        ("map", "AP"),
        ("MAP", "AP"),
        ("AP@100", "AP@100"),
        ("map_cut_100", "AP@100"),
        ("map_cut.100", "AP@100"),
        ("P@10", "P@10"),
        ("P_10", "P@10"),
        ("P.10", "P@10"),
        ("p@10", "P@10"),
        ("R@1000", "R@1000"),
        ("recall_1000", "R@1000"),
        ("recall.1000", "R@1000"),
        ("nDCG", "nDCG"),
        ("ndcg", "nDCG"),
        ("nDCG@10", "nDCG@10"),
        ("ndcg_cut_10", "nDCG@10"),
        ("ndcg_cut.10", "nDCG@10"),
        ("RR", "RR"),
        ("recip_rank", "RR"),
        ("MRR", "RR"),
        ("RR@10", "RR@10"),
        ("MRR@10", "RR@10"),
        ("Rprec", "Rprec"),
        ("R-prec", "Rprec"),
        ("bpref", "Bpref"),
        ("Bpref", "Bpref"),
    ],
)
def test_spellings(text, want):
    assert str(parse_measure(text)) == want


@pytest.mark.parametrize(
    "text, message",
    [
        ("P", "needs a cutoff"),
        ("recall", "needs a cutoff"),
        ("Rprec@10", "takes no cutoff"),
        ("bpref_5", "unknown measure"),
        ("P@0", "at least 1"),
        ("nosuch", "unknown measure"),
        ("recip_rank_10", "unknown measure"),  # trec_eval has no cut recip_rank
    ],
)
def test_refused(text, message):
    with pytest.raises(NotFound, match=message):
        parse_measure(text)


def test_recip_rank_is_rr_and_never_rr_at_10():
    assert parse_measure("recip_rank") == MeasureName("RR")
    assert MeasureName("RR", 10).trec_eval is None
    assert "recip_rank" not in aliases_for(MeasureName("RR", 10))
    assert "recip_rank" in aliases_for(MeasureName("RR"))
    for fam in FAMILIES.values():  # every stored alias parses back to its measure
        for k in (
            (None,) if fam.cutoff == "no" else (10,) if fam.cutoff == "required" else (None, 10)
        ):
            m = MeasureName(fam.name, k)
            assert all(parse_measure(a) == m for a in aliases_for(m)), m
            if m.trec_eval:
                assert parse_measure(m.trec_eval) == m


def test_every_declared_measure_has_a_provider():
    from litaudit.runs.trec_measures import PROVIDERS

    assert set(PROVIDERS) == set(FAMILIES)


# ------------------------------------------------------------- against the references
# (measure, the reference's name): trec_eval's through pytrec_eval, else ir_measures'
TREC_EVAL = [
    ("AP", "map"),
    ("AP@100", "map_cut_100"),
    ("P@10", "P_10"),
    ("P@30", "P_30"),
    ("R@1000", "recall_1000"),
    ("nDCG", "ndcg"),
    ("nDCG@10", "ndcg_cut_10"),
    ("RR", "recip_rank"),
    ("Rprec", "Rprec"),
    ("Bpref", "bpref"),
]
IR_MEASURES = [
    ("RR@10", "RR@10"),
    ("RR@1", "RR@1"),
    ("P@5", "P@5"),
    ("nDCG@20", "nDCG@20"),
    ("Judged@10", "Judged@10"),
    ("Judged@100", "Judged@100"),
]


def test_the_reference_lists_cover_every_family():
    assert {parse_measure(m).family for m, _ in TREC_EVAL + IR_MEASURES} == set(FAMILIES)


@pytest.fixture(scope="module")
def robust03():
    """Four robust03 runs and their qrels, read from ../shared/data; and our evaluation."""
    from litaudit.runs.evaluate import evaluate
    from litaudit.runs.trec_io import read_qrels, read_runs
    from tests.conftest import SHARED_DATA as shared

    if not shared.is_dir():
        pytest.skip(f"shared data not found at {shared} (CI keeps ../shared beside the clone)")
    qrels = read_qrels(shared / "trec" / "qrels" / "qrels.robust03.txt")
    files = sorted((shared / "trec" / "runs" / "robust03").iterdir())[:4]
    runs = read_runs(files, qrels=qrels)
    names = [m for m, _ in TREC_EVAL + IR_MEASURES]
    return qrels, runs, evaluate(runs, qrels, names)


def _qrels_dict(qrels) -> dict:
    qd: dict = {}
    for t, d, r in zip(qrels.topic.tolist(), qrels.docno.tolist(), qrels.rel.tolist(), strict=True):
        qd.setdefault(str(t), {})[str(d)] = int(r)
    return qd


def _run_dict(run) -> dict:
    rd: dict = {}
    for t, d, s in zip(run.topic.tolist(), run.docno.tolist(), run.score.tolist(), strict=True):
        rd.setdefault(str(t), {})[str(d)] = float(s)
    return rd


def _trec_eval_answers(qrels, runs) -> list[dict[str, dict[str, float]]]:
    """pytrec_eval's value of each of TREC_EVAL on each run and topic."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    oracle = pytrec_eval.RelevanceEvaluator(_qrels_dict(qrels), {t for _, t in TREC_EVAL})
    return [oracle.evaluate(_run_dict(run)) for run in runs]


@pytest.mark.shared
def test_each_measure_equals_trec_eval_on_robust03(robust03, pytestconfig):
    # pytrec_eval's answers kept across runs under the digest of what it is given, its
    # version and the helpers that shape its input (tests/kept_oracle.py); ours computed
    # every run
    pytest.importorskip("pytrec_eval")
    qrels, runs, ev = robust03
    answers = kept(
        pytestconfig,
        "pytrec_eval-terrier",
        f"{version('pytrec_eval-terrier')} {TREC_EVAL} "
        + "".join(inspect.getsource(f) for f in (_trec_eval_answers, _run_dict, _qrels_dict)),
        (archive_digest(runs, qrels),),
        lambda: _trec_eval_answers(qrels, runs),
    )
    assert len(answers) == len(runs)
    for ri, run in enumerate(runs):
        want = answers[ri]
        assert set(want) == {
            t for ti, t in enumerate(ev.topics) if not np.isnan(ev.scores[0, ri, ti])
        }
        for m, tm in TREC_EVAL:
            got = ev.matrix(m)[ri]
            exp = np.array([want[t][tm] if t in want else np.nan for t in ev.topics])
            np.testing.assert_allclose(got, exp, rtol=0, atol=1e-4, err_msg=f"{run.tag} {m}")


def _trec_ranked(run) -> dict:
    """The run with scores that spell out trec_eval's ranking (score as C float descending,
    ties by docno descending), so that a reference breaking ties another way (ir_measures'
    msmarco provider for RR@k) sees the same ranking."""
    by_topic: dict = {}
    score32 = run.score.astype(np.float32).astype(np.float64)  # as C float, all at once
    for t, d, s in zip(run.topic.tolist(), run.docno.tolist(), score32.tolist(), strict=True):
        by_topic.setdefault(str(t), []).append((s, str(d)))
    return {
        t: {d: float(len(docs) - i) for i, (_, d) in enumerate(sorted(docs, reverse=True))}
        for t, docs in by_topic.items()
    }


def _ir_measures_answers(qrels, runs) -> list[dict[str, float]]:
    """ir_measures' value of each of IR_MEASURES on each run and topic (by trec_eval's
    ranking, :func:`_trec_ranked`), keyed "measure topic"."""
    ir_measures = pytest.importorskip("ir_measures")
    qd = _qrels_dict(qrels)
    metrics = [ir_measures.parse_measure(name) for _, name in IR_MEASURES]
    return [
        {f"{x.measure} {x.query_id}": x.value for x in ir_measures.iter_calc(metrics, qd, ranked)}
        for ranked in map(_trec_ranked, runs)
    ]


@pytest.mark.shared
def test_each_measure_equals_ir_measures_on_robust03(robust03, pytestconfig):
    # ir_measures' answers kept across runs under the digest of what it is given, its
    # code, pytrec_eval's version and the helpers that shape its input
    # (tests/kept_oracle.py; ~0.6 s of CPU when made); ours computed every run
    pytest.importorskip("ir_measures")
    qrels, runs, ev = robust03
    answers = kept(
        pytestconfig,
        "ir_measures",
        f"{version('pytrec_eval-terrier')} {IR_MEASURES} "
        + "".join(inspect.getsource(f) for f in (_ir_measures_answers, _trec_ranked, _qrels_dict)),
        (archive_digest(runs, qrels),),
        lambda: _ir_measures_answers(qrels, runs),
    )
    assert len(answers) == len(runs)
    for ri, run in enumerate(runs):
        got_ref = answers[ri]
        for m, name in IR_MEASURES:
            for ti, t in enumerate(ev.topics):
                ours = ev.matrix(m)[ri, ti]
                if np.isnan(ours):
                    continue
                assert ours == pytest.approx(got_ref[f"{name} {t}"], abs=1e-4), (run.tag, m, t)
