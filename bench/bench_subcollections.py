"""Sanderson et al. (2012) randomization test on robust03: fast path against the obvious way.

Fast path: `litaudit.stats.subcollections.subcollection_test`, 1,000 random splits of the
documents into FBIS/FR94/FT/LA-sized sub-collections, 2 worker threads (target <= 30 s on
2 cores). Obvious way: for each random split, filter every run and the qrels to each
sub-collection and re-evaluate them with pytrec_eval; 5 splits are timed and extrapolated
to 1,000. The MAPs of the obvious way are also checked against the fast path's.

Run: .venv/bin/python bench/bench_subcollections.py [PERMUTATIONS]
"""

from __future__ import annotations

import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec"
SPLIT = "prefix:FBIS,FR94,FT,LA"
SEED = 20120101
OBVIOUS_SPLITS = 5


def load_archive():
    from litaudit.runs.model import Archive, RunInfo
    from litaudit.runs.trec_io import read_qrels, read_runs

    meta = {}
    with open(DATA / "official_summaries.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            if r["edition"] == "trec12" and r["track"] == "robust":
                meta[r["run_id"]] = (r["participant"], r["run_type"])
    runs = read_runs(sorted((DATA / "runs" / "robust03").glob("input.*.gz")))
    qrels = read_qrels(DATA / "qrels" / "qrels.robust03.txt")
    info = tuple(RunInfo(r.tag, *meta.get(r.tag, (None, None)), None) for r in runs)
    return Archive("trec-robust-2003", qrels, tuple(runs), info)


def obvious_maps(c, keep, labels, names) -> np.ndarray:
    """(C, runs) MAP by filtering runs and qrels and re-evaluating with pytrec_eval."""
    import pytrec_eval

    out = np.full((len(names), keep.size), np.nan)
    topic_names = c.topic_names
    for ci in range(len(names)):
        in_c = labels == ci
        qmask = in_c[c.q_doc]
        qrels: dict[str, dict[str, int]] = {}
        for t, d, r in zip(c.q_topic[qmask], c.q_doc[qmask], c.q_rel[qmask], strict=True):
            qrels.setdefault(topic_names[t], {})[c.docnos[d]] = int(r)
        with_rel = [t for t, js in qrels.items() if any(v >= 1 for v in js.values())]
        ev = pytrec_eval.RelevanceEvaluator(qrels, {"map"})
        for j, r in enumerate(keep):
            m = (c.run == r) & in_c[c.doc]
            run: dict[str, dict[str, float]] = {}
            for t, d, s in zip(c.topic[m], c.doc[m], c.score[m], strict=True):
                run.setdefault(topic_names[t], {})[c.docnos[d]] = float(s)
            res = ev.evaluate(run)
            out[ci, j] = np.mean([res[t]["map"] if t in res else 0.0 for t in with_rel])
    return out


def main() -> int:
    from litaudit.analyses.reuse import coded_archive, subcollection_tau
    from litaudit.stats import subcollections as sc

    if not DATA.is_dir():
        print(f"no shared data at {DATA}")
        return 1
    permutations = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    workers = max(1, min(2, os.cpu_count() or 1))
    t0 = time.perf_counter()
    archive = load_archive()
    t1 = time.perf_counter()
    c = coded_archive.code_archive(archive)
    split = subcollection_tau.split_documents(c.docnos, SPLIT)
    full = coded_archive.evaluate_means(c, "AP")
    keep, _ = subcollection_tau.select_runs(
        full, c.run_types, automatic_only=True, drop_bottom=subcollection_tau.SUBCOLLECTION_BOTTOM
    )
    prep = subcollection_tau.prepare_subcollections(c, keep)
    t2 = time.perf_counter()
    print(
        f"robust03: {len(c.tags)} runs ({keep.size} ranked), {len(c.topic_names)} topics, "
        f"{len(c.docnos)} documents; {prep.pos_doc.size} ranked positions up to the last "
        f"relevant, {prep.rel_doc.size} relevant retrieved"
    )
    print(f"read files {t1 - t0:.1f} s; code + select + precompute {t2 - t1:.1f} s")

    from rich.progress import Progress

    from litaudit.render.console import err

    cpu0 = time.process_time()
    w0 = time.perf_counter()
    with Progress(console=err, transient=True) as prog:
        task = prog.add_task("random splits", total=permutations)
        test = sc.subcollection_test(
            prep,
            split.labels,
            split.names,
            permutations=permutations,
            rng=np.random.default_rng(SEED),
            workers=workers,
            progress=lambda k: prog.advance(task, k),
        )
    fast = time.perf_counter() - w0
    cpu = time.process_time() - cpu0
    print(
        f"fast path: {permutations} random splits in {fast:.1f} s wall ({cpu:.1f} s CPU, "
        f"{workers} threads): {1000 * fast / permutations:.1f} ms per split "
        f"[target: 1,000 splits <= 30 s]"
    )
    for k, (a, b) in enumerate(test.pairs):
        print(
            f"  {split.names[a]:>5}-{split.names[b]:<5} tau {test.tau[k]:.3f}  random "
            f"{np.nanmin(test.random_tau[k]):.2f}-{np.nanmax(test.random_tau[k]):.2f}  "
            f"p {test.p_value[k]:.4f}"
        )

    seeds = sc.split_seeds(np.random.default_rng(SEED), permutations)[:OBVIOUS_SPLITS]
    small = split.labels.astype(np.int8)
    w0 = time.perf_counter()
    worst = 0.0
    for s in seeds:
        labels = sc.random_labels(small, s)
        slow = obvious_maps(c, keep, labels, split.names)
        quick, _ = sc.subcollection_map(prep, labels[None, :].astype(np.int64), len(split.names))
        worst = max(worst, float(np.nanmax(np.abs(slow - quick[0]))))
    per = (time.perf_counter() - w0) / OBVIOUS_SPLITS
    print(
        f"obvious way (filter + pytrec_eval): {per:.1f} s per split over {OBVIOUS_SPLITS} "
        f"splits -> {1000 * per / 60:.0f} min for 1,000"
    )
    print(f"max |MAP fast - MAP pytrec_eval| over {OBVIOUS_SPLITS} splits: {worst:.2e}")
    print(f"ratio obvious / fast per split: {per / (fast / permutations):.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
