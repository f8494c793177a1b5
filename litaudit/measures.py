"""The measure registry: one declaration per measure, the parser, and the evaluator's key.

Pure and light (stdlib only): the CLI, the store's reference data and the evaluator all
read measures here. Each measure is a short declaration (after ir_measures'
``measures/*.py``): its ir_measures name, whether it takes a rank cutoff ``@k``, its
aliases, its trec_eval spellings, a description and a citation. The evaluator
(:mod:`litaudit.runs.evaluate`) has one provider per declared name and dispatches on
:attr:`MeasureName.family`; a test checks that both lists agree. In the results store a
measure names the *mean over topics* (MAP is stored as AP), as ir_measures does.

Spellings accepted (case-insensitive on the name):
  ir_measures: AP, AP@10, AP@1000, P@10, R@100, nDCG, nDCG@20, RR, RR@10, Rprec, Bpref
  trec_eval:   map, map_cut_100, P_10, P.10, recall_1000, recall.1000, ndcg, ndcg_cut_20,
               ndcg_cut.20, recip_rank, Rprec, bpref
  common:      MAP -> AP, MRR -> RR, MRR@10 -> RR@10
``RR`` is trec_eval's ``recip_rank`` (the first relevant document at any rank); ``RR@k``
is ir_measures' (the first relevant document within the top k, else 0): ``recip_rank``
is ``RR``, never ``RR@10``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from litaudit.errors import NotFound

NO, OPTIONAL, REQUIRED = "no", "optional", "required"  # does the measure take @k


@dataclass(frozen=True)
class Measure:
    """One measure family, declared once.

    ``cutoff``: whether ``@k`` is refused, allowed or needed; ``aliases``: other names of
    the family (lower-case); ``trec_eval``: trec_eval's name without a cutoff (None: it
    needs one); ``trec_eval_cut``: trec_eval's name of the cut version, written
    ``<name>_k`` or ``<name>.k`` (None: trec_eval has none).
    """

    name: str
    cutoff: str
    description: str
    citation: str
    aliases: tuple[str, ...] = ()
    trec_eval: str | None = None
    trec_eval_cut: str | None = None
    min_value: float = 0.0
    max_value: float = 1.0


_DECLARED = (
    Measure(
        "AP",
        OPTIONAL,
        "average precision (MAP is its mean over topics)",
        "Harman, TREC-1 overview (1992); trec_eval 'map'",
        ("ap", "map"),
        trec_eval="map",
        trec_eval_cut="map_cut",
    ),
    Measure(
        "P", REQUIRED, "precision at a rank cutoff", "trec_eval 'P_k'", ("p",), trec_eval_cut="P"
    ),
    Measure(
        "R",
        REQUIRED,
        "recall at a rank cutoff",
        "trec_eval 'recall_k'",
        ("r", "recall"),
        trec_eval_cut="recall",
    ),
    Measure(
        "nDCG",
        OPTIONAL,
        "normalised discounted cumulative gain",
        "Jarvelin and Kekalainen, TOIS 2002; trec_eval 'ndcg', 'ndcg_cut_k'",
        ("ndcg",),
        trec_eval="ndcg",
        trec_eval_cut="ndcg_cut",
    ),
    Measure(
        "RR",
        OPTIONAL,
        "reciprocal rank of the first relevant document (@k: within the top k, else 0)",
        "Voorhees, TREC-8 QA overview (1999); trec_eval 'recip_rank'; ir_measures 'RR@k'",
        ("rr", "mrr", "recip_rank"),
        trec_eval="recip_rank",
    ),
    Measure(
        "Rprec",
        NO,
        "precision at rank R (R = number of relevant)",
        "trec_eval 'Rprec'",
        ("rprec", "r-prec", "r_prec"),
        trec_eval="Rprec",
    ),
    Measure(
        "Bpref",
        NO,
        "binary preference",
        "Buckley and Voorhees, SIGIR 2004",
        ("bpref",),
        trec_eval="bpref",
    ),
)
FAMILIES: dict[str, Measure] = {m.name: m for m in _DECLARED}

# every lower-case family spelling -> family; trec_eval cut names -> family
_FAMILY_OF = {a: m.name for m in _DECLARED for a in (m.name.lower(), *m.aliases)}
_CUT_OF = {m.trec_eval_cut.lower(): m.name for m in _DECLARED if m.trec_eval_cut}
_IR = re.compile(r"^(?P<fam>[A-Za-z][A-Za-z_\-]*?)@(?P<k>\d+)$")  # P@10, nDCG@20
_TREC = re.compile(r"^(?P<fam>[A-Za-z][A-Za-z_\-]*?)[_.](?P<k>\d+)$")  # P_10, P.10
_BARE = re.compile(r"^[A-Za-z][A-Za-z_\-]*$")  # AP, map


@dataclass(frozen=True, order=True)
class MeasureName:
    """A parsed measure: its family and cutoff (``str`` is the canonical spelling)."""

    family: str
    cutoff: int | None = None

    def __str__(self) -> str:
        return self.family if self.cutoff is None else f"{self.family}@{self.cutoff}"

    @property
    def declaration(self) -> Measure:
        return FAMILIES[self.family]

    @property
    def min_value(self) -> float:
        return self.declaration.min_value

    @property
    def max_value(self) -> float:
        return self.declaration.max_value

    @property
    def trec_eval(self) -> str | None:
        """trec_eval's name of this measure (None: trec_eval has no such measure)."""
        d = self.declaration
        if self.cutoff is None:
            return d.trec_eval
        return f"{d.trec_eval_cut}_{self.cutoff}" if d.trec_eval_cut else None


