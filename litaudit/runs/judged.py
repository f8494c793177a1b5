"""Where retrieved rows meet their qrels lines: the grade of each (topic, docno) that a run
retrieved and the qrels judge, found with integer codes only (see
:func:`litaudit.runs.evaluate.evaluate_coded`).
"""

from __future__ import annotations

import numpy as np

DENSE_LOOKUP_MAX = 1 << 26  # (topic, docno) cells of the dense qrels table (64 MiB)


def judged_lookup(q_topic, q_doc, q_rel, n_top: int, n_docs: int):
    """A function (topic, doc) -> (rows, grades): the retrieved rows that have a qrels
    line for their topic. Built once per qrels (the threads of one evaluation share it).

    A dense int8 (topic, judged docno) table when it is small enough and the grades fit,
    else the qrels lines of each docno (found by counting sort) matched on the topic."""
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    if not len(q_doc):
        return lambda topic, doc: empty
    if q_rel.min() > -128 and q_rel.max() < 128:
        # the judged docnos numbered densely: a row whose docno nobody judged is out
        # after one small look-up, the others meet a (topic, judged docno) int8 table
        judged = np.zeros(n_docs, dtype=bool)
        judged[q_doc] = True
        n_judged = int(np.count_nonzero(judged))
        if n_top * n_judged <= DENSE_LOOKUP_MAX:
            jd = np.cumsum(judged, dtype=np.int32)
            jd -= 1
            jd[~judged] = -1
            table = np.full(n_top * n_judged, -128, dtype=np.int8)
            table[q_topic * n_judged + jd[q_doc]] = q_rel

            def dense(topic, doc):
                if not len(doc):
                    return empty
                row_jd = jd[doc]
                rows = np.flatnonzero(row_jd >= 0)
                cell = topic[rows].astype(np.int64) * n_judged
                cell += row_jd[rows]
                grade = table[cell]
                hit = grade != -128
                return rows[hit], grade[hit].astype(np.int64)

            return dense
    by_doc = np.argsort(q_doc, kind="stable")
    qd_count = np.bincount(q_doc, minlength=n_docs)
    qd_start = np.cumsum(qd_count) - qd_count
    qd_topic = q_topic[by_doc]
    rel_by_doc = q_rel[by_doc]

    def sparse(topic, doc):
        if not len(doc):
            return empty
        cnt = qd_count[doc]
        cand = np.flatnonzero(cnt)
        c_topic = topic[cand]
        c_first = qd_start[doc[cand]]
        c_cnt = cnt[cand]
        found = np.full(len(cand), -1, dtype=np.int64)  # qrels line (by_doc order)
        live = np.arange(len(cand))
        j = 0
        while len(live):
            at = c_first[live] + j
            hit = qd_topic[at] == c_topic[live]
            found[live[hit]] = at[hit]
            j += 1
            live = live[~hit & (c_cnt[live] > j)]
        ok = found >= 0
        return cand[ok], rel_by_doc[found[ok]]

    return sparse
