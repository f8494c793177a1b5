"""Reusability from a run archive: RAO, leave-out-uniques, sub-collections, the verdict.

Reads a stored run archive (``litaudit.runs.archive.load_tables``), runs the statistics
of ``litaudit.stats.overlap`` (Voorhees, Lin, Efron, SIGIR 2014) and
``litaudit.stats.subcollections`` (Sanderson, Turpin, Zhang, Scholer, CIKM 2012) and saves
each result as an audit (kinds 'reuse-rao', 'reuse-lou', 'reuse-subcollections',
'reuse-verdict'). The ``*_of_archive`` functions take an in-memory
:class:`~litaudit.runs.model.Archive` (or its :class:`CodedArchive`) and do no I/O.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit.errors import InputError, NotFound, ParameterError
from litaudit.stats import overlap, subcollections

# ---------------------------------------------------------------------- thresholds, defaults

# Pool depth: TREC-8's pools were built from the top 100 of each run (Voorhees et al. 2014,
# Table 1, "K"). The robust03 archive does not record its depth: a parameter.
DEFAULT_DEPTH = 100
# RAO is plotted against R-precision, the primary measure of Microblog 2013 (Voorhees et
# al. 2014, Section 3, Figure 1); the LOU test compares MAP (Section 4, Figure 2).
RAO_MEASURE = "Rprec"
LOU_MEASURE = "AP"
# Leave-out-uniques: automatic runs with MAP >= 0.1; a change above 1% is beyond evaluation
# noise, and a collection where no such run changes by more than 1% "is regarded as highly
# reusable" (Voorhees et al. 2014, Section 4 and Table 2, on TREC-8).
LOU_MIN_MAP = overlap.LOU_MIN_MAP
LOU_MAX_PCT = overlap.LOU_NOISE_PCT
# Sub-collections: automatic runs only, the bottom 25% by MAP discarded (Sanderson et al.
# 2012, Section 3, after Voorhees and Buckley, SIGIR 2002); 1,000 random splits (Section
# 3.2); a pair whose tau falls below the random taus at the 0.05 level ranks systems
# differently from chance (Table 2 reports the 0.05, 0.01 and 0.001 levels).
SUBCOLLECTION_BOTTOM = 0.25
SUBCOLLECTION_PERMUTATIONS = subcollections.DEFAULT_PERMUTATIONS
SUBCOLLECTION_ALPHA = 0.05
SUBCOLLECTION_LEVELS = (0.05, 0.01, 0.001)
DEFAULT_SEED = 20120101

SOURCE_VOORHEES = "Voorhees, Lin, Efron, SIGIR 2014"
SOURCE_SANDERSON = "Sanderson, Turpin, Zhang, Scholer, CIKM 2012"


# ------------------------------------------------------------------------- coded archive

@dataclass(frozen=True)
class CodedArchive:
    """An archive as integer codes, each list in trec_eval order (float32 score, docno)."""

    collection_id: str
    tags: tuple[str, ...]
    participants: tuple[str, ...]        # per run (its tag when the archive has none)
    run_types: tuple[str | None, ...]    # per run
    participant_names: tuple[str, ...]   # distinct participants, sorted
    participant_of_run: np.ndarray       # (n_runs,) index into participant_names
    topic_names: tuple[str, ...]         # topics of the qrels
    docnos: np.ndarray                   # docno of every doc code (byte order)
    run: np.ndarray                      # ranked entries restricted to qrels topics
    topic: np.ndarray
    doc: np.ndarray
    rank: np.ndarray                     # 0-based rank within its (run, topic) list
    score: np.ndarray
    q_topic: np.ndarray                  # qrels rows
    q_doc: np.ndarray
    q_rel: np.ndarray
    fingerprint: str                     # sha256 of the archive's content


def code_archive(archive) -> CodedArchive:
    """Integer-code an :class:`~litaudit.runs.model.Archive` (runs in trec_eval order)."""
    import pandas as pd

    runs = archive.runs
    if not runs:
        raise NotFound(f"the run archive of {archive.collection_id} has no runs")
    n = np.array([len(r) for r in runs])
    all_docs = np.concatenate([r.docno for r in runs] + [archive.qrels.docno])
    all_tops = np.concatenate([r.topic for r in runs] + [archive.qrels.topic])
    doc_codes, docnos = pd.factorize(all_docs, sort=True)        # code point = strcmp order
    top_codes, top_names = pd.factorize(all_tops, sort=True)
    total = int(n.sum())
    run = np.repeat(np.arange(len(runs)), n)
    topic, doc = top_codes[:total], doc_codes[:total]
    score32 = np.concatenate([r.score for r in runs]).astype(np.float32)
    order = np.lexsort((-doc, -score32, topic, run))
    score = np.concatenate([r.score for r in runs]).astype(np.float64)[order]
    return _assemble(archive.collection_id, [(i.tag, i.participant, i.run_type)
                                             for i in archive.info],
                     np.asarray(docnos, dtype=object), [str(t) for t in top_names],
                     run[order], topic[order], doc[order], score,
                     top_codes[total:], doc_codes[total:],
                     np.asarray(archive.qrels.rel, dtype=np.int32))


def code_stored(tables, collection_id: str) -> CodedArchive:
    """What :func:`code_archive` makes of ``load_archive``, built from the stored integer
    tables (:func:`litaudit.runs.archive.load_tables`) with no string joins or sorts of
    rows by text: the same arrays, in the same order, with the same fingerprint."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from litaudit.runs.order import trec_order

    t = tables
    if not t.runs:
        raise NotFound(f"the run archive of {collection_id} has no runs")
    run_pos = np.full(max(r[0] for r in t.runs) + 1, -1, dtype=np.int64)
    run_pos[[r[0] for r in t.runs]] = np.arange(len(t.runs))
    run = run_pos[t.run_id]
    # docnos used by these runs and qrels, coded by their rank in byte (strcmp) order
    used = np.zeros(len(t.docnos), dtype=bool)
    used[t.doc_id] = True
    used[t.q_doc_id] = True
    used_ids = np.flatnonzero(used)
    names = t.docnos.take(pa.array(used_ids))
    by_bytes = np.asarray(pc.sort_indices(names))
    doc_code = np.full(len(t.docnos), -1, dtype=np.int64)
    doc_code[used_ids[by_bytes]] = np.arange(len(used_ids))
    docnos = np.asarray(names.take(pa.array(by_bytes)).to_pylist(), dtype=object)
    # topics used, coded by their rank as strings (code_archive's intermediate order)
    top_used = np.zeros(len(t.topics), dtype=bool)
    top_used[t.topic_id] = True
    top_used[t.q_topic_id] = True
    top_ids = np.flatnonzero(top_used)
    top_sorted = sorted(top_ids.tolist(), key=lambda i: t.topics[i])
    top_code = np.full(len(t.topics), -1, dtype=np.int64)
    top_code[top_sorted] = np.arange(len(top_sorted))
    topic, doc = top_code[t.topic_id], doc_code[t.doc_id]
    with np.errstate(over="ignore"):
        order = trec_order(run * len(top_sorted) + topic, t.score.astype(np.float32), doc)
    # qrels in load_qrels' order: topic, then docno (as text)
    q_topic, q_doc = top_code[t.q_topic_id], doc_code[t.q_doc_id]
    q_order = np.lexsort((q_doc, q_topic))
    return _assemble(collection_id, [(r[1], r[2], r[3]) for r in t.runs], docnos,
                     [t.topics[i] for i in top_sorted], run[order], topic[order], doc[order],
                     t.score.astype(np.float64)[order], q_topic[q_order], q_doc[q_order],
                     np.asarray(t.q_rel, dtype=np.int32)[q_order])


