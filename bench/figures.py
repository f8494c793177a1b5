"""The figures README.md and docs/*.md quote, measured and written into the docs.

Each quoted figure sits between markers, `<!-- fig:NAME -->0.7 s<!-- /fig -->`, and has an
entry in docs/figures.json (text, value, unit, source, command, commit, date, load
average, machine). This script runs the measurements it knows (MEASURED below, each
reusing a bench script's `measure` function), records them with the commit and the load,
then rewrites the text between every marker from the file, as cog does:

    .venv/bin/python bench/figures.py                 # measure all, rewrite the docs
    .venv/bin/python bench/figures.py --only help_ratio
    .venv/bin/python bench/figures.py --docs-only     # rewrite the docs from the file
    .venv/bin/python bench/figures.py --adopt         # mark figures typed since, as carried

An entry whose `source` is "carried" was measured before this file existed (by the
command named, or by hand) and typed into the docs at `commit`; nothing here re-runs it,
and it keeps that commit and date until a measurement replaces it. Blocks between
`<!-- figs:BENCH -->` and `<!-- /figs -->` hold the calibration percentages printed by
that bench script (`blocks` in the file). tests/repo/test_doc_figures.py fails when a
quoted figure has no entry or differs from it; it never runs a measurement.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures.json"
DOCS = ("README.md", "docs/DEVELOPING.md", "docs/STATISTICS.md")
MARKER = re.compile(r"<!-- fig:(?P<name>[\w.]+) -->(?P<text>.*?)<!-- /fig -->", re.S)

sys.path.insert(0, str(ROOT / "bench"))


@dataclass(frozen=True, kw_only=True)
class Measured:
    """A figure this script measures: `run` returns {name: (value, text)}."""

    names: tuple[str, ...]
    command: str
    run: Callable[[], dict[str, tuple[Any, str]]]


def _help_ratio() -> dict[str, tuple[float, str]]:
    import bench_help

    ours, peer, _heavy = bench_help.measure()
    ratio = ours / peer
    return {"developing.help_ratio": (round(ratio, 2), f"{ratio:.2f}x")}


def _results_list() -> dict[str, tuple[float, str]]:
    import bench_results_list

    with tempfile.TemporaryDirectory() as d:
        got = bench_results_list.measure(bench_results_list.seeded_db(Path(d)))
    # "either takes about X s of CPU": the slower of the pipe and --json cases
    cpu = max(got["results list | (pipe)"][1], got["results list --json"][1])
    return {"readme.results_list_cpu": (round(cpu, 1), f"{cpu:.1f} s")}


_SEEDS_LINE = re.compile(
    r"^\s*(?P<what>\S.*?)\s{2,}(?P<med>[\d.]+) (?P<unit>m?s)\s+\((?P<rest>.*)\)$"
)


def _seeds() -> dict[str, tuple[Any, str]]:
    """bench_seeds.py as printed (its lines parsed: the bench keeps its own layout)."""
    import contextlib
    import io

    import bench_seeds

    before = os.getloadavg()[0]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        bench_seeds.main([])
    after = os.getloadavg()[0]
    text = buf.getvalue()
    lines = [m for m in map(_SEEDS_LINE.match, text.splitlines()) if m]
    ranges = [re.match(r"range ([\d.]+)-([\d.]+)", m["rest"]) for m in lines]
    got = [
        (float(m["med"]), r and (float(r[1]), float(r[2])))
        for m, r in zip(lines, ranges, strict=True)
    ]
    # order of bench_seeds' lines: init wall, its CPU, summary wall, its CPU,
    # audit within the summary median, its slowest, one exact audit median, its slowest
    (iw, iwr), (ic, _), (sw, swr), (sc, scr), (am, _), (ax, _), (om, _), _ = got
    n, pops = re.search(r"every seed: (\d+) results; (\d+) collection", text).groups()
    load = f"load {before:.1f}-{after:.1f}"
    return {
        "readme.seeds_results": (int(n), f"{int(n):,}"),
        "readme.seeds_populations": (int(pops), pops),
        "readme.seeds_init": (
            [iw, ic],
            f"{iw:.1f} s wall ({iwr[0]:.1f}-{iwr[1]:.1f}), {ic:.1f} s CPU at {load}",
        ),
        "readme.seeds_summary": (
            [sw, sc],
            f"{sw:.1f} s wall ({swr[0]:.1f}-{swr[1]:.1f}), {sc:.1f} s CPU "
            f"({scr[0]:.1f}-{scr[1]:.1f}) at {load}",
        ),
        "readme.seeds_audit_inner": ([am, ax], f"{am:.1f} ms median, {ax:.1f} ms at most"),
        "readme.seeds_audit_one": (om, f"{om:.0f} ms median"),
    }


def _load(before: float) -> str:
    return f"load {before:.1f}-{os.getloadavg()[0]:.1f}"


def _runs() -> dict[str, tuple[Any, str]]:
    """bench_runs.py: the user's two commands on robust03, then the same in one process
    against the peers (each peer's time as a multiple of litaudit's median)."""
    import bench_runs

    before = os.getloadavg()[0]
    cli = bench_runs.cli_path(7)
    own = bench_runs.in_process(7)
    load = _load(before)
    peers = ", ".join(
        f"{label} {own[key]:.1f}x"
        for key, label in (
            ("pytrec_eval", "pytrec_eval"),
            ("ir_measures", "ir_measures"),
            ("ranx", "ranx (warm)"),
        )
        if key in own
    )
    return {
        "readme.runs_cli": (
            [cli["median"], cli["cpu"], cli["rss"]],
            f"{cli['median']:.2f} s wall ({cli['low']:.2f}-{cli['high']:.2f}), "
            f"{cli['cpu']:.2f} s CPU, peak {cli['rss']:,.0f} MiB at {load}",
        ),
        "readme.runs_cli_peer": (
            [cli["peer"], cli["ratio"]],
            f"{cli['peer']:.2f} s, {cli['ratio']:.2f}x litaudit's",
        ),
        "readme.runs_cli_again": (cli["again"], f"{cli['again']:.2f} s"),
        "readme.runs_in_process": (
            [own["median"], own["rss"]],
            f"{own['median']:.2f} s ({own['low']:.2f}-{own['high']:.2f}), peak "
            f"{own['rss']:,.0f} MiB at {load}",
        ),
        "readme.runs_peers": ([own.get(k) for k in ("pytrec_eval", "ir_measures", "ranx")], peers),
    }


def _report() -> dict[str, tuple[Any, str]]:
    import statistics

    import bench_report

    before = os.getloadavg()[0]
    rows = bench_report.measure(3)["this tree"]
    wall = statistics.median(r[0] for r in rows)
    cpu = statistics.median(r[1] for r in rows)
    mib = statistics.median(r[2] for r in rows) / 1024
    return {
        "readme.report_robust03": (
            [wall, cpu, mib],
            f"{wall:.1f} s wall, {cpu:.1f} s CPU, peak {mib:,.0f} MiB "
            f"({mib * 2**20 / 1e6:,.0f} MB) at {_load(before)}",
        )
    }


def _site() -> dict[str, tuple[Any, str]]:
    import bench_site

    got = bench_site.measure()
    (w1, c1), (w2, c2), (w3, c3) = got["builds"].values()
    load = f"load {got['load'][0]:.1f}-{got['load'][1]:.1f}"
    return {
        "readme.site_build": (
            [w1, c1, w2, c2, w3, c3],
            f"first build {w1:.1f} s wall ({c1:.1f} s CPU), unchanged store {w2:.1f} s "
            f"({c2:.1f} s), one result edited {w3:.1f} s ({c3:.1f} s) at {load}",
        ),
        "readme.site_size": (
            [got["pages"], got["mb"]],
            f"{got['pages']:,} pages, {got['mb']:.1f} MB on disk",
        ),
    }


def _runs_scale() -> dict[str, tuple[Any, str]]:
    """bench_runs_scale.py's 4-run size (27.9M lines), import then `runs eval -m AP`."""
    import bench_runs_scale

    before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.duckdb"
        subprocess.run(
            [*bench_runs_scale.LITAUDIT, "--db", str(base), "init"],
            check=True,
            cwd=ROOT,
            capture_output=True,
        )
        r = bench_runs_scale.one_size(Path(tmp), 4, base)
    load = _load(before)
    per = r["import"] / r["lines"] * 1e6
    return {
        "readme.scale_import": (
            [r["import"], r["cpu_import"], r["rss_import"]],
            f"{r['import']:.1f} s wall ({per:.2f} us a line), {r['cpu_import']:.1f} s CPU, "
            f"peak {r['rss_import']:,.0f} MiB at {load}",
        ),
        "readme.scale_eval": (
            [r["eval"], r["cpu_eval"], r["rss_eval"], r["eval_cached"]],
            f"{r['eval']:.1f} s wall, {r['cpu_eval']:.1f} s CPU, peak {r['rss_eval']:,.0f} "
            f"MiB; read back {r['eval_cached']:.2f} s",
        ),
    }


