"""Sub-collection differences from a run archive (Sanderson, Turpin, Zhang, Scholer, CIKM
2012): the documents split into sub-collections (by docno prefix, or a rule given), each
run's MAP on each, Kendall's tau between the sub-collections' rankings of the runs, and a
seeded randomization test against random splits of the same sizes
(``litaudit.stats.subcollections``); saved as audits of kind 'reuse-subcollections'.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litaudit import defaults
from litaudit.analyses.audits import Audited, AuditKey, run_or_reuse
from litaudit.analyses.reuse.coded_archive import CodedArchive, as_coded, evaluate_means, load_coded
from litaudit.analyses.reuse.overlap import optional_float as _f
from litaudit.analyses.reuse.subcollection_split import split_documents
from litaudit.errors import ParameterError
from litaudit.runs.archive import stored_fingerprint
from litaudit.stats import subcollections
from litaudit.store.collections import resolve_collection

if TYPE_CHECKING:
    import duckdb

# Sub-collections: automatic runs only, the bottom 25% by MAP discarded (Sanderson et al.
# 2012, Section 3, after Voorhees and Buckley, SIGIR 2002); 1,000 random splits (Section
# 3.2); a pair whose tau falls below the random taus at the 0.05 level ranks systems
# differently from chance (Table 2 reports the 0.05, 0.01 and 0.001 levels).
SUBCOLLECTION_BOTTOM = 0.25
SUBCOLLECTION_PERMUTATIONS = subcollections.DEFAULT_PERMUTATIONS
SUBCOLLECTION_ALPHA = 0.05
SUBCOLLECTION_LEVELS = (0.05, 0.01, 0.001)
DEFAULT_SEED = defaults.SUBCOLLECTION_SEED
SOURCE_SANDERSON = "Sanderson, Turpin, Zhang, Scholer, CIKM 2012"


@dataclass(frozen=True)
class SubcollectionInfo:
    name: str
    documents: int  # documents of the archive (runs and qrels) in it
    relevant: int  # relevant (topic, doc) pairs in it
    topics: int  # topics with >= 1 relevant document in it


@dataclass(frozen=True)
class RunSubMAP:
    tag: str
    full_map: float | None
    maps: tuple[float | None, ...]  # per sub-collection, aligned with `subcollections`


@dataclass(kw_only=True, frozen=True)
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
    random_valid: int  # random splits with a defined tau (the R of the p-value)
    p_value: float | None


@dataclass(frozen=True)
class SubcollectionReport:
    """Kendall's tau between sub-collection rankings and its randomization test."""

    collection_id: str
    split: str
    measure: str  # AP (MAP)
    automatic_only: bool
    drop_bottom: float
    permutations: int
    seed: int
    n_unassigned: int
    subcollections: tuple[SubcollectionInfo, ...]
    runs: tuple[RunSubMAP, ...]
    excluded: tuple[tuple[str, str], ...]  # (tag, reason)
    pairs: tuple[PairTau, ...]
    significant: tuple[tuple[float, int], ...]  # (level, pairs with p < level)
    mean_tau: float | None


def select_runs(
    full_map: np.ndarray,
    run_types: Sequence[str | None],
    *,
    automatic_only: bool,
    drop_bottom: float,
) -> tuple[np.ndarray, list[tuple[int, str]]]:
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
        order = np.lexsort((cand_arr, score))  # lowest MAP first, ties by position
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
        recode[c.run[sel]],
        c.topic[sel],
        c.doc[sel],
        c.q_topic[rel],
        c.q_doc[rel],
        n_runs=int(keep.size),
        n_topics=len(c.topic_names),
        n_docs=len(c.docnos),
    )


def _pair_taus(test, names) -> list[PairTau]:
    """Each pair of sub-collections: its tau against the taus of its random splits."""
    pairs = []
    for k, (a, b) in enumerate(test.pairs):
        rt = test.random_tau[k]
        rt = rt[np.isfinite(rt)]
        q = np.quantile(rt, [0.025, 0.975]) if rt.size else [np.nan, np.nan]
        pairs.append(
            PairTau(
                a=names[a],
                b=names[b],
                tau=_f(test.tau[k]),
                random_min=_f(rt.min()) if rt.size else None,
                random_max=_f(rt.max()) if rt.size else None,
                random_mean=_f(rt.mean()) if rt.size else None,
                random_q025=_f(q[0]),
                random_q975=_f(q[1]),
                random_valid=int(test.random_valid[k]),
                p_value=_f(test.p_value[k]),
            )
        )
    return pairs


