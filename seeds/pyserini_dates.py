"""When each of Pyserini's two-click reproduction scores entered its YAML file (issue 32).

A developer script, never run by `litaudit init`: for every score of
``../shared/data/published/pyserini_2cr.csv`` it finds the YAML line that holds the
value (``MRR@10: 0.3999``, under the condition's ``topic_key`` or ``dataset``) in
castorini/pyserini at the pinned commit and the date git blame gives that line, the day
the commit that put this value there was authored. It writes ``seeds/pyserini_lines.csv.gz``
(the score's file, condition line, topics, measure and value; the YAML line number, its
date and its text), which ``seeds/transcribe.py`` reads to date the rows of
``results/pyserini_2cr.csv.gz``, so that the reproductions are dated by their commit and
not by the day the files were read (2026-08-07).

    python seeds/pyserini_dates.py                  # read the mirror, rewrite the file
    python seeds/pyserini_dates.py --check          # exit 1 if the file is out of date
    python seeds/pyserini_dates.py --mirrors DIR    # mirror elsewhere (default /work/.mirror)
    python seeds/pyserini_dates.py --data DIR       # the shared data folder elsewhere

The mirror is a bare git directory ``DIR/castorini+pyserini/repo`` (the project's ``fetch``
tool makes it); the YAML files are read with ``git show`` and ``git blame --line-porcelain``
at the pinned commit, never at HEAD. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import gzip
import io
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

SEEDS = Path(__file__).resolve().parent
OUT = SEEDS / "pyserini_lines.csv.gz"
DEFAULT_MIRRORS = Path("/work/.mirror")
DEFAULT_DATA = SEEDS.parent.parent / "shared" / "data"
REPO = "castorini/pyserini"
SOURCE = "published/pyserini_2cr.csv"
COLUMNS = ["file", "condition_line", "topics", "measure", "value", "commit", "line", "date", "text"]


class NotFound(Exception):
    """A score whose YAML line cannot be found: the data and the commit disagree."""


def score_line(lines: list[str], start: int, topics: str, measure: str, value: str) -> int:
    """The 1-based line of ``measure: value`` under ``topics`` in the condition that starts
    at line ``start`` (its ``- name:`` line)."""
    indent = len(lines[start - 1]) - len(lines[start - 1].lstrip())
    in_topic = False
    key = re.compile(r"^\s*-?\s*(topic_key|dataset):\s*(\S+)\s*$")
    score = re.compile(r"^\s*-?\s*" + re.escape(measure) + r":\s*(\S+)\s*$")
    for i in range(start, len(lines)):  # i is 0-based: line i + 1
        text = lines[i]
        stripped = text.lstrip()
        if stripped.startswith("- name:") and len(text) - len(stripped) <= indent:
            break  # the next condition
        m = key.match(text)
        if m:
            in_topic = m[2] == topics
            continue
        m = score.match(text) if in_topic else None
        if m:
            if Decimal(m[1]) != Decimal(value):  # 0.986 printed, 0.9860 in the data
                raise NotFound(f"line {i + 1} holds {m[1]}, the data {value}")
            return i + 1
    raise NotFound(f"no {measure} of {topics} in the condition at line {start}")


def blame_dates(git: Path, commit: str, path: str) -> list[str]:
    """The date (UTC day of the author time) git blame gives each line at ``commit``."""
    out = subprocess.run(
        ["git", "--git-dir", str(git), "blame", "--line-porcelain", commit, "--", path],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [
        dt.datetime.fromtimestamp(int(b.split()[1]), dt.UTC).date().isoformat()
        for b in out.splitlines()
        if b.startswith("author-time ")
    ]


def build(data: Path, git: Path) -> str:
    """The kept lines as CSV text, one per score of the data file, in its order."""
    with (data / SOURCE).open(newline="", encoding="utf-8") as f:
        recs = list(csv.DictReader(f))
    texts: dict[tuple[str, str], list[str]] = {}
    dates: dict[tuple[str, str], list[str]] = {}
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for n, r in enumerate(recs, start=2):
        k = (r["commit"], r["file"])
        if k not in texts:
            texts[k] = subprocess.run(
                ["git", "--git-dir", str(git), "show", f"{k[0]}:{k[1]}"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.splitlines()
            dates[k] = blame_dates(git, *k)
        try:
            line = score_line(texts[k], int(r["line"]), r["topics"], r["measure"], r["value"])
        except NotFound as e:
            raise SystemExit(f"{SOURCE}, line {n}: {e}") from None
        w.writerow(
            {
                "file": r["file"],
                "condition_line": r["line"],
                "topics": r["topics"],
                "measure": r["measure"],
                "value": r["value"],
                "commit": r["commit"],
                "line": line,
                "date": dates[k][line - 1],
                "text": texts[k][line - 1].strip(),
            }
        )
    return buf.getvalue()


def read_kept(path: Path = OUT) -> dict[tuple[str, str, str, str], dict]:
    """(file, condition line, topics, measure) -> the kept line's record."""
    with io.StringIO(gzip.decompress(path.read_bytes()).decode("utf-8"), newline="") as f:
        return {
            (r["file"], r["condition_line"], r["topics"], r["measure"]): r
            for r in csv.DictReader(f)
        }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    a = ap.parse_args(argv)
    git = a.mirrors / REPO.replace("/", "+") / "repo"
    if not git.is_dir():
        print(f"no mirror of {REPO} at {git}", file=sys.stderr)
        return 2
    text = build(a.data, git)
    if a.check:
        same = OUT.exists() and gzip.decompress(OUT.read_bytes()).decode("utf-8") == text
        if not same:
            print(f"out of date: {OUT.name}", file=sys.stderr)
        return 0 if same else 1
    OUT.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    print(f"{OUT.name}: {text.count(chr(10)) - 1} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
