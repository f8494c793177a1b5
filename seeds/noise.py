"""Derive seeds/reference_noise.json from the shared per-topic score matrices.

A developer script, never run by `litaudit init`: the loader reads only the JSON this
writes (the matrices stay in ../shared; only the figures derived from them are seeded).

    python seeds/noise.py             # rewrite seeds/reference_noise.json
    python seeds/noise.py --check     # exit 1 if the file differs from what the data give
    python seeds/noise.py --data DIR  # shared data elsewhere (default ../shared/data)

Source: the topic x run score matrices of Julian Urbano's SIGIR 2018 and SIGIR 2019
archives (CC BY-SA 4.0, posted with the TREC organisers' permission), read from
``pertopic/`` of the shared data folder. For each matrix: the two-way ANOVA without
replication (:func:`litaudit.stats.noise.topic_interaction`) gives the interaction se
``sqrt(MS_interaction / n)`` of one run's mean; :func:`litaudit.stats.noise.residual_sds`
each run's residual sd (runs differ in noise); plus the topic and run counts.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np

from litaudit.stats.noise import residual_sds, topic_interaction

SEEDS = Path(__file__).resolve().parent
OUT = SEEDS / "reference_noise.json"
DEFAULT_DATA = SEEDS.parent.parent / "shared" / "data"
DIGITS = 6  # significant digits kept of each derived figure
CITATION = (
    "Urbano's per-topic score matrices (SIGIR 2018 and SIGIR 2019 archives, CC BY-SA 4.0, "
    "posted with the TREC organisers' permission)"
)

# matrix file stem -> (collection id, collection, measure): ids as seeds/collections.json
# has them; the collections it lacks (TREC-5 ad hoc, the ClueWeb Web tracks) by their
# ir_datasets id (TREC-5 has none: ours, like trec6-adhoc), used once such a collection is
# added (`collections add` or collections.json).
MATRICES = {
    "adhoc5_ap": ("trec5-adhoc", "TREC-5 ad hoc", "AP"),
    "adhoc5_p10": ("trec5-adhoc", "TREC-5 ad hoc", "P@10"),
    "adhoc6_ap": ("trec6-adhoc", "TREC-6 ad hoc", "AP"),
    "adhoc6_p10": ("trec6-adhoc", "TREC-6 ad hoc", "P@10"),
    "adhoc7_ap": ("disks45/nocr/trec7", "TREC-7 ad hoc", "AP"),
    "adhoc7_p10": ("disks45/nocr/trec7", "TREC-7 ad hoc", "P@10"),
    "adhoc8_ap": ("disks45/nocr/trec8", "TREC-8 ad hoc", "AP"),
    "adhoc8_p10": ("disks45/nocr/trec8", "TREC-8 ad hoc", "P@10"),
    "robust2004_ap": ("disks45/nocr/trec-robust-2004", "TREC 2004 Robust", "AP"),
    "robust2004_p10": ("disks45/nocr/trec-robust-2004", "TREC 2004 Robust", "P@10"),
    "web2010_ap": ("clueweb09/trec-web-2010", "TREC 2010 Web", "AP"),
    "web2010_ndcg20": ("clueweb09/trec-web-2010", "TREC 2010 Web", "nDCG@20"),
    "web2011_ap": ("clueweb09/trec-web-2011", "TREC 2011 Web", "AP"),
    "web2011_ndcg20": ("clueweb09/trec-web-2011", "TREC 2011 Web", "nDCG@20"),
    "web2012_ap": ("clueweb09/trec-web-2012", "TREC 2012 Web", "AP"),
    "web2012_ndcg20": ("clueweb09/trec-web-2012", "TREC 2012 Web", "nDCG@20"),
    "web2013_ap": ("clueweb12/trec-web-2013", "TREC 2013 Web", "AP"),
    "web2013_ndcg20": ("clueweb12/trec-web-2013", "TREC 2013 Web", "nDCG@20"),
    "web2014_ap": ("clueweb12/trec-web-2014", "TREC 2014 Web", "AP"),
    "web2014_ndcg20": ("clueweb12/trec-web-2014", "TREC 2014 Web", "nDCG@20"),
}


def read_matrix(path: Path) -> np.ndarray:
    """The runs x topics scores of one matrix file (rows of the file = topics; a leading
    ``topic`` column is dropped)."""
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    start = 1 if header and header[0] == "topic" else 0
    x = np.array([[float(v) for v in r[start:]] for r in body], dtype=np.float64)
    return x.T


def _sig(x: float) -> float:
    return float(f"{x:.{DIGITS}g}")


def derive(data: Path) -> dict:
    folder = data / "pertopic"
    if not folder.is_dir():
        raise SystemExit(f"{folder}: no such folder (give --data DIR)")
    rows = []
    for stem, (cid, title, measure) in MATRICES.items():
        path = folder / f"{stem}.csv"
        x = read_matrix(path)
        it = topic_interaction(x)
        sds = residual_sds(x)
        rows.append(
            {
                "collection_id": cid,
                "measure": measure,
                "n_topics": it.n_topics,
                "n_runs": it.n_systems,
                "se": _sig(it.se),
                "ms_interaction": _sig(it.ms_interaction),
                "mean": _sig(it.grand_mean),
                "residual_sds": [_sig(s) for s in sds],
                "source": f"{title} {measure}: {it.n_systems} runs x {it.n_topics} topics, "
                f"pertopic/{stem}.csv of {CITATION}",
            }
        )
    return {
        "about": "reference noise per collection and measure, derived by seeds/noise.py; "
        "see seeds/README.md",
        "citation": CITATION,
        "noise": rows,
    }


def render(doc: dict) -> str:
    """One matrix a line (a change to one shows as that line in a diff)."""
    rows = ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in doc["noise"])
    head = json.dumps({k: v for k, v in doc.items() if k != "noise"}, ensure_ascii=False)
    return head[:-1] + ', "noise": [\n' + rows + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    ap.add_argument(
        "--check", action="store_true", help="compare with the file on disk instead of writing"
    )
    args = ap.parse_args(argv)
    doc = derive(args.data)
    text = render(doc)
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(
                f"{OUT.name} differs from what {args.data} gives: run seeds/noise.py",
                file=sys.stderr,
            )
            return 1
        print(f"{OUT.name}: up to date")
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.name}: {len(doc['noise'])} matrices")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
