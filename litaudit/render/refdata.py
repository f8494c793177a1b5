"""What `collections list`, `show`, `add`, `depth` and `measures list` print: a table or
lines of text, or ``--json`` (the answers of :mod:`litaudit.curation.refdata_requests`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from litaudit.render.console import escape, out, print_json, table
from litaudit.store.pool_depths import DepthChange

if TYPE_CHECKING:
    from litaudit.curation.refdata_requests import PoolDepthShown
    from litaudit.store.collections import CollectionDetails, CollectionListing, CollectionRef
    from litaudit.store.measures import MeasureListing


def print_collections(rows: Sequence[CollectionListing], json_out: bool) -> None:
    """`collections list`: one row a collection (its name and, when they differ, its id)."""
    if json_out:
        print_json(rows)
        return
    out.print(
        table(
            f"{len(rows)} collections",
            ["name / id", "title", "queries", "results"],
            [
                (
                    r.name if r.name == r.id else f"{r.name}\n{r.id}",
                    r.title,
                    r.n_topics,
                    r.results,
                )
                for r in rows
            ],
            keep=("name / id",),
        )
    )


def print_collection(data: CollectionDetails, json_out: bool) -> None:
    """`collections show`: its fields, aliases, topic sets and results per measure."""
    if json_out:
        print_json(data)
        return
    out.print(
        f"[bold]{escape(data.title)}[/] ({escape(data.name)})  id {escape(data.id)}"
        + ("  \\[ir_datasets]" if data.ir_datasets else ""),
        markup=True,
    )
    out.print(f"documents: {data.documents}")
    if data.provenance:
        out.print(f"query count and title from: {data.provenance}")
    if data.notes:
        out.print(f"notes: {data.notes}")
    out.print(f"aliases: {', '.join(data.aliases)}")
    out.print(
        table(
            "Topic sets",
            ["name", "topics", "default", "description"],
            [(t.name, t.n_topics, t.default, t.description) for t in data.topic_sets],
        )
    )
    per = [(r.measure, r.source, r.count) for r in data.results]
    out.print(table("Results (not retracted)", ["measure", "source", "count"], per))


def print_added_collection(ref: CollectionRef, json_out: bool) -> None:
    """`collections add`: the collection added and its query count."""
    if json_out:
        print_json(ref)
    else:
        out.print(f"added collection {ref.id} ({ref.default_topics} queries)", markup=False)


def print_pool_depth(answer: PoolDepthShown | DepthChange, json_out: bool) -> None:
    """`collections depth`: the change recorded, or the depth in force and its history."""
    if json_out:
        print_json(answer)
        return
    if isinstance(answer, DepthChange):
        was = "none" if answer.old_depth is None else str(answer.old_depth)
        out.print(
            f"{answer.collection_id}: pool depth {was} -> {answer.depth} ({answer.source})",
            markup=False,
        )
        return
    now = answer.depth
    out.print(
        f"{answer.collection_id}: pool depth "
        + ("not recorded" if now is None else f"{now[0]} ({now[1]})"),
        markup=False,
    )
    for c in answer.history:
        was = "none" if c.old_depth is None else str(c.old_depth)
        why = f": {c.reason}" if c.reason else ""
        out.print(f"  {c.changed_at} {c.who}: {was} -> {c.depth} ({c.source}){why}", markup=False)


def print_measures(data: Sequence[MeasureListing], json_out: bool) -> None:
    """`measures list`: each measure, its aliases, value range and description."""
    if json_out:
        print_json(data)
        return
    out.print(
        table(
            f"{len(data)} measures",
            ["name", "aliases", "range", "description"],
            [
                (d.name, ", ".join(d.aliases), f"[{d.min:g}, {d.max:g}]", d.description)
                for d in data
            ],
        )
    )
