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

A binary measure may name the lowest relevant grade, ir_measures' ``rel`` parameter:
``AP(rel=2)``, ``AP(rel=2)@100``, ``R(rel=2)@1000`` are trec_eval's ``-l 2`` values (grade 1
counts as not relevant: the TREC Deep Learning passage convention). ``AP(rel=1)`` is
``AP``. A value computed with ``-l 2`` is a different measure from one computed without:
it is stored under its own name, never mixed into the other's population.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache

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
    binary: bool = False  # relevant or not: takes ir_measures' rel (trec_eval -l)


_DECLARED = (
    Measure(
        "AP",
        OPTIONAL,
        "average precision (MAP is its mean over topics)",
        "Harman, TREC-1 overview (1992); trec_eval 'map'",
        ("ap", "map"),
        trec_eval="map",
        trec_eval_cut="map_cut",
        binary=True,
    ),
    Measure(
        "P",
        REQUIRED,
        "precision at a rank cutoff",
        "trec_eval 'P_k'",
        ("p",),
        trec_eval_cut="P",
        binary=True,
    ),
    Measure(
        "R",
        REQUIRED,
        "recall at a rank cutoff",
        "trec_eval 'recall_k'",
        ("r", "recall"),
        trec_eval_cut="recall",
        binary=True,
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
        binary=True,
    ),
    Measure(
        "Rprec",
        NO,
        "precision at rank R (R = number of relevant)",
        "trec_eval 'Rprec'",
        ("rprec", "r-prec", "r_prec"),
        trec_eval="Rprec",
        binary=True,
    ),
    Measure(
        "Bpref",
        NO,
        "binary preference",
        "Buckley and Voorhees, SIGIR 2004",
        ("bpref",),
        trec_eval="bpref",
        binary=True,
    ),
    Measure(
        "Judged",
        REQUIRED,
        "share of the top k documents that are judged (any grade; unjudged ones count as "
        "missing), how far a score rests on unjudged documents",
        "MacAvaney, Macdonald, Ounis, ECIR 2022 (ir_measures 'Judged@k'); Sakai and Kando, "
        "Information Retrieval 2008 (condensed lists)",
        ("judged",),
    ),
)
FAMILIES: dict[str, Measure] = {m.name: m for m in _DECLARED}

# every lower-case family spelling -> family; trec_eval cut names -> family
_FAMILY_OF = {a: m.name for m in _DECLARED for a in (m.name.lower(), *m.aliases)}
_CUT_OF = {m.trec_eval_cut.lower(): m.name for m in _DECLARED if m.trec_eval_cut}
_IR = re.compile(r"^(?P<fam>[A-Za-z][A-Za-z_\-]*?)@(?P<k>\d+)$")  # P@10, nDCG@20
_TREC = re.compile(r"^(?P<fam>[A-Za-z][A-Za-z_\-]*?)[_.](?P<k>\d+)$")  # P_10, P.10
_BARE = re.compile(r"^[A-Za-z][A-Za-z_\-]*$")  # AP, map
# ir_measures' relevance level: AP(rel=2), AP(rel=2)@100, R(rel=2)@1000
_REL = re.compile(
    r"^(?P<fam>[A-Za-z][A-Za-z_\-]*?)\(\s*rel\s*=\s*(?P<rel>\d+)\s*\)(?:@(?P<k>\d+))?$"
)
# where the rel parameter comes from (the registry's citation of AP(rel=2) and the like)
REL_CITATION = (
    "MacAvaney, Macdonald, Ounis, 'Streamlining Evaluation with ir-measures', ECIR 2022 "
    "(parameter rel); trec_eval -l"
)


@dataclass(frozen=True, order=True)
class MeasureName:
    """A parsed measure: its family and cutoff (``str`` is the canonical spelling)."""

    family: str
    cutoff: int | None = None
    rel: int | None = None  # lowest relevant grade when not 1 (trec_eval -l)

    def __str__(self) -> str:
        name = self.family if self.rel is None else f"{self.family}(rel={self.rel})"
        return name if self.cutoff is None else f"{name}@{self.cutoff}"

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
        """trec_eval's name of this measure (None: trec_eval has no such measure, or it
        needs ``-l``, a relevance level, besides its name)."""
        d = self.declaration
        if self.rel is not None:
            return None
        if self.cutoff is None:
            return d.trec_eval
        return f"{d.trec_eval_cut}_{self.cutoff}" if d.trec_eval_cut else None