def _assemble(collection_id: str, infos: list[tuple], docnos: np.ndarray,
              top_names: list[str], run, topic, doc, score, q_topic, q_doc,
              q_rel) -> CodedArchive:
    """The coded archive from rows already in order (run, topic as text, trec_eval's
    ranking) whose topics are coded by their rank as text (``top_names``): topics recoded
    to the qrels' topics in trec_eval's order, rows of other topics dropped."""
    from litaudit.runs.model import sort_topics

    q_names = sort_topics({top_names[t] for t in np.unique(q_topic)})
    recode = np.full(len(top_names), -1)
    name_pos = {t: i for i, t in enumerate(q_names)}
    for code, name in enumerate(top_names):
        recode[code] = name_pos.get(name, -1)
    topic = recode[topic]
    keep = topic >= 0
    run, topic, doc, score = run[keep], topic[keep], doc[keep], score[keep]
    grp = run * len(q_names) + topic
    start = np.r_[True, grp[1:] != grp[:-1]] if grp.size else np.zeros(0, bool)
    rank = np.arange(grp.size) - np.maximum.accumulate(np.where(start, np.arange(grp.size), 0))
    parts = tuple((p or tag) for tag, p, _ in infos)
    part_names = tuple(sorted(set(parts)))
    h = hashlib.sha256()
    for part in ("\n".join(map(str, docnos)), "\n".join(q_names), repr(list(infos))):
        h.update(part.encode("utf-8"))
    for arr in (run, topic, doc, score, recode[q_topic], q_doc, q_rel):
        h.update(np.ascontiguousarray(arr).tobytes())
    return CodedArchive(
        collection_id=collection_id, tags=tuple(tag for tag, _, _ in infos),
        participants=parts, run_types=tuple(rt for _, _, rt in infos),
        participant_names=part_names,
        participant_of_run=np.array([part_names.index(p) for p in parts]),
        topic_names=q_names, docnos=docnos,
        run=run, topic=topic, doc=doc, rank=rank, score=score,
        q_topic=recode[q_topic], q_doc=q_doc, q_rel=q_rel,
        fingerprint=h.hexdigest())


