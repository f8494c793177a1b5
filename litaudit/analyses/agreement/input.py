"""The input of the agreement analyses of Carterette, Kanoulas, Pavlu and Fang (SIGIR 2010):
a :class:`ScoreDesign` (per-topic scores of runs, the site of every run, the sites held
out of every topic) read from files or built from scores, and the pooling simulation of
Section 4.3 that makes one from a run archive (:func:`simulate_pooling`). The analyses
themselves are in :mod:`litaudit.analyses.agreement.analysis`.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit.errors import InputError, ParameterError
from litaudit.files import STDOUT, atomic_write
from litaudit.runs.coded import CodedQrels, CodedRuns, encode, ranked
from litaudit.runs.evaluate import evaluate_coded
from litaudit.runs.order import distinct
from litaudit.runs.pertopic import read_pertopic_csv
from litaudit.stats.design import Design, HoldoutAssignment, assign_holdouts

# ------------------------------------------------------------------ input


@dataclass(frozen=True)
class ScoreDesign:
    """Per-topic scores (runs x topics, NaN = missing), run sites, held-out sites per topic."""

    runs: tuple[str, ...]
    sites: tuple[str, ...]  # the site of each run
    topics: tuple[str, ...]
    scores: np.ndarray  # (len(runs), len(topics))
    held_out: tuple[tuple[str, ...], ...]  # per topic; () = all-site baseline topic

    def __post_init__(self):
        s = np.asarray(self.scores, dtype=float)
        object.__setattr__(self, "scores", s)
        if s.shape != (len(self.runs), len(self.topics)):
            raise ParameterError(
                f"scores have shape {s.shape}, expected ({len(self.runs)}, {len(self.topics)})"
            )
        if len(self.sites) != len(self.runs):
            raise ParameterError("one site per run is needed")
        if len(self.held_out) != len(self.topics):
            raise ParameterError("one held-out set per topic is needed")
        if len(set(self.runs)) != len(self.runs):
            raise ParameterError("run tags must be distinct")
        known = set(self.sites)
        for t, h in zip(self.topics, self.held_out, strict=True):
            unknown = set(h) - known
            if unknown:
                raise ParameterError(f"topic {t} holds out unknown site {sorted(unknown)[0]!r}")

    def site_names(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.sites)))

    def held_mask(self, site: str) -> np.ndarray:
        """Topics ``site`` was held out of."""
        return np.array([site in h for h in self.held_out], dtype=bool)


def pseudo_sites(runs: Sequence[str], m: int) -> tuple[str, ...]:
    """Group runs into m pseudo-sites of consecutive runs (sizes differ by at most one).

    For score matrices without site identity (Section 4.2 on anonymised runs): run j of R
    goes to pseudo-site floor(j m / R) + 1, named ``P01``, ``P02``, ...
    """
    r = len(runs)
    if not 2 <= m <= r:
        raise ParameterError(f"pseudo-sites must be between 2 and the number of runs ({r})")
    width = len(str(m))
    return tuple(f"P{(j * m) // r + 1:0{width}d}" for j in range(r))


def read_score_matrix(path) -> tuple[tuple[str, ...], tuple[str, ...], np.ndarray]:
    """(runs, topics, scores runs x topics) from a topics x runs CSV (shared/data/pertopic).

    A leading ``topic`` column names the topics; without it topics are numbered 1, 2, ...
    Blank or NA cells are missing scores (NaN). Read by :mod:`litaudit.runs.pertopic`.
    """

    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), None, "no such file")
    m = read_pertopic_csv(path)
    return m.runs, m.topics, m.scores


def read_run_sites(path) -> dict[str, str]:
    """A CSV ``run,site`` (header required) mapping run tags to sites."""
    path = Path(path)
    rows = _read_csv_rows(path, ("run", "site"))
    out: dict[str, str] = {}
    for line, row in rows:
        run, site = row["run"].strip(), row["site"].strip()
        if not run or not site:
            raise InputError(str(path), line, "run and site must not be empty")
        if run in out:
            raise InputError(str(path), line, f"run {run!r} appears twice")
        out[run] = site
    return out


def _read_csv_rows(path: Path, columns: tuple[str, ...]):
    if not path.is_file():
        raise InputError(str(path), None, "no such file")
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = [h.strip() for h in (reader.fieldnames or [])]
            missing = [c for c in columns if c not in header]
            if missing:
                raise InputError(
                    str(path),
                    1,
                    f"missing column {missing[0]!r} (expected header {','.join(columns)})",
                )
            reader.fieldnames = header
            rows = []
            for row in reader:
                if None in row or any(row[c] is None for c in columns):
                    raise InputError(str(path), reader.line_num, f"expected {len(header)} fields")
                rows.append((reader.line_num, row))
            return rows
    except UnicodeDecodeError:
        raise InputError(str(path), None, "not UTF-8 text") from None


def read_holdouts(path, sites: Sequence[str] | None = None) -> dict[str, tuple[str, ...]]:
    """The CSV written by :func:`write_holdouts`: ``topic,held_out_site``, one row per held-out
    site of a topic, and one row with an empty site for an all-site baseline topic."""
    path = Path(path)
    known = set(sites) if sites is not None else None
    out: dict[str, list[str]] = {}
    for line, row in _read_csv_rows(path, ("topic", "held_out_site")):
        topic, site = row["topic"].strip(), row["held_out_site"].strip()
        if not topic:
            raise InputError(str(path), line, "empty topic")
        held = out.setdefault(topic, [])
        if not site:
            continue
        if known is not None and site not in known:
            raise InputError(
                str(path), line, f"unknown site {site!r} (sites: {', '.join(sorted(known))})"
            )
        if site in held:
            raise InputError(str(path), line, f"site {site!r} held out of topic {topic} twice")
        held.append(site)
    if not out:
        raise InputError(str(path), None, "no topics")
    return {t: tuple(h) for t, h in out.items()}


def holdout_csv(assignment: HoldoutAssignment) -> tuple[str, int]:
    """The CSV of a hold-out assignment, ``topic,held_out_site`` (a baseline topic: one row
    with no site), and its number of rows."""
    rows = []
    for t, held in zip(assignment.topics, assignment.held_out, strict=True):
        rows.extend([(t, s) for s in held] or [(t, "")])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["topic", "held_out_site"])
    w.writerows(rows)
    return buf.getvalue(), len(rows)


def write_holdouts(path, assignment: HoldoutAssignment) -> int:
    """Write :func:`holdout_csv` (atomically: nothing half-written; ``-`` is standard
    output). Returns rows."""
    text, n_rows = holdout_csv(assignment)
    if str(path) == STDOUT:
        sys.stdout.write(text)
        return n_rows
    with atomic_write(Path(path), newline="", encoding="utf-8") as fh:
        fh.write(text)
    return n_rows


def design_from_scores(
    runs, sites, topics, scores, held_out: dict[str, tuple[str, ...]], source: str = "design"
) -> ScoreDesign:
    """A ScoreDesign over the topics present in both the scores and the hold-out design."""
    index = {t: i for i, t in enumerate(topics)}
    common = [t for t in held_out if t in index]
    if not common:
        raise ParameterError(
            f"no topic of the {source} has scores (the score matrix and "
            "the hold-out design share no topic id)"
        )
    cols = [index[t] for t in common]
    return ScoreDesign(
        tuple(runs),
        tuple(sites),
        tuple(common),
        np.asarray(scores, dtype=float)[:, cols],
        tuple(held_out[t] for t in common),
    )


# ------------------------------------------------------------------ simulation (4.3)


@dataclass(frozen=True, kw_only=True)
class Simulation:
    """A pooling simulation: the reduced-qrels scores, and what it was built from."""

    design: ScoreDesign
    assignment: HoldoutAssignment
    depth: int
    measure: str
    true_scores: np.ndarray  # runs x design.topics, full qrels
    judged_kept: int  # qrels lines kept in the reduced pools
    judged_total: int
    topics_dropped: tuple[str, ...]  # no relevant document left in the pool


def _silent(steps: float = 0, /, *, total: float = 0, **counts: int) -> None:
    """No progress shown."""


def _pools(coded, sites, held: dict, depth: int, n_docs: int, tell) -> np.ndarray:
    """The depth-``depth`` pools of the runs (rows ranked) of the sites not held out of each
    topic, as sorted keys ``topic code * n_docs + doc code`` of ``coded`` (the runs coded with the
    qrels; ``n_docs`` above every doc code of both); ``tell(1, pooled=n)`` after each run
    (n pairs new to the pools)."""

    names = coded.topic_names
    bounds = np.searchsorted(coded.run, np.arange(len(coded.tags) + 1))
    pooled = np.zeros(0, dtype=np.int64)
    for r, site in enumerate(sites):
        lo, hi = int(bounds[r]), int(bounds[r + 1])  # ranked (coded.ranked)
        topic, doc = coded.topic[lo:hi].astype(np.int64), coded.doc[lo:hi]
        start = np.r_[True, topic[1:] != topic[:-1]]
        first = np.maximum.accumulate(np.where(start, np.arange(len(topic)), 0))
        out = np.array([site in held.get(names[t], ()) for t in range(len(names))], dtype=bool)
        keep = ((np.arange(len(topic)) - first) < depth) & ~out[topic]
        before = len(pooled)
        pooled = np.union1d(pooled, topic[keep] * n_docs + doc[keep])
        tell(1, pooled=len(pooled) - before)
    return pooled


def simulate_pooling(
    qrels,
    runs,
    sites: Sequence[str],
    *,
    k: int = 2,
    depth: int = 100,
    baseline: int = 0,
    measure: str = "AP",
    rng: np.random.Generator | None = None,
    progress=None,
) -> Simulation:
    """Section 4.3: hold out k sites per topic, judge the depth-d pool of the others.

    Topics are those the full evaluation scores (trec_eval's), in its order (permuted when
    ``rng`` is given); the first ``baseline`` are all-site baseline topics and the others
    hold out k sites by round robin (:func:`litaudit.stats.design.assign_holdouts`). For
    every topic, only the qrels lines of documents in the top ``depth`` of a run of a
    non-held-out site are kept; every run is then evaluated on these reduced qrels
    (trec_eval -c: a topic a run did not answer scores 0). Topics left with no relevant
    document are dropped.

    ``progress(steps, total=more, **counts)``, when given, is told of three steps per run
    (``total`` announced first): each run evaluated on the full qrels (one step per run
    when that evaluation ends), pooled (one step each, with the ``pooled`` topic-document
    pairs it added to the pools), and evaluated on the reduced qrels (as the first), with
    the ``judged`` qrels lines kept once the pools are complete.
    """

    _check_simulation(len(runs), sites, depth, [r.tag for r in runs])
    # one coding for both evaluations: the reduced qrels are rows of the full ones
    coded, cq = encode(runs, qrels)
    return simulate_coded(
        coded,
        cq,
        sites,
        k=k,
        depth=depth,
        baseline=baseline,
        measure=measure,
        rng=rng,
        progress=progress,
    )


def _check_simulation(n_runs: int, sites: Sequence[str], depth: int, tags: Sequence[str]) -> None:
    if n_runs != len(sites):
        raise ParameterError("one site per run is needed")
    if depth < 1:
        raise ParameterError(f"pool depth must be at least 1, got {depth}")
    if len(set(tags)) != len(tags):
        dup = sorted({t for t in tags if tags.count(t) > 1})
        raise ParameterError(f"two runs share the tag {dup[0]!r}")


def simulate_coded(
    coded: CodedRuns,
    cq: CodedQrels,
    sites: Sequence[str],
    *,
    k: int = 2,
    depth: int = 100,
    baseline: int = 0,
    measure: str = "AP",
    rng: np.random.Generator | None = None,
    progress=None,
) -> Simulation:
    """:func:`simulate_pooling` of runs and qrels coded already (a stored archive's codes,
    :func:`litaudit.runs.stored_eval.load_coded`: doc codes in docno byte order, each
    run's rows one block in run order): the same simulation, no string coded again."""
    _check_simulation(len(coded.tags), sites, depth, list(coded.tags))
    tell = progress or _silent
    tell(total=3 * len(coded.tags))
    coded = ranked(coded)  # sorted once for both evaluations and the pools
    full = evaluate_coded(coded, cq, [measure], complete=True)
    tell(len(coded.tags))
    name = full.measures[0]
    site_names = tuple(sorted(set(sites)))
    assignment = assign_holdouts(full.topics, site_names, k, baseline, rng=rng)
    held = dict(zip(assignment.topics, assignment.held_out, strict=True))
    n_docs = int(max(coded.doc.max(initial=-1), cq.doc.max(initial=-1))) + 1
    pooled = _pools(coded, sites, held, depth, n_docs, tell)
    mask = np.isin(cq.topic.astype(np.int64) * n_docs + cq.doc, pooled)
    tell(judged=int(mask.sum()))
    reduced = CodedQrels(cq.topic[mask], cq.doc[mask], cq.rel[mask])
    # the rows the full evaluation checked for a document twice
    red = evaluate_coded(coded, reduced, [measure], complete=True, check_duplicates=False)
    tell(len(coded.tags))
    rel_topics = {coded.topic_names[t] for t in distinct(cq.topic[mask & (cq.rel >= 1)])}
    red_index = {t: i for i, t in enumerate(red.topics)}
    keep_topics = [t for t in full.topics if t in red_index and t in rel_topics]
    dropped = tuple(t for t in full.topics if t not in set(keep_topics))
    if not keep_topics:
        raise ParameterError(
            f"no topic has a relevant document left in the depth-{depth} "
            f"pools of the sites not held out"
        )
    full_index = {t: i for i, t in enumerate(full.topics)}
    red_m = red.matrix(name)[:, [red_index[t] for t in keep_topics]]
    true_m = full.matrix(name)[:, [full_index[t] for t in keep_topics]]
    design = ScoreDesign(
        tuple(coded.tags),
        tuple(sites),
        tuple(keep_topics),
        red_m,
        tuple(held[t] for t in keep_topics),
    )
    return Simulation(
        design=design,
        assignment=assignment,
        depth=depth,
        measure=name,
        true_scores=true_m,
        judged_kept=int(mask.sum()),
        judged_total=len(cq.topic),
        topics_dropped=dropped,
    )


@dataclass(frozen=True)
class HoldoutFile:
    """What ``reuse holdout`` wrote: the file (or ``-``), its rows, the design, and the
    topic order (``shuffled`` with a seed, else ``as given``)."""

    output: str
    rows: int
    design: Design
    seed: int | None
    topic_order: str


def holdout_topic_ids(topics: int | None, topic_file: Path | None) -> list[str]:
    """The topic ids of a hold-out design: one per line of ``topic_file`` (blank lines
    skipped, each id once), else ``1..topics``; both given must agree."""
    if topic_file is None:
        if topics is None:
            raise ParameterError("give --topics N or --topic-file FILE")
        return [str(i) for i in range(1, topics + 1)]
    if not topic_file.is_file():
        raise InputError(str(topic_file), None, "no such file")
    ids: list[str] = []
    for i, line in enumerate(topic_file.read_text(encoding="utf-8").splitlines(), 1):
        t = line.strip()
        if not t:
            continue
        if t in ids:
            raise InputError(str(topic_file), i, f"topic {t!r} appears twice")
        ids.append(t)
    if topics is not None and topics != len(ids):
        raise ParameterError(f"--topics {topics} but {topic_file} lists {len(ids)} topics")
    return ids