_MAX_CUTOFF = 2**31 - 1


def _cutoff(digits: str) -> int:
    """A cutoff's digits as a number (any too long for one is past the largest)."""
    return int(digits) if len(digits) <= 12 else _MAX_CUTOFF + 1


@lru_cache(maxsize=1024)  # a file's rows name a few measures, each parsed once
def parse_measure(text: str) -> MeasureName:
    """Parse an ir_measures or trec_eval measure name. Raises NotFound with a suggestion."""
    s = text.strip()
    fam, k, rel = None, None, None
    if m := _REL.match(s):
        fam, rel = _FAMILY_OF.get(m.group("fam").lower()), int(m.group("rel"))
        k = _cutoff(m.group("k")) if m.group("k") else None
    elif m := _IR.match(s):
        fam, k = _FAMILY_OF.get(m.group("fam").lower()), _cutoff(m.group("k"))
    elif m := _TREC.match(s):
        fam, k = _CUT_OF.get(m.group("fam").lower()), _cutoff(m.group("k"))
    elif _BARE.match(s):
        fam = _FAMILY_OF.get(s.lower())
    if fam is None:
        raise NotFound(f"unknown measure {text!r}{suggest_measure(s)}")
    decl = FAMILIES[fam]
    if k is not None and decl.cutoff == NO:
        raise NotFound(f"measure {text!r}: {fam} takes no cutoff")
    if k is not None and k < 1:
        raise NotFound(f"measure {text!r}: the cutoff must be at least 1")
    if k is not None and k > _MAX_CUTOFF:  # the measures table's INTEGER column
        raise NotFound(f"measure {text!r}: the cutoff is too large (at most {_MAX_CUTOFF})")
    if k is None and decl.cutoff == REQUIRED:
        raise NotFound(f"measure {text!r}: {decl.description} needs a cutoff, e.g. {fam}@10")
    if rel is not None and not decl.binary:
        raise NotFound(f"measure {text!r}: {fam} takes no relevance level (rel=)")
    if rel is not None and rel < 1:
        raise NotFound(f"measure {text!r}: the relevance level must be at least 1")
    return MeasureName(fam, k, None if rel == 1 else rel)


def suggest_measure(text: str) -> str:
    """'' or "; did you mean 'AP'?": the closest declared measure, named canonically
    (``MAPP`` -> ``AP``, not the alias ``map``), with the cutoff given (``Judgd@10``
    -> ``Judged@10`` when Judged is declared), else the closest known name."""
    m = re.match(r"^(?P<fam>[A-Za-z][A-Za-z_\-]*?)(?:[@_.](?P<k>\d+))?$", text.strip())
    if m:
        fams = {a: f for a, f in _FAMILY_OF.items()}
        hit = difflib.get_close_matches(m.group("fam").lower(), list(fams), n=1, cutoff=0.6)
        if hit:
            fam = fams[hit[0]]
            k = m.group("k")
            name = f"{fam}@{k}" if k and FAMILIES[fam].cutoff != NO else fam
            return f"; did you mean {name!r}?"
    return did_you_mean(text, KNOWN_NAMES)


def did_you_mean(text: str, choices) -> str:
    """'' or "; did you mean 'X'?" for the closest of ``choices`` (case-insensitive)."""
    lower = {c.lower(): c for c in choices}
    hit = difflib.get_close_matches(text.lower(), list(lower), n=1, cutoff=0.6)
    return f"; did you mean {lower[hit[0]]!r}?" if hit else ""


# The measures the store knows by default (reference data loaded into `measures`).
# AP@10: MTEB's BEIR results (seeds/results, trec_eval 'map_cut_10'); AP@100 and the
# rel=2 ones: Pyserini's reproductions of MS MARCO and TREC DL, and NIST's DL 2020-2022
# passage summaries (trec_eval -l 2; seeds/README.md)
DEFAULT_MEASURES = [
    "AP",
    "AP@10",
    "AP@100",
    "AP(rel=2)",
    "AP(rel=2)@100",
    "R(rel=2)@1000",
    "P(rel=2)@10",
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
    fams = tuple(f if m.rel is None else f"{f}(rel={m.rel})" for f in (d.name.lower(), *d.aliases))
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