def _reuse_scale() -> dict[str, tuple[Any, str]]:
    """bench_reuse_scale.py's 110 runs from 14 groups (27.4M lines)."""
    import bench_reuse_scale as scale

    before = os.getloadavg()[0]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "litaudit")], check=True)
    got = scale.one_size(Path(tempfile.gettempdir()), 110, 14, 24, scale.TARGET_S)
    load = _load(before)
    out: dict[str, tuple[Any, str]] = {}
    for key, command in (
        ("verdict", "reuse verdict"),
        ("lou", "reuse lou"),
        ("rao", "reuse rao"),
        ("report", "report"),
    ):
        wall, cpu, gib = got[command]
        out[f"readme.reuse_scale_{key}"] = (
            [wall, cpu, gib],
            f"{wall:.1f} s wall, {cpu:.1f} s CPU, {gib:.2f} GiB",
        )
    wall, cpu, gib = got["import"]
    out["readme.reuse_scale_import"] = (
        [wall, cpu, gib],
        f"{wall:.0f} s wall, {cpu:.0f} s CPU, {gib:.2f} GiB at {load}",
    )
    return out


MEASURED = {
    "help_ratio": Measured(
        names=("developing.help_ratio",),
        command="python bench/bench_help.py",
        run=_help_ratio,
    ),
    "seeds": Measured(
        names=(
            "readme.seeds_results",
            "readme.seeds_populations",
            "readme.seeds_init",
            "readme.seeds_summary",
            "readme.seeds_audit_inner",
            "readme.seeds_audit_one",
        ),
        command="python bench/bench_seeds.py",
        run=_seeds,
    ),
    "results_list": Measured(
        names=("readme.results_list_cpu",),
        command="python bench/bench_results_list.py",
        run=_results_list,
    ),
    "runs": Measured(
        names=(
            "readme.runs_cli",
            "readme.runs_cli_peer",
            "readme.runs_cli_again",
            "readme.runs_in_process",
            "readme.runs_peers",
        ),
        command="python bench/bench_runs.py",
        run=_runs,
    ),
    "report": Measured(
        names=("readme.report_robust03",),
        command="python bench/bench_report.py",
        run=_report,
    ),
    "site": Measured(
        names=("readme.site_build", "readme.site_size"),
        command="python bench/bench_site.py",
        run=_site,
    ),
    "runs_scale": Measured(
        names=("readme.scale_import", "readme.scale_eval"),
        command="python bench/bench_runs_scale.py --runs 4",
        run=_runs_scale,
    ),
    "reuse_scale": Measured(
        names=(
            "readme.reuse_scale_import",
            "readme.reuse_scale_verdict",
            "readme.reuse_scale_lou",
            "readme.reuse_scale_rao",
            "readme.reuse_scale_report",
        ),
        command="python bench/bench_reuse_scale.py --runs 110 --groups 14",
        run=_reuse_scale,
    ),
}