_MAX_CUTOFF = 2**31 - 1


def _cutoff(digits: str) -> int:
    """A cutoff's digits as a number (any too long for one is past the largest)."""
    return int(digits) if len(digits) <= 12 else _MAX_CUTOFF + 1


def parse_measure(text: str) -> MeasureName:
    """Parse an ir_measures or trec_eval measure name. Raises NotFound with a suggestion."""
    s = text.strip()
    fam, k = None, None
    if m := _IR.match(s):
        fam, k = _FAMILY_OF.get(m.group("fam").lower()), _cutoff(m.group("k"))
    elif m := _TREC.match(s):
        fam, k = _CUT_OF.get(m.group("fam").lower()), _cutoff(m.group("k"))
    elif _BARE.match(s):
        fam = _FAMILY_OF.get(s.lower())
    if fam is None:
        raise NotFound(f"unknown measure {text!r}{did_you_mean(text, KNOWN_NAMES)}")
    decl = FAMILIES[fam]
    if k is not None and decl.cutoff == NO:
        raise NotFound(f"measure {text!r}: {fam} takes no cutoff")
    if k is not None and k < 1:
        raise NotFound(f"measure {text!r}: the cutoff must be at least 1")
    if k is not None and k > _MAX_CUTOFF:  # the measures table's INTEGER column
        raise NotFound(f"measure {text!r}: the cutoff is too large (at most {_MAX_CUTOFF})")
    if k is None and decl.cutoff == REQUIRED:
        raise NotFound(f"measure {text!r}: {decl.description} needs a cutoff, e.g. {fam}@10")
    return MeasureName(fam, k)


def did_you_mean(text: str, choices) -> str:
    """'' or "; did you mean 'X'?" for the closest of ``choices`` (case-insensitive)."""
    lower = {c.lower(): c for c in choices}
    hit = difflib.get_close_matches(text.lower(), list(lower), n=1, cutoff=0.6)
    return f"; did you mean {lower[hit[0]]!r}?" if hit else ""


# The measures the store knows by default (reference data loaded into `measures`).
# AP@10: MTEB's BEIR results (seeds/results, trec_eval 'map_cut_10')
DEFAULT_MEASURES = [
    "AP",
    "AP@10",
    "P@5",
    "P@10",
    "P@20",
    "P@30",
    "P@100",
    "Rprec",
    "Bpref",
    "nDCG",
    "nDCG@5",
    "nDCG@10",
    "nDCG@20",
    "R@100",
    "R@1000",
    "RR",
    "RR@10",
    "RR@100",
]
KNOWN_NAMES = DEFAULT_MEASURES + [
    "MAP",
    "map",
    "P_10",
    "P.10",
    "ndcg_cut_20",
    "recall_1000",
    "recip_rank",
    "MRR@10",
]


def aliases_for(m: MeasureName) -> list[str]:
    """Lower-case spellings stored for a measure (each parses to it and to nothing else)."""
    d = m.declaration
    k = m.cutoff
    fams = (d.name.lower(), *d.aliases)
    out = {f if k is None else f"{f}@{k}" for f in fams}
    te = m.trec_eval
    if te is not None:
        out.add(te.lower())
        if k is not None:
            out.add(f"{d.trec_eval_cut}.{k}".lower())
    out = {a for a in out if _parses_to(a, m)}
    return sorted(out)


def _parses_to(text: str, m: MeasureName) -> bool:
    try:
        return parse_measure(text) == m
    except NotFound:
        return False
