"""`litaudit measures ...`: the measure registry."""

from __future__ import annotations

import typer

from litaudit.cli.common import JsonOpt, open_read

app = typer.Typer(
    help="Measures in ir_measures syntax, with trec_eval aliases.", no_args_is_help=True
)


@app.command("list")
def list_(ctx: typer.Context, json_out: bool = JsonOpt):
    """Registered measures, their aliases and value ranges."""
    from litaudit.render.console import out, print_json, table

    with open_read(ctx) as store:
        rows = store.con.execute(
            "SELECT m.name, m.family, m.cutoff, m.min_value, m.max_value, m.description, "
            " string_agg(a.alias, ', ' ORDER BY a.alias) FROM measures m "
            "LEFT JOIN measure_aliases a ON a.measure = m.name GROUP BY ALL "
            "ORDER BY m.family, m.cutoff NULLS FIRST"
        ).fetchall()
    data = [
        {
            "name": r[0],
            "family": r[1],
            "cutoff": r[2],
            "min": r[3],
            "max": r[4],
            "description": r[5],
            "aliases": (r[6] or "").split(", "),
        }
        for r in rows
    ]
    if json_out:
        print_json(data)
        return
    out.print(
        table(
            f"{len(data)} measures",
            ["name", "aliases", "range", "description"],
            [
                (
                    d["name"],
                    ", ".join(d["aliases"]),
                    f"[{d['min']:g}, {d['max']:g}]",
                    d["description"],
                )
                for d in data
            ],
        )
    )
