"""A claim's own run: evaluated as trec_eval does and checked against the claimed value
(issue 21, item 1).

* :func:`evaluate_claim_run` reads a TREC run of the claimed system and evaluates it on the
  qrels stored for the collection (:mod:`litaudit.runs.evaluate`, trec_eval's semantics:
  the mean over the topics the run retrieved for that the qrels judge); the run's mean,
  rounded to the digits the claim printed, reproduces the claim or differs from it by
  :attr:`RunEvaluation.difference`.

Its per-topic scores (:class:`Scored`) against the archive's runs, topic by topic:
:mod:`litaudit.analyses.extreme.same_topic`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litaudit.errors import InputError, NotFound, ParameterError
from litaudit.runs.archive import list_runs, load_qrels
from litaudit.runs.archive_eval import archive_matrix
from litaudit.runs.coded import EncodedQrels, encode_against, encode_qrels
from litaudit.runs.evalcache import fingerprint
from litaudit.runs.evaluate import evaluate_coded
from litaudit.runs.ingest_files import sha256_file
from litaudit.runs.trec_io import read_run

if TYPE_CHECKING:
    import duckdb


# ------------------------------------------------------------------------ the claim's run
@dataclass(frozen=True)
class RunEvaluation:
    """The claim's run evaluated on the collection's stored qrels.

    ``value``: its mean ``measure`` over the ``n_topics`` topics evaluated (trec_eval's
    "all"; ``n_qrels_topics`` topics are judged); ``value_text`` as trec_eval prints it
    (4 decimals). ``claimed_text``: the claim as printed, and ``digits`` its decimals;
    ``rounded``: the run's value rounded to those digits (half to even, as printf rounds
    the exact binary value); ``reproduces``: rounded == claimed; ``difference``: value -
    claimed, also in units of the claim's last digit (``difference_units``). All of these
    are None when the claim's value was taken from the run.

    A run that lacks judged topics (issue 32, item 4): ``n_missing`` of the
    ``n_qrels_topics`` judged topics have no ranking in it; ``value_all`` is its mean over
    every judged topic, the missing ones as 0 (``trec_eval -c``), the mean the published
    results of the collection are; ``compared`` says which mean stands for the run
    ("all judged topics" when topics are missing, else "run's topics"). ``identical``:
    archive runs whose per-topic scores equal the run's on every topic it was evaluated on.
    """

    file: str
    sha256: str
    tag: str
    collection_id: str
    measure: str
    value: float
    value_text: str
    n_topics: int
    n_qrels_topics: int
    n_lines: int
    claimed_text: str | None = None
    digits: int | None = None
    rounded: str | None = None
    reproduces: bool | None = None
    difference: float | None = None
    difference_units: float | None = None
    n_missing: int = 0
    value_all: float | None = None
    identical: tuple[str, ...] = ()

    @property
    def compared_value(self) -> float:
        """The mean that stands for the run: over every judged topic (missing as 0) when
        topics are missing, as the collection's published results are; else its mean."""
        return self.value_all if self.n_missing and self.value_all is not None else self.value

    @property
    def compared_text(self) -> str:
        return f"{self.compared_value:.4f}"


def printed_digits(text: str) -> int:
    """Decimals of a value as printed ("0.2530" -> 4, "0.25" -> 2, "1" -> 0)."""
    d = Decimal(text.strip())
    exp = d.as_tuple().exponent
    return max(0, -int(exp)) if isinstance(exp, int) else 0


def claimed_text(value) -> str:
    """The claim as printed: the text given, else the shortest repr of the float."""
    return value.strip() if isinstance(value, str) else repr(float(value))


def check_reproduction(ev: RunEvaluation, claimed: str) -> RunEvaluation:
    """``ev`` with the claim ``claimed`` (as printed) checked against its value."""

    digits = printed_digits(claimed)
    quantum = Decimal(1).scaleb(-digits)
    rounded = Decimal(ev.compared_value).quantize(quantum, rounding=ROUND_HALF_EVEN)
    want = Decimal(claimed.strip()).quantize(quantum)
    diff = ev.compared_value - float(want)
    return dataclasses.replace(
        ev,
        claimed_text=claimed.strip(),
        digits=digits,
        rounded=str(rounded),
        reproduces=rounded == want,
        difference=diff,
        difference_units=diff / float(quantum),
    )


