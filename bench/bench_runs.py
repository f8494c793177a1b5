"""Benchmark: import + evaluate (AP, P@10, Rprec) a TREC run archive, against peers.

    .venv/bin/python bench/bench_runs.py            # robust03 (17 runs, 1.51M lines) + peers
    .venv/bin/python bench/bench_runs.py --cli      # only the user's path (two commands)
    .venv/bin/python bench/bench_runs.py --cli --before DIR  # ... and older code, alternating
    .venv/bin/python bench/bench_runs.py --growth   # synthetic archives: time vs size
    .venv/bin/python bench/bench_runs.py --growth --full  # 130 and 1,000 runs x 50 x 1,000

Prints wall and CPU seconds, peak resident memory of the import (measured in a child
process, a fresh one per repetition), PASS/MISS against the issue's targets (1.0 s wall,
1 GiB) on the median of the repetitions, and the ratio of each peer's time to litaudit's.
ranx is run when installed. The machine is shared: the load average is printed with the
figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "trec"
RUNS = DATA / "runs" / "robust03"
QRELS = DATA / "qrels" / "qrels.robust03.txt"
MEASURES = ["AP", "P@10", "Rprec"]
TARGET_S = 1.0
TARGET_RSS_MIB = 1024
CLI_TARGET_S = 1.3  # issue 15: runs import + runs eval as two commands
# what any command of the runs path imports before it does any work
STACK_IMPORTS = "import numpy, duckdb, pyarrow.csv, typer, rich.console"


def litaudit_once(run_dir: Path, qrels: Path, collection: str = "trec-robust-2003") -> dict:
    """Import into a fresh on-disk store and evaluate; in this process.

    The libraries are imported before the clock starts, as process start-up (duckdb,
    numpy and litaudit always were; pyarrow and isal, which the importer loads on first
    use, are too): their import time is reported apart, as ``startup_imports``. The
    process sets its allocator up as the litaudit command's does (litaudit.runtime)."""
    t_imp = time.perf_counter()
    sys.path.insert(0, str(REPO))
    import concurrent.futures  # noqa: F401

    import pyarrow  # noqa: F401
    import pyarrow.compute  # noqa: F401
    import pyarrow.csv  # noqa: F401

    try:
        import isal.igzip  # noqa: F401
    except ImportError:
        pass
    from litaudit.runs.ingest import import_archive
    from litaudit.runs.stored_eval import evaluate_stored
    from litaudit.runtime import tune_allocator
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    tune_allocator()  # as the litaudit command does when it opens a database
    t_imp = time.perf_counter() - t_imp

    with tempfile.TemporaryDirectory() as tmp:
        with open_store(Path(tmp) / "b.duckdb") as store:
            load_reference_data(store.con)
            t0, c0 = time.perf_counter(), time.process_time()
            rep = import_archive(store, collection, [run_dir], qrels_path=qrels)
            t1 = time.perf_counter()
            ev = evaluate_stored(store.con, collection, MEASURES)
            t2, c2 = time.perf_counter(), time.process_time()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "import": t1 - t0,
        "eval": t2 - t1,
        "total": t2 - t0,
        "cpu": c2 - c0,
        "startup_imports": t_imp,
        "lines": rep.lines,
        "peak_rss_mib": rss,
        "map": [round(float(x), 4) for x in ev.mean("AP")],
    }