def _coded(archive, coded: CodedArchive | None) -> CodedArchive:
    """The coded form of what an ``*_of_archive`` function was given (an Archive, or a
    CodedArchive already)."""
    if coded is not None:
        return coded
    return archive if isinstance(archive, CodedArchive) else code_archive(archive)


def _check_depth(depth: int) -> None:
    if depth < 1:
        raise ParameterError(f"depth must be at least 1, got {depth}")


def _evaluate_means(c: CodedArchive, measure: str, *, runs: np.ndarray | None = None,
                    qrels_keep: np.ndarray | None = None) -> np.ndarray:
    """Per run the mean of ``measure`` as trec_eval computes it (litaudit.runs.evaluate),
    for the runs ``runs`` (indices; default all) and the qrels rows ``qrels_keep``."""
    from litaudit.runs.evaluate import CodedQrels, CodedRuns, evaluate_coded

    if runs is None:
        runs = np.arange(len(c.tags))
    recode = np.full(len(c.tags), -1)
    recode[runs] = np.arange(len(runs))
    sel = recode[c.run] >= 0
    coded = CodedRuns(tuple(c.tags[i] for i in runs), c.topic_names,
                      recode[c.run[sel]].astype(np.int32), c.topic[sel].astype(np.int32),
                      c.doc[sel], c.score[sel])
    keep = slice(None) if qrels_keep is None else qrels_keep
    cq = CodedQrels(c.q_topic[keep].astype(np.int32), c.q_doc[keep], c.q_rel[keep])
    return evaluate_coded(coded, cq, [measure], check_duplicates=False).mean(measure)


