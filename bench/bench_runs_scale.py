"""Benchmark: run archives shaped like MS MARCO dev runs, as the user runs the commands.

    .venv/bin/python bench/bench_runs_scale.py            # 1, 2 and 4 runs (7M-28M lines)
    .venv/bin/python bench/bench_runs_scale.py --full     # 2, 5 and 10 runs (up to 70M lines)
    .venv/bin/python bench/bench_runs_scale.py --runs 20  # one size: 20 runs (140M lines)
    .venv/bin/python bench/bench_runs_scale.py --single-file 20  # one run file of 20M lines

Each run is 6,980 topics x 1,000 documents (the MS MARCO passage dev queries, depth 1,000:
6.98M lines), written as plain text into a temporary folder (``--tmp``; deleted after
each size) with MS MARCO-like ids: numeric topic ids and docnos from the 8.8M passages,
scores with ties, the qrels about 1.1 relevant passages per query (as qrels.dev.small).
Runs share passages per topic, as real runs do. ``--single-file M`` imports one run file of
about M million lines instead (the same topics, each ranked M/6.98 thousand deep): the
import's memory must not grow with one file's size either.

For each size, as separate processes (as a user types them, process start-up included):
``litaudit runs import`` into a database holding the reference data (``litaudit init``),
then ``litaudit runs eval -m AP`` without and then with the stored evaluations. Prints wall
seconds, lines per second, the peak resident memory of each process (from wait4), the
database's size, and PASS/MISS against the targets of issue 15 (import: peak <= 2 GiB and
time linear in the lines; eval of one measure over 140M lines <= 30 s). The machine is
shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LITAUDIT = [sys.executable, "-m", "litaudit"]
COLLECTION = "dl19-passage"  # an MS MARCO passage collection of the reference data
N_TOPICS = 6980  # MS MARCO passage dev (small) queries
DEPTH = 1000
N_PASSAGES = 8_841_823
RSS_TARGET_MIB = 2048
EVAL_TARGET_S = 30.0  # at 140M lines


def synth_msmarco(root: Path, n_runs: int, seed: int = 15, depth: int = DEPTH) -> tuple[Path, Path]:
    """Qrels and ``n_runs`` run files (plain text) shaped like MS MARCO dev runs, each
    topic ranked ``depth`` deep."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pcsv

    rng = np.random.default_rng(seed)
    topics = np.sort(rng.choice(1_100_000, size=N_TOPICS, replace=False)) + 2
    base = rng.integers(0, N_PASSAGES - 8 * depth, size=N_TOPICS)  # each topic's passages
    opts = pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    n_rel = 1 + (rng.random(N_TOPICS) < 0.1)
    q_topic = np.repeat(topics, n_rel)
    q_doc = np.repeat(base, n_rel) + 7 * rng.integers(0, depth, size=len(q_topic))
    q_doc[1:][q_topic[1:] == q_topic[:-1]] += 1  # two relevant: distinct passages
    qrels = root / "qrels.dev.small.tsv"
    pcsv.write_csv(
        pa.table(
            {
                "t": q_topic.astype(str),
                "i": np.zeros(len(q_topic), np.int8),
                "d": q_doc.astype(str),
                "r": np.ones(len(q_topic), np.int8),
            }
        ),
        qrels,
        opts,
    )
    run_dir = root / "runs"
    run_dir.mkdir()
    rank = np.tile(np.arange(1, depth + 1, dtype=np.int32), N_TOPICS)
    t_col = pa.array(np.repeat(topics, depth).astype(str))
    for r in range(n_runs):
        # distinct passages per topic: base + 7 k + jitter (k a permutation of the ranks)
        k = rng.permuted(np.tile(np.arange(depth), (N_TOPICS, 1)), axis=1)
        docs = (base[:, None] + 7 * k + rng.integers(0, 7, size=(N_TOPICS, depth))).ravel()
        score = np.round(np.sort(rng.random((N_TOPICS, depth)) * 20, axis=1)[:, ::-1], 3)
        table = pa.table(
            {
                "t": t_col,
                "q": pa.array(["Q0"] * 1, pa.string()).take(
                    pa.array(np.zeros(len(rank), np.int32))
                ),
                "d": pa.array(docs.astype(str)),
                "k": rank,
                "s": score.ravel(),
                "tag": pa.array([f"synth{r:02d}"]).take(pa.array(np.zeros(len(rank), np.int32))),
            }
        )
        pcsv.write_csv(table, run_dir / f"run.synth{r:02d}.trec", opts)
        del table, docs, score, k
    return run_dir, qrels


