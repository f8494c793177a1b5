"""The measure registry: ir_measures names, trec_eval aliases, value ranges.

Pure and light (no heavy imports): the CLI, the store's reference data and the
evaluator all parse measure names here. In the results store a measure names the
*mean over topics* (MAP is stored as AP), as ir_measures does.

Syntax accepted (case-insensitive on the family):
  ir_measures: AP, AP@1000, P@10, R@100, nDCG, nDCG@20, RR, Rprec, Bpref
  trec_eval:   map, P_10, recall_100, ndcg, ndcg_cut_20, recip_rank, Rprec, bpref
  common:      MAP -> AP, MRR -> RR, MRR@10 -> RR@10
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from litaudit.errors import NotFound


@dataclass(frozen=True)
class MeasureFamily:
    name: str              # canonical ir_measures family name
    cutoff: bool           # does the family take @k
    description: str
    citation: str
    aliases: tuple[str, ...] = ()


FAMILIES: dict[str, MeasureFamily] = {
    f.name: f
    for f in [
        MeasureFamily("AP", True, "average precision (MAP is its mean over topics)",
                      "Harman, TREC-1 overview (1992); trec_eval 'map'", ("map", "ap")),
        MeasureFamily("P", True, "precision at a rank cutoff", "trec_eval 'P_k'", ("p",)),
        MeasureFamily("R", True, "recall at a rank cutoff", "trec_eval 'recall_k'",
                      ("r", "recall")),
        MeasureFamily("nDCG", True, "normalised discounted cumulative gain",
                      "Jarvelin and Kekalainen, TOIS 2002; trec_eval 'ndcg_cut_k'",
                      ("ndcg", "ndcg_cut")),
        MeasureFamily("RR", True, "reciprocal rank of the first relevant document",
                      "trec_eval 'recip_rank'", ("rr", "recip_rank", "mrr")),
        MeasureFamily("Rprec", False, "precision at rank R (R = number of relevant)",
                      "trec_eval 'Rprec'", ("rprec", "r-prec")),
        MeasureFamily("Bpref", False, "binary preference", "Buckley and Voorhees, SIGIR 2004",
                      ("bpref",)),
    ]
}

_ALIAS = {a: f.name for f in FAMILIES.values() for a in f.aliases + (f.name.lower(),)}
_PATTERNS = [
    re.compile(r"^(?P<fam>[A-Za-z][A-Za-z_\-]*?)@(?P<k>\d+)$"),           # P@10, nDCG@20
    re.compile(r"^(?P<fam>ndcg_cut|recall|P|map_cut|success)_(?P<k>\d+)$", re.I),  # trec_eval
    re.compile(r"^(?P<fam>[A-Za-z][A-Za-z_\-]*)$"),                        # AP, map, Rprec
]


@dataclass(frozen=True, order=True)
class MeasureName:
    family: str
    cutoff: int | None = None

    def __str__(self) -> str:
        return self.family if self.cutoff is None else f"{self.family}@{self.cutoff}"

    @property
    def min_value(self) -> float:
        return 0.0

    @property
    def max_value(self) -> float:
        return 1.0

    @property
    def trec_eval(self) -> str:
        """The trec_eval name of this measure."""
        k = self.cutoff
        return {
            "AP": "map" if k is None else f"map_cut_{k}",
            "P": f"P_{k}",
            "R": f"recall_{k}",
            "nDCG": "ndcg" if k is None else f"ndcg_cut_{k}",
            "RR": "recip_rank",
            "Rprec": "Rprec",
            "Bpref": "bpref",
        }[self.family]


def parse_measure(text: str) -> MeasureName:
    """Parse an ir_measures or trec_eval measure name. Raises NotFound with a suggestion."""
    s = text.strip()
    for pat in _PATTERNS:
        m = pat.match(s)
        if not m:
            continue
        fam_key = m.group("fam").lower()
        if fam_key == "map_cut":
            fam_key = "ap"
        fam = _ALIAS.get(fam_key)
        if fam is None:
            break
        k = int(m.group("k")) if "k" in m.groupdict() and m.group("k") else None
        if k is not None and not FAMILIES[fam].cutoff:
            raise NotFound(f"measure {text!r}: {fam} takes no cutoff")
        if k is not None and k < 1:
            raise NotFound(f"measure {text!r}: the cutoff must be at least 1")
        if fam == "P" and k is None:
            raise NotFound(f"measure {text!r}: precision needs a cutoff, e.g. P@10")
        if fam == "R" and k is None:
            raise NotFound(f"measure {text!r}: recall needs a cutoff, e.g. R@1000")
        return MeasureName(fam, k)
    raise NotFound(f"unknown measure {text!r}{did_you_mean(text, KNOWN_NAMES)}")


def did_you_mean(text: str, choices) -> str:
    """'' or "; did you mean 'X'?" for the closest of ``choices`` (case-insensitive)."""
    lower = {c.lower(): c for c in choices}
    hit = difflib.get_close_matches(text.lower(), list(lower), n=1, cutoff=0.6)
    return f"; did you mean {lower[hit[0]]!r}?" if hit else ""


# The measures the store knows by default (reference data loaded into `measures`).
DEFAULT_MEASURES = [
    "AP", "P@5", "P@10", "P@20", "P@30", "P@100", "Rprec", "Bpref", "nDCG", "nDCG@5",
    "nDCG@10", "nDCG@20", "R@100", "R@1000", "RR", "RR@10", "RR@100",
]
KNOWN_NAMES = DEFAULT_MEASURES + ["MAP", "map", "P_10", "ndcg_cut_20", "recip_rank", "MRR@10"]


def aliases_for(m: MeasureName) -> list[str]:
    """Lower-case aliases stored for a measure (every spelling that parses to it)."""
    out = {str(m).lower(), m.trec_eval.lower()}
    if m.family == "AP" and m.cutoff is None:
        out |= {"map", "ap"}
    if m.family == "RR":
        out.add("mrr" if m.cutoff is None else f"mrr@{m.cutoff}")
    if m.family == "nDCG" and m.cutoff is not None:
        out.add(f"ndcg_cut.{m.cutoff}")
    return sorted(out)