def child(run_dir: Path, qrels: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(run_dir), str(qrels)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def peer_pytrec_eval(run_dir: Path, qrels: Path) -> float:
    import pytrec_eval

    t0 = time.perf_counter()
    qd: dict = {}
    with open(qrels) as fh:
        for line in fh:
            t, _, d, r = line.split()
            qd.setdefault(t, {})[d] = int(r)
    ev = pytrec_eval.RelevanceEvaluator(qd, {"map", "P_10", "Rprec"})
    for f in sorted(run_dir.iterdir()):
        rd: dict = {}
        with gzip.open(f, "rt") if f.suffix == ".gz" else open(f) as fh:
            for line in fh:
                t, _, d, _, s, _ = line.split()
                rd.setdefault(t, {})[d] = float(s)
        ev.evaluate(rd)
    return time.perf_counter() - t0


def peer_ir_measures(run_dir: Path, qrels: Path) -> float:
    import ir_measures
    from ir_measures import AP, P, Rprec

    t0 = time.perf_counter()
    qr = list(ir_measures.read_trec_qrels(str(qrels)))
    for f in sorted(run_dir.iterdir()):
        ir_measures.calc_aggregate([AP, P @ 10, Rprec], qr, ir_measures.read_trec_run(str(f)))
    return time.perf_counter() - t0


def peer_ranx(run_dir: Path, qrels: Path) -> float:
    import ranx

    ranx.evaluate(
        ranx.Qrels({"q": {"d": 1}}),
        ranx.Run({"q": {"d": 1.0}}),
        ["map", "precision@10", "r-precision"],
    )  # JIT compile, not timed
    t0 = time.perf_counter()
    qr = ranx.Qrels.from_file(str(qrels), kind="trec")
    for f in sorted(run_dir.iterdir()):
        with (
            gzip.open(f, "rt") if f.suffix == ".gz" else open(f) as fh,
            tempfile.NamedTemporaryFile("w", suffix=".txt") as tmp,
        ):
            tmp.write(fh.read())
            tmp.flush()
            run = ranx.Run.from_file(tmp.name, kind="trec")
        ranx.evaluate(qr, run, ["map", "precision@10", "r-precision"])
    return time.perf_counter() - t0


def synth(root: Path, n_runs: int, n_topics: int, depth: int, seed: int = 7) -> tuple[Path, Path]:
    """A synthetic archive: qrels with ~5% relevant, runs of random scores (gzip)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rd = root / f"runs_{n_runs}"
    rd.mkdir(parents=True)
    pool = [f"DOC-{i:07d}" for i in range(depth * 4)]
    q = root / "qrels.txt"
    with open(q, "w") as fh:
        for t in range(n_topics):
            for d in rng.choice(len(pool), size=depth, replace=False):
                fh.write(f"{t + 1} 0 {pool[d]} {int(rng.random() < 0.05)}\n")
    for r in range(n_runs):
        lines = []
        for t in range(n_topics):
            docs = rng.choice(len(pool), size=depth, replace=False)
            scores = np.sort(rng.random(depth))[::-1]
            lines += [
                f"{t + 1}\tQ0\t{pool[d]}\t{i + 1}\t{s:.6f}\tsynth{r}\n"
                for i, (d, s) in enumerate(zip(docs, scores, strict=True))
            ]
        with gzip.open(rd / f"synth{r}.gz", "wt", compresslevel=1) as fh:
            fh.writelines(lines)
    return rd, q


def run_child(cmd: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of a child process (fork/exec, stdout and stderr
    discarded; CPU and peak from wait4, that child's alone)."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"failed: {' '.join(cmd)}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def cli_path(repeat: int, before: Path | None = None) -> dict[str, float]:
    """The user's path, as separate processes typed one after the other: ``litaudit runs
    import`` (into a database made by ``litaudit init``) then ``litaudit runs eval -m AP -m
    P@10 -m Rprec``, against bench/pytrec_eval_script.py (parse + evaluate in one process);
    medians of ``repeat`` alternated repetitions. Then the same eval again (values read
    back from the store). ``before``: a folder holding older code (its litaudit/, schema/
    and seeds/, e.g. from ``git archive REV litaudit schema seeds | tar -x -C DIR``), run
    the same way (first on PYTHONPATH) in each repetition, for a before/after figure."""
    import statistics

    lit = [sys.executable, "-m", "litaudit"]
    # bytecode as an installed wheel has it (pip compiles on install): where the
    # environment sets PYTHONDONTWRITEBYTECODE, each command would compile litaudit anew
    for code in [REPO] + ([before] if before is not None else []):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(code / "litaudit")], check=True
        )
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.duckdb"
        subprocess.run([*lit, "--db", str(base), "init"], check=True, capture_output=True)
        ours, peer, again, cpu, rss, floor = [], [], [], [], [], []
        old: list[tuple[float, float, float]] = []
        for _ in range(repeat):
            if before is not None:
                old.append(_cli_once(lit, tmp, base, before))
                print(
                    f"  before: two commands {old[-1][0]:.2f} s (CPU {old[-1][1]:.2f} s); "
                    f"eval again {old[-1][2]:.2f} s",
                    flush=True,
                )
            (t1, c1, r1), (t2, c2, r2), t3 = _two_commands(lit, Path(tmp) / "a.duckdb", base)
            ours.append(t1 + t2)
            cpu.append(c1 + c2)
            rss.append(max(r1, r2))
            again.append(t3)
            peer.append(
                run_child(
                    [
                        sys.executable,
                        str(REPO / "bench" / "pytrec_eval_script.py"),
                        str(QRELS),
                        str(RUNS),
                    ]
                )[0]
            )
            floor.append(2 * run_child([sys.executable, "-c", STACK_IMPORTS])[0])
            print(
                f"  runs import {t1:.2f} s + runs eval {t2:.2f} s = {t1 + t2:.2f} s "
                f"(CPU {c1 + c2:.2f} s, peak RSS {max(r1, r2):.0f} MiB); eval again "
                f"{again[-1]:.2f} s; pytrec_eval script {peer[-1]:.2f} s; two bare starts "
                f"{floor[-1]:.2f} s; load "
                f"{os.getloadavg()[0]:.2f}",
                flush=True,
            )
        med, pmed = statistics.median(ours), statistics.median(peer)
        if old:
            print(
                f"before ({before}): two commands median "
                f"{statistics.median(x[0] for x in old):.2f} s (CPU "
                f"{statistics.median(x[1] for x in old):.2f} s), ratio "
                f"{pmed / statistics.median(x[0] for x in old):.2f}x; repeated eval "
                f"{statistics.median(x[2] for x in old):.2f} s"
            )
        print(
            f"user's path (two commands): median {med:.2f} s (best {min(ours):.2f} s, CPU "
            f"{statistics.median(cpu):.2f} s): {'PASS' if med <= CLI_TARGET_S else 'MISS'} "
            f"(target {CLI_TARGET_S} s); pytrec_eval script median {pmed:.2f} s, ratio "
            f"{pmed / med:.2f}x: {'PASS' if pmed / med >= 2 else 'MISS'} (target 2x); "
            f"repeated eval {statistics.median(again):.2f} s; peak RSS {max(rss):.0f} MiB"
        )
        print(
            f"floor: two processes that only import the stack ({STACK_IMPORTS[7:]}) take "
            f"{statistics.median(floor):.2f} s (median); 2x the peer leaves "
            f"{pmed / 2 - statistics.median(floor):.2f} s for all the work of both commands"
        )
    return {
        "median": med,
        "low": min(ours),
        "high": max(ours),
        "cpu": statistics.median(cpu),
        "peer": pmed,
        "ratio": pmed / med,
        "again": statistics.median(again),
        "rss": max(rss),
        "floor": statistics.median(floor),
    }


def _two_commands(
    lit: list[str], db: Path, base: Path
) -> tuple[tuple[float, float, float], tuple[float, float, float], float]:
    """``runs import`` then ``runs eval`` into a fresh copy ``db`` of ``base``: (wall, CPU,
    peak RSS) of each, and the wall time of the eval asked again."""
    import shutil

    for p in db.parent.glob(db.name + "*"):
        p.unlink()
    shutil.copy(base, db)
    on = [*lit, "--db", str(db), "runs"]
    imp = run_child([*on, "import", "-c", "robust03", "--qrels", str(QRELS), str(RUNS)])
    ev = [*on, "eval", "-c", "robust03", "-m", "AP", "-m", "P@10", "-m", "Rprec"]
    first = run_child(ev)
    return imp, first, run_child(ev)[0]


def _cli_once(lit: list[str], tmp: str, base: Path, code: Path) -> tuple[float, float, float]:
    """(wall, CPU of the two commands, wall of the eval again) with the code in ``code``."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(code)
    try:
        (t1, c1, _), (t2, c2, _), t3 = _two_commands(lit, Path(tmp) / "b.duckdb", base)
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved
    return t1 + t2, c1 + c2, t3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--growth", action="store_true")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--repeat", type=int, default=7, help="litaudit repetitions (median)")
    ap.add_argument(
        "--cli",
        action="store_true",
        help="only the user's path: the two commands against a pytrec_eval script",
    )
    ap.add_argument(
        "--before",
        type=Path,
        help="with --cli: also time older code from this folder (its litaudit/, "
        "schema/, seeds/), alternating",
    )
    a = ap.parse_args()
    if a.child:
        print(json.dumps(litaudit_once(Path(a.child[0]), Path(a.child[1]))))
        return
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    if a.growth:
        sizes = [(13, 50, 1000), (130, 50, 1000)] + (
            [(1000, 50, 1000)] if a.full else [(260, 50, 1000)]
        )
        first = None
        for n_runs, n_top, depth in sizes:
            with tempfile.TemporaryDirectory() as tmp:
                rd, q = synth(Path(tmp), n_runs, n_top, depth)
                r = child(rd, q)
            per_line = r["total"] / r["lines"] * 1e6
            first = first or per_line
            print(
                f"{n_runs:5d} runs x {n_top} x {depth}: {r['lines']:>10,} lines  "
                f"total {r['total']:6.2f} s (import {r['import']:.2f}, eval "
                f"{r['eval']:.2f})  {per_line:.3f} us/line ({per_line / first:.2f}x the "
                f"smallest)  cpu {r['cpu']:6.2f} s  peak RSS {r['peak_rss_mib']:.0f} MiB  "
                f"load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
        return
    if not RUNS.is_dir():
        sys.exit(f"shared data not found at {RUNS}")
    print(
        "the user's path: `litaudit runs import` + `litaudit runs eval -m AP -m P@10 "
        "-m Rprec` (robust03) as two processes, against a pytrec_eval script"
    )
    cli_path(a.repeat, a.before)
    if a.cli:
        return
    in_process(a.repeat, peers=not a.no_peers)


def in_process(repeat: int, peers: bool = True) -> dict[str, float]:
    """Import and evaluate robust03 in one fresh process (``repeat`` times), then each
    peer once: the median, its range, the peak and each peer's ratio to the median."""
    results = []
    for _ in range(repeat):
        r = child(RUNS, QRELS)
        results.append(r)
        print(
            f"litaudit import {r['import']:.2f} s + eval {r['eval']:.2f} s = "
            f"{r['total']:.2f} s wall ({r['cpu']:.2f} s CPU) for {r['lines']:,} lines; "
            f"peak RSS {r['peak_rss_mib']:.0f} MiB; load {os.getloadavg()[0]:.2f} "
            f"(library imports before the clock: {r['startup_imports']:.2f} s)"
        )
    totals = sorted(x["total"] for x in results)
    med = totals[len(totals) // 2]
    rss = max(x["peak_rss_mib"] for x in results)
    print(
        f"litaudit median {med:.2f} s (best {totals[0]:.2f} s) of {len(totals)}: "
        f"{'PASS' if med <= TARGET_S else 'MISS'} (target {TARGET_S} s); peak RSS "
        f"{rss:.0f} MiB: {'PASS' if rss < TARGET_RSS_MIB else 'MISS'} (target 1 GiB)"
    )
    got = {"median": med, "low": totals[0], "high": totals[-1], "rss": rss}
    if not peers:
        return got
    for key, name, fn in [
        ("pytrec_eval", "pytrec_eval (Python parsing)", peer_pytrec_eval),
        ("ir_measures", "ir_measures", peer_ir_measures),
        ("ranx", "ranx (warm)", peer_ranx),
    ]:
        try:
            t = fn(RUNS, QRELS)
        except ImportError as exc:
            print(f"{name}: not installed ({exc})")
            continue
        got[key] = t / med
        print(f"{name}: {t:.2f} s  ratio {t / med:.1f}x litaudit")
    return got


if __name__ == "__main__":
    main()
