"""The key of an `audit claim`, built before the audit is computed (issue 37, item 4): a
repeated identical call finds its stored audit without computing it again (robust03 with
its run archive: 0.22 -> 0.05 s of CPU a reused CLI call in-process; see
:func:`early_fingerprint`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from litaudit.analyses.audits import AuditKey, fingerprint
from litaudit.analyses.extreme.audit_common import population_key
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.population import (
    Filters,
    Population,
    load_population,
    results_fingerprint,
)
from litaudit.analyses.extreme.ranks_input import Preread, dataset_parts
from litaudit.runs.archive import stored_fingerprint
from litaudit.stats.extreme import Sampling

if TYPE_CHECKING:
    import duckdb

# what the early fingerprint covers, named in it: a key of another definition never equals
VERSION = "claim-input-2"


def _lookups(lk: NoiseLookups) -> list[list[str]]:
    """What the reference model's se reads of the store besides the population's rows and
    the archive: topic sets (and their parts), the archived collections, the reference
    noise and the bounded measures (:class:`NoiseLookups`), each sorted."""
    return [
        sorted(repr(x) for x in lk.topic_sets.items()),
        sorted(repr(x) for x in lk.default_sets.items()),
        sorted(lk.archived),
        sorted(repr(x) for x in lk.reference.items()),
        sorted(lk.bounded),
    ]


def _datasets(
    con: duckdb.DuckDBPyConnection, pop: Population, filters: Filters, lookups: NoiseLookups
) -> list:
    """The published rows of every dataset of the collection's topic set when it is a mean
    of parts (its ranks section reads them: :func:`~litaudit.analyses.extreme.ranks.
    ranks_section`), else [] (the topic sets those of ``lookups``)."""
    found = dataset_parts(con, pop.collection_id, filters.topics, Preread.of(lookups.listed))
    if found is None:
        return []
    parts = found[1]
    wanted = dataclasses.replace(filters, track=None, topics=None)
    rows: dict[str, list] = {p: [] for p in parts}
    for x in load_population(con, None, pop.measure, wanted):
        if x.collection_id in rows:
            rows[x.collection_id].append(x.row)
    return [[p, results_fingerprint(rows[p])] for p in parts]


def early_fingerprint(
    con: duckdb.DuckDBPyConnection,
    pop: Population,
    filters: Filters,
    lookups: NoiseLookups | None = None,
) -> str:
    """The input of a claim audit without evidence files, read before it is computed: the
    population's rows (a changed or retracted row changes it), its collection's name and
    topic counts, the stored run archive of the collection
    (:func:`~litaudit.runs.archive.stored_fingerprint`: a new run or qrels changes it; the
    noise, same-topic, chance and resolution sections read it), what the se's choice reads
    (:func:`_lookups`) and the datasets' rows of a mean of parts (:func:`_datasets`)."""
    lookups = NoiseLookups.load(con) if lookups is None else lookups
    return fingerprint(
        [
            VERSION,
            pop.fingerprint,
            [pop.collection_name, pop.n_topics, pop.n_other_topics],
            stored_fingerprint(con, pop.collection_id),
            _lookups(lookups),
            _datasets(con, pop, filters, lookups),
        ]
    )


def claim_key(
    pop: Population, params: dict, sampling: Sampling, input_fingerprint: str
) -> AuditKey:
    """The key of a claim audit, with the input fingerprint given."""
    return population_key("claim", pop, params, sampling, input_fingerprint)