def load() -> dict:
    return json.loads(FIGURES.read_text())


def save(data: dict) -> None:
    """One figure a line, sorted by name: a new measurement is a one-line diff."""
    figs = data["figures"]
    lines = [f"  {json.dumps(k)}: {json.dumps(figs[k], ensure_ascii=False)}" for k in sorted(figs)]
    head = {k: v for k, v in data.items() if k != "figures"}
    text = json.dumps(head, indent=1, ensure_ascii=False)[:-2]
    FIGURES.write_text(text + ',\n "figures": {\n' + ",\n".join(lines) + "\n }\n}\n")


def _commit() -> str:
    out = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short=7", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def measure(data: dict, which: list[str]) -> None:
    """Run the measurements named (all if none) and record them in `data`."""
    for key in which or list(MEASURED):
        m = MEASURED[key]
        load_before = os.getloadavg()[0]
        got = m.run()
        load_after = os.getloadavg()[0]
        for name in m.names:
            value, text = got[name]
            data["figures"][name] = {
                "text": text,
                "value": value,
                "unit": data["figures"].get(name, {}).get("unit"),
                "source": "measured",
                "command": m.command,
                "commit": _commit(),
                "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
                "load": f"{load_before:.1f}-{load_after:.1f}",
                "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
            }
            print(f"{name}: {text} (load {load_before:.1f}-{load_after:.1f})")