def run_child(cmd: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MiB, CPU seconds) of a child process, its output discarded
    (peak RSS and CPU from wait4: that child's alone)."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: run the command
        os.chdir(REPO)
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"failed ({status}): {' '.join(cmd)}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def one_size(tmp_root: Path, n_runs: int, base_db: Path, depth: int = DEPTH) -> dict:
    with tempfile.TemporaryDirectory(dir=tmp_root) as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        run_dir, qrels = synth_msmarco(root, n_runs, depth=depth)
        gen = time.perf_counter() - t0
        text = sum(p.stat().st_size for p in run_dir.iterdir())
        db = root / "a.duckdb"
        shutil.copy(base_db, db)
        lines = n_runs * N_TOPICS * depth
        t_imp, rss_imp, cpu_imp = run_child(
            [
                *LITAUDIT,
                "--db",
                str(db),
                "runs",
                "import",
                "-c",
                COLLECTION,
                "--qrels",
                str(qrels),
                str(run_dir),
            ]
        )
        db_size = db.stat().st_size
        for p in run_dir.iterdir():  # free the disk before evaluating
            p.unlink()
        ev = [*LITAUDIT, "--db", str(db), "runs", "eval", "-c", COLLECTION, "-m", "AP", "--json"]
        t_ev, rss_ev, cpu_ev = run_child(ev + ["--no-cache"])
        t_ev1, _, _ = run_child(ev)  # computes and stores
        t_ev2, rss_ev2, _ = run_child(ev)  # reads the stored values
    return {
        "runs": n_runs,
        "lines": lines,
        "text_mib": text / 2**20,
        "gen": gen,
        "import": t_imp,
        "cpu_import": cpu_imp,
        "cpu_eval": cpu_ev,
        "rss_import": rss_imp,
        "db_mib": db_size / 2**20,
        "eval": t_ev,
        "rss_eval": rss_ev,
        "eval_store": t_ev1,
        "eval_cached": t_ev2,
        "rss_cached": rss_ev2,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="2, 5 and 10 runs (70M lines)")
    ap.add_argument("--runs", type=int, nargs="*", help="these sizes (runs) instead")
    ap.add_argument(
        "--single-file",
        type=float,
        metavar="M",
        help="one run file of about M million lines instead (e.g. 20)",
    )
    ap.add_argument(
        "--tmp",
        type=Path,
        default=Path(tempfile.gettempdir()),
        help="where to write the synthetic files (deleted after each size)",
    )
    a = ap.parse_args()
    sizes = a.runs or ([2, 5, 10] if a.full else [1, 2, 4])
    depth = DEPTH
    if a.single_file:
        sizes, depth = [1], max(1, round(a.single_file * 1e6 / N_TOPICS))
    need = max(sizes) * 0.27 * 2**30 * 1.6 * depth / DEPTH
    free = shutil.disk_usage(a.tmp).free
    if free < need:
        sys.exit(f"{a.tmp}: {free / 2**30:.1f} GiB free, need about {need / 2**30:.1f} GiB")
    print(
        f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}; MS MARCO-shaped "
        f"runs of {N_TOPICS} topics x {depth} documents, collection {COLLECTION}"
    )
    with tempfile.TemporaryDirectory(dir=a.tmp) as tmp:
        base = Path(tmp) / "base.duckdb"
        subprocess.run(
            [*LITAUDIT, "--db", str(base), "init"], check=True, cwd=REPO, capture_output=True
        )
        first = None
        for n in sizes:
            r = one_size(Path(tmp), n, base, depth)
            per = r["import"] / r["lines"] * 1e6
            first = first or per
            print(
                f"{n:3d} runs, {r['lines'] / 1e6:6.1f}M lines ({r['text_mib']:,.0f} MiB "
                f"text; generated in {r['gen']:.0f} s): import {r['import']:6.1f} s "
                f"({r['lines'] / r['import'] / 1e6:.2f}M lines/s, {per:.3f} us/line = "
                f"{per / first:.2f}x the smallest; CPU {r['cpu_import']:.1f} s), peak RSS {r['rss_import']:,.0f} MiB "
                f"[{'PASS' if r['rss_import'] <= RSS_TARGET_MIB else 'MISS'} <= 2 GiB]; "
                f"database {r['db_mib']:,.0f} MiB",
                flush=True,
            )
            ev_target = EVAL_TARGET_S * r["lines"] / 140e6
            print(
                f"     eval -m AP {r['eval']:6.1f} s ({r['lines'] / r['eval'] / 1e6:.1f}M "
                f"lines/s, CPU {r['cpu_eval']:.1f} s; the 30 s at 140M target scaled to this size: {ev_target:.1f} s, "
                f"{'PASS' if r['eval'] <= ev_target else 'MISS'}), peak RSS "
                f"{r['rss_eval']:,.0f} MiB; computing and storing {r['eval_store']:.1f} s; "
                f"stored values read back {r['eval_cached']:.2f} s (peak "
                f"{r['rss_cached']:,.0f} MiB); load {os.getloadavg()[0]:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
