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
