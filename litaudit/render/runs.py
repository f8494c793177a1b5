"""The `runs` commands' output: `runs eval`'s per run the mean over topics, or one row per
run and topic (a table, or JSON); what `runs import`, `list`, `show` and `delete` did."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from litaudit.render.console import err, out, print_json, table
from litaudit.runs.archive import incomplete_message

if TYPE_CHECKING:
    from litaudit.runs.archive import StoredRun
    from litaudit.runs.archive_eval import ArchiveEvaluation
    from litaudit.runs.coded import Evaluation
    from litaudit.runs.ingest import ImportReport
    from litaudit.runs.requests import DeletedRuns


def print_runs_import(rep: ImportReport, json_out: bool) -> None:
    """`runs import`: its warnings on stderr (with --json too), then the report."""
    for w in rep.warnings:
        err.print(f"warning: {w}", markup=False)
    if json_out:
        print_json(rep)
        return
    out.print(
        f"{rep.collection_id}: qrels {rep.qrels} ({rep.n_judgments} judgments); "
        f"{len(rep.imported)} run(s) imported ({rep.lines} lines"
        f"{f', {rep.skipped} bad lines skipped' if rep.skipped else ''}), "
        f"{len(rep.unchanged)} unchanged"
    )


def print_runs(rows: tuple[StoredRun, ...], json_out: bool) -> None:
    """`runs list`: a table of the stored runs (an incomplete one: how to fix it)."""
    if json_out:
        print_json([{**asdict(r), "complete": r.complete} for r in rows])
        return
    if not rows:
        out.print("no runs stored")
        return
    out.print(
        table(
            None,
            ["collection", "tag", "participant", "type", "pooled", "topics", "lines", "status"],
            [
                [
                    r.collection_id,
                    r.tag,
                    r.participant,
                    r.run_type,
                    r.pooled,
                    r.n_topics,
                    r.n_lines,
                    "complete" if r.complete else "INCOMPLETE",
                ]
                for r in rows
            ],
        )
    )
    bad = [r for r in rows if not r.complete]
    if bad:
        out.print(incomplete_message(bad[0].collection_id, bad[0].tag, bad[0].path), markup=False)


def print_run(r: StoredRun, json_out: bool) -> None:
    """`runs show`: one stored run's metadata, a line each."""
    if json_out:
        print_json({**asdict(r), "complete": r.complete})
        return
    for k, v in [
        ("tag", r.tag),
        ("collection", r.collection_id),
        ("participant", r.participant),
        ("run type", r.run_type),
        ("pooled", r.pooled),
        ("topics", r.n_topics),
        ("lines", r.n_lines),
        ("bad lines skipped", r.n_skipped),
        ("file", r.path),
        ("sha256", r.sha256),
        ("status", "complete" if r.complete else "INCOMPLETE"),
    ]:
        out.print(f"{k:>18}: {'' if v is None else v}", markup=False)
    if not r.complete:
        out.print(incomplete_message(r.collection_id, r.tag, r.path), markup=False)


def print_deleted(done: DeletedRuns) -> None:
    """`runs delete`: how many runs went (and the qrels, with --whole-archive)."""
    qrels = " and the qrels" if done.everything else ""
    out.print(f"{done.collection_id}: deleted {done.n} run(s){qrels}")


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