@dataclass(frozen=True)
class Scored:
    """Per-topic scores by topic name."""

    tag: str
    scores: dict[str, float]


def _sha256(path: Path) -> str:

    return sha256_file(path)


# the qrels of the last collections a run was evaluated on, coded, by (collection, archive
# fingerprint: its qrels' and runs' sha256): the claims of a claims file share them
_QRELS: dict[tuple[str, str], EncodedQrels] = {}
_QRELS_KEPT = 2


def _coded_qrels(con: duckdb.DuckDBPyConnection, collection_id: str) -> EncodedQrels:
    key = (collection_id, fingerprint(con, collection_id))
    if key not in _QRELS:
        try:
            qrels = load_qrels(con, collection_id)
        except NotFound:
            raise NotFound(
                f"--run needs the qrels of {collection_id}, and none are stored; import them "
                "with `litaudit runs import -c ... --qrels FILE`"
            ) from None
        if len(_QRELS) >= _QRELS_KEPT:
            _QRELS.pop(next(iter(_QRELS)))
        _QRELS[key] = encode_qrels(qrels)
    return _QRELS[key]


def evaluate_claim_run(
    con: duckdb.DuckDBPyConnection, collection_id: str, measure: str, path
) -> tuple[RunEvaluation, Scored]:
    """Evaluate the run file ``path`` on the qrels stored for ``collection_id``."""

    p = Path(path)
    if not p.is_file():
        raise InputError(str(p), None, "no such run file")
    qrels = _coded_qrels(con, collection_id)
    sha = _sha256(p)
    archived = _archived(con, collection_id, measure, sha)
    if archived is not None:
        tag, n_lines, topics, row = archived
    else:
        run = read_run(p)
        ev = evaluate_coded(*encode_against([run], qrels), [measure])
        tag, n_lines, topics, row = run.tag, len(run), list(ev.topics), ev.matrix(measure)[0]
    ok = ~np.isnan(row)
    if not ok.any():
        raise ParameterError(
            f"{p}: none of the run's topics is judged in the qrels of {collection_id}"
        )
    mean = float(row[ok].mean())
    n_q = qrels.n_topics
    n_ok = int(ok.sum())
    out = RunEvaluation(
        file=p.name,
        sha256=sha,
        tag=tag,
        collection_id=collection_id,
        measure=measure,
        value=mean,
        value_text=f"{mean:.4f}",
        n_topics=n_ok,
        n_qrels_topics=n_q,
        n_lines=n_lines,
        n_missing=max(0, n_q - n_ok),
        value_all=float(row[ok].sum()) / n_q if n_q else None,
    )
    scores = {t: float(v) for t, v in zip(topics, row, strict=True) if not math.isnan(v)}
    return out, Scored(tag, scores)


def _archived(
    con: duckdb.DuckDBPyConnection, collection_id: str, measure: str, sha: str
) -> tuple[str, int, list[str], np.ndarray] | None:
    """(tag, lines, topics, per-topic ``measure``) of the stored archive run that is the
    file ``sha`` (imported whole, no line skipped), read from the archive's evaluation
    (:func:`~litaudit.runs.archive_eval.archive_matrix`, which the claim audit reads
    anyway: its noise, same-topic comparisons and copies), not evaluated a second time:
    the same evaluator on the same rows, the same values to the last bit (the robust03
    archive's 17 runs, tests/analyses/test_claim_evidence.py); None when no stored run is
    that file."""
    found = [r for r in list_runs(con, collection_id) if r.sha256 == sha and r.n_skipped == 0]
    if len(found) != 1:
        return None
    m = archive_matrix(con, collection_id, measure)
    if m is None or found[0].tag not in m.runs:
        return None
    row = np.asarray(m.x[m.runs.index(found[0].tag)], dtype=np.float64)
    return found[0].tag, found[0].n_lines, list(m.topics), row
