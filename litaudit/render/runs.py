"""`runs eval`'s output: per run the mean over topics, or one row per run and topic (a
table, or JSON)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from litaudit.render.console import out, print_json, table

if TYPE_CHECKING:
    from litaudit.runs.archive_eval import ArchiveEvaluation
    from litaudit.runs.evaluate import Evaluation


def print_evaluation(res: ArchiveEvaluation, *, per_topic: bool, json_out: bool) -> None:
    """Print what ``runs eval`` computed (``--per-topic``, ``--json``)."""
    if per_topic:
        _print_per_topic(res.evaluation, res.collection_id, json_out)
        return
    _print_means(res.evaluation, res.collection_id, json_out)


def _print_per_topic(ev: Evaluation, cid: str, json_: bool) -> None:
    """`runs eval --per-topic`: one row per run and evaluated topic."""
    rows = []
    for ri, tag in enumerate(ev.runs):
        for ti, topic in enumerate(ev.topics):
            vals = ev.scores[:, ri, ti]
            if not all(v != v for v in vals):  # skip topics not evaluated for the run
                rows.append([tag, topic, *[float(v) for v in vals]])
    if json_:
        print_json([dict(zip(["run", "topic", *ev.measures], r, strict=True)) for r in rows])
        return
    out.print(table(f"{cid}: per topic", ["run", "topic", *ev.measures], rows))


def _print_means(ev: Evaluation, cid: str, json_: bool) -> None:
    """`runs eval`: one row per run, the mean over its topics."""
    means = {m: ev.mean(m) for m in ev.measures}
    counts = ev.topic_counts()
    if json_:
        print_json(
            {
                "collection": cid,
                "measures": list(ev.measures),
                "runs": [
                    {
                        "run": tag,
                        "topics": int(counts[i]),
                        **{m: float(means[m][i]) for m in ev.measures},
                    }
                    for i, tag in enumerate(ev.runs)
                ],
            }
        )
        return
    out.print(
        table(
            f"{cid}: mean over topics",
            ["run", "topics", *ev.measures],
            [
                [tag, int(counts[i]), *[float(means[m][i]) for m in ev.measures]]
                for i, tag in enumerate(ev.runs)
            ],
        )
    )