def subcollections_of_archive(
    archive,
    *,
    split: str = "prefix",
    permutations: int = SUBCOLLECTION_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
    automatic_only: bool = True,
    drop_bottom: float = SUBCOLLECTION_BOTTOM,
    workers: int = 1,
    coded: CodedArchive | None = None,
    progress: Callable[[int], None] | None = None,
) -> SubcollectionReport:
    c = as_coded(archive, coded)
    sp = split_documents(c.docnos, split)
    if len(sp.names) < 2:
        raise ParameterError(
            f"--split {split!r} gives {len(sp.names)} sub-collection(s) "
            f"({', '.join(sp.names) or 'none'}); need at least 2"
        )
    full = evaluate_means(c, "AP")
    keep, excluded = select_runs(
        full, c.run_types, automatic_only=automatic_only, drop_bottom=drop_bottom
    )
    if keep.size < 2:
        raise ParameterError(
            f"{keep.size} run(s) left to rank after selection ({len(excluded)} excluded"
            + (", no automatic runs: run types unknown?" if automatic_only else "")
            + ")"
        )
    prep = prepare_subcollections(c, keep)
    test = subcollections.subcollection_test(
        prep,
        sp.labels,
        sp.names,
        permutations=permutations,
        rng=np.random.default_rng(seed),
        progress=progress,
        workers=workers,
    )
    rel = (c.q_rel >= 1) & (c.q_topic >= 0)
    rel_lab = sp.labels[c.q_doc[rel]]
    infos = tuple(
        SubcollectionInfo(n, int(test.sizes[i]), int((rel_lab == i).sum()), int(test.n_topics[i]))
        for i, n in enumerate(sp.names)
    )
    runs = tuple(
        RunSubMAP(c.tags[r], _f(full[r]), tuple(_f(v) for v in test.maps[:, j]))
        for j, r in enumerate(keep)
    )
    pairs = _pair_taus(test, sp.names)
    pv = test.p_value[np.isfinite(test.p_value)]
    taus = test.tau[np.isfinite(test.tau)]
    return SubcollectionReport(
        collection_id=c.collection_id,
        split=sp.rule,
        measure="AP",
        automatic_only=automatic_only,
        drop_bottom=drop_bottom,
        permutations=permutations,
        seed=seed,
        n_unassigned=test.n_unassigned,
        subcollections=infos,
        runs=runs,
        excluded=tuple((c.tags[i], why) for i, why in excluded),
        pairs=tuple(pairs),
        significant=tuple((lvl, int((pv < lvl).sum())) for lvl in SUBCOLLECTION_LEVELS),
        mean_tau=_f(taus.mean()) if taus.size else None,
    )


# ------------------------------------------------------------------------ store + audits


def subcollection_params(split: str, automatic_only: bool, drop_bottom: float) -> dict:
    return {"split": split, "automatic_only": automatic_only, "drop_bottom": drop_bottom}


@dataclass(frozen=True, kw_only=True)
class SubcollectionTest:
    """The sub-collection test as asked: documents split by ``split`` ('prefix',
    'prefix:A,B' or a mapping file), ``permutations`` random splits from ``seed``, the
    automatic runs only (or all), the bottom ``drop_bottom`` share of runs by MAP left
    out (Sanderson et al. 2012, Section 3)."""

    split: str = "prefix"
    permutations: int = SUBCOLLECTION_PERMUTATIONS
    seed: int = DEFAULT_SEED
    automatic_only: bool = True
    drop_bottom: float = SUBCOLLECTION_BOTTOM


def run_subcollections(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    test: SubcollectionTest = SubcollectionTest(),
    *,
    workers: int = 1,
    save: bool = True,
    loaded=None,
    progress: Callable[[int], None] | None = None,
) -> Audited[SubcollectionReport]:
    """The sub-collection ``test`` of a stored archive, stored as an audit (or the stored
    audit of an identical call: same split, selection, seed, permutations and archive).
    ``loaded``: (collection id, coded archive), or a call that loads it (default
    :func:`load_coded`), made only when no identical audit is stored: the key is the
    stored archive's fingerprint, read first (an identical call 0.18 -> 0.03 s of CPU on
    robust03)."""
    if loaded is None or callable(loaded):
        load = loaded or (lambda: load_coded(con, collection))
        cid = resolve_collection(con, collection).id
        fingerprint = stored_fingerprint(con, cid)  # load_coded's
    else:
        cid, fingerprint = loaded[0], loaded[1].fingerprint
        load = lambda: loaded  # noqa: E731
    split, seed, permutations = test.split, test.seed, test.permutations
    rule = split if split.startswith("prefix") else str(Path(split))
    params = subcollection_params(rule, test.automatic_only, test.drop_bottom)
    if not split.startswith("prefix") and Path(split).is_file():
        # the mapping file is input too: a changed file is a different call
        params["split_sha256"] = hashlib.sha256(Path(split).read_bytes()).hexdigest()
    key = AuditKey(
        kind="reuse-subcollections",
        collection_id=cid,
        measure="AP",
        params=params,
        method="randomization",
        input_fingerprint=fingerprint,
        seed=seed,
        trials=permutations,
    )
    return run_or_reuse(
        con,
        key,
        lambda: subcollections_of_archive(
            load()[1],
            split=split,
            permutations=permutations,
            seed=seed,
            automatic_only=test.automatic_only,
            drop_bottom=test.drop_bottom,
            workers=workers,
            progress=progress,
        ),
        save=save,
    )