def _f(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


# ----------------------------------------------------------------------------------- RAO

@dataclass(frozen=True)
class RunRAO:
    tag: str
    participant: str
    run_type: str | None
    rao: float | None
    topics: int                 # topics averaged (with >= 1 retrieved document)
    effectiveness: float | None  # mean of the measure over topics (R-precision by default)


@dataclass(frozen=True)
class RAOReport:
    """Run Average Overlap of every run (Voorhees et al. 2014, Section 3, Figure 1)."""

    collection_id: str
    depth: int
    measure: str
    n_runs: int
    n_participants: int
    lower_bound: float          # 1/P
    mean_rao: float | None
    min_rao: float | None
    max_rao: float | None
    runs: tuple[RunRAO, ...]


def rao_of_archive(archive, *, depth: int = DEFAULT_DEPTH, measure: str = RAO_MEASURE,
                   coded: CodedArchive | None = None) -> RAOReport:
    _check_depth(depth)
    from litaudit.measures import parse_measure

    measure = str(parse_measure(measure))
    c = _coded(archive, coded)
    top = c.rank < depth
    res = overlap.run_average_overlap(c.run[top], c.topic[top], c.doc[top], c.participant_of_run)
    eff = _evaluate_means(c, measure)
    rows = tuple(RunRAO(t, p, rt, _f(r), int(nt), _f(e)) for t, p, rt, r, nt, e in zip(
        c.tags, c.participants, c.run_types, res.rao, res.n_topics, eff, strict=True))
    finite = res.rao[np.isfinite(res.rao)]
    return RAOReport(
        collection_id=c.collection_id, depth=depth, measure=measure, n_runs=len(c.tags),
        n_participants=res.n_participants, lower_bound=res.lower_bound,
        mean_rao=_f(finite.mean()) if finite.size else None,
        min_rao=_f(finite.min()) if finite.size else None,
        max_rao=_f(finite.max()) if finite.size else None, runs=rows)


# ----------------------------------------------------------------------------------- LOU

@dataclass(frozen=True)
class ParticipantUniques:
    participant: str
    runs: int
    unique_relevant: int
    share_of_relevant: float | None
    share_of_uniques: float | None


@dataclass(frozen=True)
class RunLOU:
    tag: str
    participant: str
    run_type: str | None
    before: float | None        # mean of the measure with the full qrels
    after: float | None         # ... without the participant's unique relevant documents
    pct_change: float | None    # 100 * (after - before) / before
    considered: bool            # automatic, before >= min_map (Table 2 population)


@dataclass(frozen=True)
class LOUReport:
    """Unique relevant documents and the leave-out-uniques test (Voorhees et al. 2014)."""

    collection_id: str
    depth: int
    measure: str
    n_relevant: int
    n_retrieved_relevant: int   # relevant documents in some run's top K
    n_unique: int
    unique_fraction: float | None   # Table 2 row 1
    largest_share: float | None     # Table 2 row 2 (share of the unique relevant documents)
    largest_participant: str | None
    min_map: float
    noise_pct: float
    n_considered: int
    n_unknown_type: int         # runs without a run type (never considered)
    mean_abs_pct: float | None  # Table 2 row 3
    max_abs_pct: float | None   # Table 2 row 4
    n_above: int                # Table 2 row 5
    participants: tuple[ParticipantUniques, ...]
    runs: tuple[RunLOU, ...]


def lou_of_archive(archive, *, depth: int = DEFAULT_DEPTH, measure: str = LOU_MEASURE,
                   min_map: float = LOU_MIN_MAP, noise_pct: float = LOU_MAX_PCT,
                   coded: CodedArchive | None = None) -> LOUReport:
    _check_depth(depth)
    from litaudit.measures import parse_measure

    measure = str(parse_measure(measure))
    c = _coded(archive, coded)
    top = c.rank < depth
    rel_rows = np.flatnonzero((c.q_rel >= 1) & (c.q_topic >= 0))
    uni = overlap.unique_relevant(c.run[top], c.topic[top], c.doc[top], c.participant_of_run,
                                  c.q_topic[rel_rows], c.q_doc[rel_rows])
    before = _evaluate_means(c, measure)
    after = np.full(len(c.tags), np.nan)
    for p in range(len(c.participant_names)):
        runs_p = np.flatnonzero(c.participant_of_run == p)
        if not runs_p.size:
            continue
        drop = np.zeros(len(c.q_rel), dtype=bool)
        drop[rel_rows[uni.owner == p]] = True
        after[runs_p] = _evaluate_means(c, measure, runs=runs_p, qrels_keep=~drop)
    automatic = np.array([t == "automatic" for t in c.run_types])
    lou = overlap.leave_out_uniques(before, after, automatic, min_map=min_map,
                                    noise_pct=noise_pct)
    n_runs_of = np.bincount(c.participant_of_run, minlength=len(c.participant_names))
    parts = tuple(ParticipantUniques(name, int(n_runs_of[i]), int(uni.n_unique[i]),
                                     _f(uni.share_of_relevant[i]), _f(uni.share_of_uniques[i]))
                  for i, name in enumerate(c.participant_names))
    runs = tuple(RunLOU(t, p, rt, _f(b), _f(a), _f(d), bool(k)) for t, p, rt, b, a, d, k in zip(
        c.tags, c.participants, c.run_types, lou.before, lou.after, lou.pct_change,
        lou.considered, strict=True))
    return LOUReport(
        collection_id=c.collection_id, depth=depth, measure=measure,
        n_relevant=uni.n_relevant, n_retrieved_relevant=uni.n_retrieved_relevant,
        n_unique=uni.n_unique_total, unique_fraction=_f(uni.unique_fraction),
        largest_share=_f(uni.largest_share) if uni.n_unique_total else None,
        largest_participant=(c.participant_names[uni.largest_participant]
                             if uni.largest_participant >= 0 else None),
        min_map=min_map, noise_pct=noise_pct, n_considered=lou.n_considered,
        n_unknown_type=sum(t is None for t in c.run_types),
        mean_abs_pct=_f(lou.mean_abs_pct), max_abs_pct=_f(lou.max_abs_pct),
        n_above=lou.n_above, participants=parts, runs=runs)


# -------------------------------------------------------------------------- sub-collections

@dataclass(frozen=True)
class Split:
    """A rule assigning documents to sub-collections (label -1: in none)."""

    rule: str                  # 'prefix', 'prefix:A,B', or the mapping file's path
    names: tuple[str, ...]
    labels: np.ndarray         # (n_docs,) per doc code


_LEADING = re.compile(r"^([A-Za-z]+)")


def split_documents(docnos: np.ndarray, rule: str) -> Split:
    """Sub-collection of every docno: ``prefix`` (leading letters, e.g. FBIS, FR, FT, LA),
    ``prefix:FBIS,FR94,FT,LA`` (the longest listed prefix; others in none) or a mapping file
    with lines ``docno sub-collection`` (spaces, tabs or a comma; # comments)."""
    import pandas as pd

    docs = pd.Series(np.asarray(docnos, dtype=object), dtype=object)
    if rule == "prefix":
        lead = docs.str.extract(_LEADING, expand=False)
        names = tuple(sorted(set(lead.dropna())))
        codes = pd.Categorical(lead, categories=list(names)).codes.astype(np.int64)
        return Split(rule, names, codes)
    if rule.startswith("prefix:"):
        prefixes = [p.strip() for p in rule[len("prefix:"):].split(",") if p.strip()]
        if len(set(prefixes)) != len(prefixes) or not prefixes:
            raise ParameterError(f"--split {rule!r}: give distinct, non-empty prefixes")
        names = tuple(sorted(prefixes))
        labels = np.full(len(docs), -1, dtype=np.int64)
        best = np.zeros(len(docs), dtype=np.int64)
        for i, p in enumerate(names):
            hit = docs.str.startswith(p).to_numpy(dtype=bool) & (len(p) > best)
            labels[hit] = i
            best[hit] = len(p)
        return Split(rule, names, labels)
    path = Path(rule)
    if not path.is_file():
        raise ParameterError(f"--split {rule!r}: expected 'prefix', 'prefix:A,B,...' or a "
                             "mapping file (docno sub-collection), and no such file exists")
    mapping: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), None, f"cannot read the mapping file ({exc})") from None
    for no, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f for f in re.split(r"[\s,]+", line) if f]
        if len(fields) != 2:
            raise InputError(str(path), no, f"expected 2 fields (docno sub-collection), "
                                            f"found {len(fields)}")
        d, name = fields
        if mapping.get(d, name) != name:
            raise InputError(str(path), no, f"document {d} is mapped to both "
                                            f"{mapping[d]!r} and {name!r}")
        mapping[d] = name
    if not mapping:
        raise InputError(str(path), None, "the mapping file maps no document")
    mapped = docs.map(mapping)
    names = tuple(sorted(set(mapped.dropna())))
    if not names:
        raise InputError(str(path), None, "no document of the archive is in the mapping file")
    codes = pd.Categorical(mapped, categories=list(names)).codes.astype(np.int64)
    return Split(str(path), names, codes)