def rewrite_docs(data: dict) -> list[str]:
    """Write each marker's text from `data`; returns the files changed."""
    figs, changed = data["figures"], []
    for rel in DOCS:
        path = ROOT / rel
        old = path.read_text()
        missing = sorted({m.group("name") for m in MARKER.finditer(old)} - set(figs))
        if missing:
            raise SystemExit(f"{rel}: no entry in {FIGURES.name} for {', '.join(missing)}")
        new = MARKER.sub(
            lambda m: f"<!-- fig:{m.group('name')} -->{figs[m.group('name')]['text']}<!-- /fig -->",
            old,
        )
        if new != old:
            path.write_text(new)
            changed.append(rel)
    return changed


def _blame(rel: str) -> list[tuple[str, str]]:
    """(commit, date) that last changed each line of `rel`, from git blame."""
    out = subprocess.run(
        ["git", "-C", str(ROOT), "blame", "--line-porcelain", "--", rel],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    dates: dict[str, str] = {}
    lines: list[tuple[str, str]] = []
    commit = ""
    for line in out.splitlines():
        if line.startswith("\t"):
            lines.append((commit[:7], dates[commit]))
        elif re.match(r"^[0-9a-f]{40} ", line):
            commit = line.split()[0]
        elif line.startswith("committer-time "):
            when = datetime.datetime.fromtimestamp(int(line.split()[1]), datetime.UTC)
            dates[commit] = when.strftime("%Y-%m-%d")
    return lines


def adopt(data: dict) -> int:
    """Mark every figure the docs test finds unmarked, as carried from the commit that
    typed its line (uncommitted lines: HEAD, today). Returns how many were marked."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "test_doc_figures", ROOT / "tests" / "repo" / "test_doc_figures.py"
    )
    assert spec is not None and spec.loader is not None
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    figs, count = data["figures"], 0
    for rel in check.DOCS:
        path = ROOT / rel
        text = path.read_text()
        spans = check.unmarked_spans(rel, text)
        if not spans:
            continue
        blamed = _blame(rel)
        masked = re.sub(r"```.*?```", lambda m: re.sub(r"[^\n]", " ", m[0]), text, flags=re.S)
        doc = Path(rel).stem.lower()
        out, pos = [], 0
        for a, z in spans:
            heads = list(re.finditer(r"^##+ (.*)$", masked[:a], flags=re.M))
            title = text[heads[-1].start(1) : heads[-1].end(1)] if heads else "top"
            section = "_".join(re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_").split("_")[:3])
            k = 1
            while f"{doc}.{section}.{k}" in figs:
                k += 1
            name = f"{doc}.{section}.{k}"
            line = text.count("\n", 0, a)
            commit, date = blamed[line] if line < len(blamed) else (_commit(), "")
            if set(commit) == {"0"}:  # not committed yet
                commit = _commit()
                date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
            quoted = text[a:z].replace("\n", " ")
            nums = [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", quoted)]
            unit = re.sub(r"^[\d.,\s-]+", "", quoted)
            figs[name] = {
                "text": quoted,
                "value": nums[0] if len(nums) == 1 else nums,
                "unit": unit,
                "source": "carried",
                "command": None,
                "commit": commit,
                "date": date,
                "load": None,
                "machine": None,
            }
            out.append(text[pos:a] + f"<!-- fig:{name} -->{quoted}<!-- /fig -->")
            pos, count = z, count + 1
        out.append(text[pos:])
        path.write_text("".join(out))
        print(f"{rel}: {len(spans)} figures marked as carried")
    return count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", choices=sorted(MEASURED), default=[])
    ap.add_argument("--docs-only", action="store_true", help="rewrite the docs, measure nothing")
    ap.add_argument(
        "--adopt",
        action="store_true",
        help="mark the figures typed without a marker as carried (after a merge), measure nothing",
    )
    args = ap.parse_args(argv)
    data = load()
    if args.adopt:
        adopt(data)
        save(data)
        return 0
    if not args.docs_only:
        measure(data, args.only)
        save(data)
    changed = rewrite_docs(data)
    print(f"docs rewritten: {', '.join(changed) or 'none changed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