@dataclass(frozen=True)
class SubcollectionInfo:
    name: str
    documents: int              # documents of the archive (runs and qrels) in it
    relevant: int               # relevant (topic, doc) pairs in it
    topics: int                 # topics with >= 1 relevant document in it


@dataclass(frozen=True)
class RunSubMAP:
    tag: str
    full_map: float | None
    maps: tuple[float | None, ...]   # per sub-collection, aligned with `subcollections`


@dataclass(frozen=True)
class PairTau:
    """One row of Sanderson et al. (2012) Tables 3-4."""

    a: str
    b: str
    tau: float | None
    random_min: float | None
    random_max: float | None
    random_mean: float | None
    random_q025: float | None
    random_q975: float | None
    random_valid: int           # random splits with a defined tau (the R of the p-value)
    p_value: float | None


@dataclass(frozen=True)
class SubcollectionReport:
    """Kendall's tau between sub-collection rankings and its randomization test."""

    collection_id: str
    split: str
    measure: str                # AP (MAP)
    automatic_only: bool
    drop_bottom: float
    permutations: int
    seed: int
    n_unassigned: int
    subcollections: tuple[SubcollectionInfo, ...]
    runs: tuple[RunSubMAP, ...]
    excluded: tuple[tuple[str, str], ...]   # (tag, reason)
    pairs: tuple[PairTau, ...]
    significant: tuple[tuple[float, int], ...]   # (level, pairs with p < level)
    mean_tau: float | None


def select_runs(full_map: np.ndarray, run_types: Sequence[str | None], *, automatic_only: bool,
                drop_bottom: float) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Indices of the runs kept (Sanderson et al. 2012, Section 3) and why others were not."""
    if not (0.0 <= drop_bottom < 1.0):
        raise ParameterError(f"drop_bottom must be in [0, 1), got {drop_bottom}")
    excluded: list[tuple[int, str]] = []
    cand = []
    for i, t in enumerate(run_types):
        if automatic_only and t != "automatic":
            excluded.append((i, f"run type {t or 'unknown'}"))
        else:
            cand.append(i)
    cand_arr = np.array(cand, dtype=np.int64)
    n_drop = int(math.floor(drop_bottom * cand_arr.size))
    if n_drop:
        score = np.nan_to_num(full_map[cand_arr], nan=-np.inf)
        order = np.lexsort((cand_arr, score))     # lowest MAP first, ties by position
        for i in cand_arr[order[:n_drop]]:
            excluded.append((int(i), f"bottom {drop_bottom:.0%} by MAP"))
        cand_arr = np.sort(cand_arr[order[n_drop:]])
    return cand_arr, sorted(excluded)


def prepare_subcollections(c: CodedArchive, keep: np.ndarray) -> subcollections.RankedRelevance:
    """The fast-path input for the kept runs (binary relevance: grade >= 1)."""
    sel = np.isin(c.run, keep)
    recode = np.full(len(c.tags), -1)
    recode[keep] = np.arange(keep.size)
    rel = (c.q_rel >= 1) & (c.q_topic >= 0)
    return subcollections.ranked_relevance(
        recode[c.run[sel]], c.topic[sel], c.doc[sel], c.q_topic[rel], c.q_doc[rel],
        n_runs=int(keep.size), n_topics=len(c.topic_names), n_docs=len(c.docnos))


def subcollections_of_archive(archive, *, split: str = "prefix",
                              permutations: int = SUBCOLLECTION_PERMUTATIONS,
                              seed: int = DEFAULT_SEED, automatic_only: bool = True,
                              drop_bottom: float = SUBCOLLECTION_BOTTOM, workers: int = 1,
                              coded: CodedArchive | None = None,
                              progress: Callable[[int], None] | None = None
                              ) -> SubcollectionReport:
    c = _coded(archive, coded)
    sp = split_documents(c.docnos, split)
    if len(sp.names) < 2:
        raise ParameterError(f"--split {split!r} gives {len(sp.names)} sub-collection(s) "
                             f"({', '.join(sp.names) or 'none'}); need at least 2")
    full = _evaluate_means(c, "AP")
    keep, excluded = select_runs(full, c.run_types, automatic_only=automatic_only,
                                 drop_bottom=drop_bottom)
    if keep.size < 2:
        raise ParameterError(
            f"{keep.size} run(s) left to rank after selection ({len(excluded)} excluded"
            + (", no automatic runs: run types unknown?" if automatic_only else "") + ")")
    prep = prepare_subcollections(c, keep)
    test = subcollections.subcollection_test(
        prep, sp.labels, sp.names, permutations=permutations,
        rng=np.random.default_rng(seed), progress=progress, workers=workers)
    rel = (c.q_rel >= 1) & (c.q_topic >= 0)
    rel_lab = sp.labels[c.q_doc[rel]]
    infos = tuple(SubcollectionInfo(n, int(test.sizes[i]), int((rel_lab == i).sum()),
                                    int(test.n_topics[i])) for i, n in enumerate(sp.names))
    runs = tuple(RunSubMAP(c.tags[r], _f(full[r]), tuple(_f(v) for v in test.maps[:, j]))
                 for j, r in enumerate(keep))
    pairs = []
    for k, (a, b) in enumerate(test.pairs):
        rt = test.random_tau[k]
        rt = rt[np.isfinite(rt)]
        q = np.quantile(rt, [0.025, 0.975]) if rt.size else [np.nan, np.nan]
        pairs.append(PairTau(sp.names[a], sp.names[b], _f(test.tau[k]),
                             _f(rt.min()) if rt.size else None,
                             _f(rt.max()) if rt.size else None,
                             _f(rt.mean()) if rt.size else None, _f(q[0]), _f(q[1]),
                             int(test.random_valid[k]), _f(test.p_value[k])))
    pv = test.p_value[np.isfinite(test.p_value)]
    taus = test.tau[np.isfinite(test.tau)]
    return SubcollectionReport(
        collection_id=c.collection_id, split=sp.rule, measure="AP",
        automatic_only=automatic_only, drop_bottom=drop_bottom, permutations=permutations,
        seed=seed, n_unassigned=test.n_unassigned, subcollections=infos, runs=runs,
        excluded=tuple((c.tags[i], why) for i, why in excluded), pairs=tuple(pairs),
        significant=tuple((lvl, int((pv < lvl).sum())) for lvl in SUBCOLLECTION_LEVELS),
        mean_tau=_f(taus.mean()) if taus.size else None)


# ------------------------------------------------------------------------ store + audits

def load_coded(con, collection: str) -> tuple[str, CodedArchive]:
    """(collection id, coded archive) of a stored collection (any alias), built from the
    stored integer tables (:func:`code_stored`)."""
    from litaudit.runs.archive import load_tables
    from litaudit.store.refdata import resolve_collection

    cid = resolve_collection(con, collection).id
    return cid, code_stored(load_tables(con, cid), cid)


def _save(con, kind: str, cid: str, measure: str | None, params: dict, method: str,
          fp: str, result, seed=None, trials=None) -> int:
    from litaudit.analyses.audits import save_audit

    return save_audit(con, kind=kind, collection_id=cid, measure=measure, params=params,
                      method=method, input_fingerprint=fp, result=result, seed=seed,
                      trials=trials)


def run_rao(con, collection: str, *, depth: int = DEFAULT_DEPTH, measure: str = RAO_MEASURE,
            save: bool = True, loaded=None) -> tuple[RAOReport, int | None]:
    cid, coded = loaded or load_coded(con, collection)
    rep = rao_of_archive(coded, depth=depth, measure=measure)
    aid = _save(con, "reuse-rao", cid, rep.measure, {"depth": depth}, "exact",
                coded.fingerprint, rep) if save else None
    return rep, aid


def run_lou(con, collection: str, *, depth: int = DEFAULT_DEPTH, measure: str = LOU_MEASURE,
            min_map: float = LOU_MIN_MAP, noise_pct: float = LOU_MAX_PCT, save: bool = True,
            loaded=None) -> tuple[LOUReport, int | None]:
    cid, coded = loaded or load_coded(con, collection)
    rep = lou_of_archive(coded, depth=depth, measure=measure, min_map=min_map,
                         noise_pct=noise_pct)
    aid = _save(con, "reuse-lou", cid, rep.measure,
                {"depth": depth, "min_map": min_map, "noise_pct": noise_pct}, "exact",
                coded.fingerprint, rep) if save else None
    return rep, aid


def subcollection_params(split: str, automatic_only: bool, drop_bottom: float) -> dict:
    return {"split": split, "automatic_only": automatic_only, "drop_bottom": drop_bottom}


def run_subcollections(con, collection: str, *, split: str = "prefix",
                       permutations: int = SUBCOLLECTION_PERMUTATIONS, seed: int = DEFAULT_SEED,
                       automatic_only: bool = True, drop_bottom: float = SUBCOLLECTION_BOTTOM,
                       workers: int = 1, save: bool = True, loaded=None,
                       progress: Callable[[int], None] | None = None
                       ) -> tuple[SubcollectionReport, int | None]:
    cid, coded = loaded or load_coded(con, collection)
    rep = subcollections_of_archive(coded, split=split, permutations=permutations, seed=seed,
                                    automatic_only=automatic_only, drop_bottom=drop_bottom,
                                    workers=workers, progress=progress)
    aid = _save(con, "reuse-subcollections", cid, "AP",
                subcollection_params(rep.split, automatic_only, drop_bottom), "randomization",
                coded.fingerprint, rep, seed=seed, trials=permutations) if save else None
    return rep, aid
