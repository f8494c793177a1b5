"""`litaudit audit ...`: extreme-value audits of published results (Carterette 2015).

Every command stores its audit (parameters, method, seed, input fingerprint, version,
result) unless ``--no-save``; with ``--no-save`` the database is opened read-only.
Rendering works on the JSON form of a report, so `audit show` prints a stored audit
exactly as the command that made it did.
"""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit import defaults
from litaudit.cli.common import JsonOpt, open_read, open_write

app = typer.Typer(help="Published results against the record and against chance "
                  "(Carterette, SIGIR 2015)",
                  no_args_is_help=True)

CollectionOpt = typer.Option(..., "--collection", "-c", help="Collection id or alias.")
MeasureOpt = typer.Option(..., "--measure", "-m", help="Measure (AP, MAP, P@10, P_10, ...).")
SourceOpt = typer.Option(None, "--source", help="papers | official (default: both).",
                         show_default=False)
RoleOpt = typer.Option(None, "--role", help="proposed | baseline | official | reproduction "
                       "(repeatable) (default: all).", show_default=False)
RunTypeOpt = typer.Option(None, "--run-type", help="automatic | manual (repeatable) "
                          "(default: all).", show_default=False)
YearsOpt = typer.Option(None, "--years", help="YEAR or FROM-TO.")
TopicsOpt = typer.Option(None, "--topics", help="Topic count (50) or topic-set name "
                         "(default: the only one, else the collection's default set).",
                         show_default=False)
RetractedOpt = typer.Option(False, "--include-retracted", help="Include retracted results.")
NonstandardOpt = typer.Option(False, "--include-nonstandard",
                              help="Include results flagged non-standard.")
AlphaOpt = typer.Option(defaults.ALPHA, "--alpha", help="Level of the thresholds of the max "
                        "and min (0 < alpha < 1).")
POpt = typer.Option(defaults.P_INTERVAL, "--p", help="Probability defining mu0 and the lower "
                    "bound (0 < p < 0.5; interval coverage 1-2p).")
MethodOpt = typer.Option("exact", "--method", help="exact | montecarlo (the paper's sampling).")
TrialsOpt = typer.Option(None, "--trials", help="Monte Carlo trials (default: "
                         f"{defaults.MONTECARLO_TRIALS}).", show_default=False)
SeedOpt = typer.Option(None, "--seed", help="Monte Carlo seed (default: "
                       f"{defaults.MONTECARLO_SEED}).", show_default=False)
NoSaveOpt = typer.Option(False, "--no-save", help="Do not store the audit (read-only).")


def _filters(source, role, run_type, years, topics, include_retracted, include_nonstandard):
    from litaudit.analyses.best import Filters

    return Filters.parse(source=source, roles=role or (), run_types=run_type or (),
                         years=years, topics=topics, include_retracted=include_retracted,
                         include_nonstandard=include_nonstandard)


def _run(ctx: typer.Context, no_save: bool, fn):
    """Call fn(con) on a read-only store (--no-save) or inside a write transaction."""
    if no_save:
        with open_read(ctx) as store:
            return fn(store.con)
    with open_write(ctx) as store, store.transaction() as con:
        return fn(con)


def _print(renderable) -> None:
    """Print at the terminal's width, or unwrapped (160 columns) when piped or captured."""
    from litaudit.render.console import out

    if out.is_terminal:
        out.print(renderable)
    else:
        from rich.console import Console

        Console(highlight=False, soft_wrap=True, width=160).print(renderable)


def _line(text: str) -> None:
    """Print a line of text as is (no rich markup: '[audit #3]' stays)."""
    from litaudit.render.console import out

    out.print(text, markup=False)


def _p(x, below: bool = False, floor: float | None = defaults.P_FLOOR) -> str:
    """A p-value: 3 significant digits, or '< 1e-6' below its floor (defaults.P_FLOOR)."""
    from litaudit.analyses.wording import p_text

    return p_text(x, below, floor)


def _population(d: dict) -> None:
    from litaudit.analyses.population import population_from_json
    from litaudit.analyses.wording import population_sentence

    _line(population_sentence(population_from_json(d["population"])))


def _fit(d: dict) -> None:
    from litaudit.analyses.wording import fit_sentence
    from litaudit.stats.modelfit import ModelFit

    _line(fit_sentence(ModelFit(**d)))


def _cited(r: dict) -> str:
    return r["citation"] if r["source"] == "paper" and r["citation"] else f"TREC {r['track']}"


def _f(x, digits: int = 4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _source_label(d: dict) -> str:
    return {"paper": "papers", "official": "official", None: "all sources"}[d.get("source")]


def _head(d: dict, what: str) -> str:
    aid = f"  [audit #{d['audit_id']}]" if d.get("audit_id") is not None else ""
    other = (f" ({d['n_other_topics']} results on other topic counts left out)"
             if d.get("n_other_topics") else "")
    return (f"{what}: {d['collection_name']} {d['measure']} ({_source_label(d)}), "
            f"{d['n_topics']} topics{other}{aid}")


def _render_best(d: dict) -> None:
    from litaudit.render.console import table

    s = d["stats"]
    ref, th, iv, mx = s["reference"], s["thresholds"], s["interval"], s["mxvd"]
    method = s["method"] + (f" ({s['trials']} trials, seed {s['seed']})" if s["trials"] else "")
    _line(_head(d, "Best-result audit") + f"  method: {method}")
    _population(d)
    _print(table("Table 2: the published population",
                 ["N", "mean", "sd", "se", "min", "max"],
                 [(ref["n_results"], ref["mu"], ref["sd"], ref["se"], ref["minimum"],
                   ref["maximum"])]))
    cov = f"{round(100 * iv['coverage'])}%"
    _print(table(f"Table 3: intrinsic effectiveness of the best (p = {s['p']})",
                 ["best", "mu0", f"{cov} interval", "mu0 below best", "candidates"],
                 [(iv["value"], iv["mu0"], f"[{_f(iv['lower'])}, {_f(iv['upper'])}]",
                   f"{100 * iv['drop']:.1f}%", s["n_candidates"])]))
    a, n = th["alpha"], ref["n_results"]
    _print(table(f"Thresholds of the max and min of N = {n} at alpha = {a}",
                 ["", "threshold", "published results", f"expected of {n} draws under the "
                  "model"],
                 [("max above", th["max_threshold"], th["n_above"],
                   th["expected_above_under_null"]),
                  ("min below", th["min_threshold"], th["n_below"],
                   th["expected_below_under_null"]),
                  ("within", None, th["n_within"], None)], digits=4))
    _fit(d["fit"])
    g = mx["gumbel"]
    _line(f"Expected max of {ref['n_results']} draws: {_f(mx['expected_max'])} "
              f"(+{100 * mx['lift']:.1f}% over the mean; Gumbel location "
              f"{_f(g['location'])}, scale {_f(g['scale'])})")
    _print(table(f"Candidate best systems (>= {_f(iv['lower'])})",
                 ["rank", "value", "system", "role", "type", "year", "source", "location"],
                 [(c["rank"], c["result"]["value_text"], c["result"]["system"],
                   c["result"]["role"], c["result"]["run_type"] or "-", c["result"]["year"],
                   _cited(c["result"]), c["result"]["location"] or "-")
                  for c in d["candidates"]]))


def _render_claim(d: dict) -> None:
    from litaudit.analyses.wording import fmt_n_star
    from litaudit.render.console import table

    st = d["stats"]
    rc, ch, iv = st["record"], st["chance"], st["interval"]
    method = st["method"] + (f" ({st['trials']} trials, seed {st['seed']})"
                             if st["trials"] else "")
    _line(_head(d, "Claim audit") + ("" if method == "exact" else f"  method: {method}"))
    _population(d)
    for sentence in d["answers"]:
        _line(sentence)
    cov = f"{round(100 * iv['coverage'])}%"
    rec = d["record_holder"]
    riv = rc["record_interval"]
    where = ("yes" if rc["claim_in_record_interval"] else
             "no (above it)" if rc["value"] > rc["record"] else "no (below it)")
    _print(table("(a) against the record", ["", "value"], [
        ("record", f"{rec['value_text']} {rec['system']} ({_cited(rec)})"),
        (f"record's {cov} interval (max of {st['reference']['n_results']})",
         f"[{_f(riv['lower'])}, {_f(riv['upper'])}]"),
        ("claim in the record's interval", where),
        ("record in the claim's interval", "yes" if rc["record_in_claim_interval"] else "no"),
        ("published results >= claim" + (" (others)" if d["subject"] else ""),
         str(rc["n_at_or_above"])),
    ], justify_numbers=False))
    m = ch["n_draws"]
    _print(table(f"(b) against chance: the max of M = {m} draws from Normal("
                 f"{_f(ch['mu'])}, {_f(ch['se'])})", ["", "value"], [
        (f"threshold (exceeded with probability {ch['alpha']:g})", _f(ch["threshold"])),
        ("claim above the threshold", "yes" if ch["passes"] else "no"),
        ("expected above it under the model (M x P(one draw))",
         f"{ch['expected_above_under_null']:.3f}"),
        ("published results above it", str(ch["n_published_above"])),
        ("p = P(max of M >= claim), descriptive",
         _p(ch["p_value"], ch["p_below_floor"], ch["p_floor"])),
        ("N* (experiments whose max reaches the claim with probability alpha)",
         fmt_n_star(ch["n_star"] if ch["n_star"] is not None else float("inf"),
                    ch["n_star_capped"], ch["n_star_cap"])),
    ], justify_numbers=False))
    _print(table(f"(c) the claim's own interval (max of M, p = {iv['p']:g})", ["", "value"], [
        ("mu0", _f(iv["mu0"])),
        (f"{cov} interval", f"[{_f(iv['lower'])}, {_f(iv['upper'])}]"),
    ], justify_numbers=False))


def _render_history(d: dict) -> None:
    from litaudit.render.console import table

    h = d["history"]
    _line(_head(d, "Sequential-testing history") +
              f"  reference: {h['reference']} (mean {_f(h['mu'])}, sd {_f(h['sd'])})")
    _population(d)
    rows = []
    for pt, rec in zip(h["points"], d["records"], strict=True):
        rows.append((pt["year"], pt["n_new"], pt["N"], pt["record"],
                     "*" if pt["new_record"] else "", pt["expected_max"], pt["threshold"],
                     _p(pt["p_value"], pt["p_below_floor"]),
                     None if pt["beyond_chance"] is None else pt["beyond_chance"],
                     f"{rec['value_text']} {rec['system']} ({_cited(rec)})"))
    _print(table(None, ["year", "new", "N", "record", "new", "expected max",
                        f"threshold ({h['alpha']})", "p", "above", "record holder"],
                 rows))
    _line(f"{h['n_records']} record years; {h['n_beyond']} with the record above the "
          f"{h['alpha']:g} threshold of the max of the N so far.")
    _fit(d["fit"])


def _render_summary(d: dict) -> None:
    from litaudit.render.console import table

    rows = [(r["collection_name"], r["measure"], {"paper": "papers"}.get(r["source"],
                                                                         r["source"]),
             r["N"], r["n_topics"], r["best_text"], r["mu0"], r["lower"], r["n_candidates"],
             r["threshold"], r["n_above"], _composition(r["population"])) for r in d["rows"]]
    _print(table(f"Extreme-value audits (Carterette, SIGIR 2015): alpha = {d['alpha']}, "
                 f"p = {d['p']}, N >= {d['min_n']}",
                 ["collection", "measure", "source", "N", "n", "best", "mu0", "lower",
                  "candidates", "threshold", "above", "roles (run types)"], rows))
    bad = sum(r["model_rejected"] for r in d["rows"])
    _line(f"Model fit (see `audit best`): the reference model is rejected at alpha "
          f"{d['alpha']} in {bad} of {len(d['rows'])} groups; thresholds and intervals "
          "describe systems as good as the average result.")
    if d["skipped"]:
        _line(f"{len(d['skipped'])} group(s) skipped:")
        for cname, meas, src, n, why in d["skipped"]:
            _line(f"  {cname} {meas} ({src}, N = {n}): {why}")


def _composition(ps: dict) -> str:
    """'official 103 (automatic 86, manual 17)': roles, and run types where recorded."""
    roles = ", ".join(f"{t['label']} {t['n']}" for t in ps["roles"])
    types = [t for t in ps["run_types"] if t["label"] != "-"]
    return roles + (f" ({', '.join(t['label'] + ' ' + str(t['n']) for t in types)})"
                    if types else "")


_RENDER = {"best": _render_best, "claim": _render_claim, "history": _render_history,
           "summary": _render_summary}


def _register_renderers() -> None:
    """Put this module's renderers (on the JSON form) into the registry `audit show` uses."""
    from litaudit.render.audits import RENDERERS
    from litaudit.render.console import to_jsonable

    def on_json(fn):
        return lambda result: fn(to_jsonable(result))

    for kind, fn in _RENDER.items():
        RENDERERS.setdefault(kind, on_json(fn))


def _emit(rep, json_out: bool, kind: str) -> None:
    from litaudit.render.console import print_json, to_jsonable

    if json_out:
        print_json(rep)
    else:
        _RENDER[kind](to_jsonable(rep))


@app.command("best")
def best(ctx: typer.Context, collection: str = CollectionOpt, measure: str = MeasureOpt,
         source: str = SourceOpt, role: list[str] = RoleOpt, run_type: list[str] = RunTypeOpt,
         years: str = YearsOpt, topics: str = TopicsOpt,
         include_retracted: bool = RetractedOpt, include_nonstandard: bool = NonstandardOpt,
         alpha: float = AlphaOpt, p: float = POpt, method: str = MethodOpt,
         trials: int = TrialsOpt, seed: int = SeedOpt, no_save: bool = NoSaveOpt,
         json_out: bool = JsonOpt):
    """The population, the thresholds of its max and min, and the candidate best systems
    (Tables 2-3)."""
    from litaudit.analyses.best import run_best

    f = _filters(source, role, run_type, years, topics, include_retracted, include_nonstandard)
    rep = _run(ctx, no_save, lambda con: run_best(
        con, collection, measure, filters=f, alpha=alpha, p=p, method=method, trials=trials,
        seed=seed, save=not no_save))
    _emit(rep, json_out, "best")


@app.command("claim")
def claim(ctx: typer.Context, collection: str = CollectionOpt, measure: str = MeasureOpt,
          value: float = typer.Option(None, "--value", help="A new claimed value (judged as "
                                      "one more draw besides the N published).",
                                      show_default=False),
          result: int = typer.Option(None, "--result", help="A published result's id "
                                     "(judged as one of the N).", show_default=False),
          system: str = typer.Option(None, "--system", help="A published result by its "
                                     "system name (judged as one of the N).",
                                     show_default=False),
          n: int = typer.Option(None, "--n", help="Experiments besides the claim (default: N "
                                "for --value, N - 1 for --result/--system).",
                                show_default=False),
          hidden_multiplier: float = typer.Option(
              1.0, "--hidden-multiplier", help="Experiments run per experiment published."),
          source: str = SourceOpt, role: list[str] = RoleOpt,
          run_type: list[str] = RunTypeOpt, years: str = YearsOpt, topics: str = TopicsOpt,
          include_retracted: bool = RetractedOpt, include_nonstandard: bool = NonstandardOpt,
          alpha: float = AlphaOpt, p: float = POpt, method: str = MethodOpt,
          trials: int = TrialsOpt, seed: int = SeedOpt, no_save: bool = NoSaveOpt,
          json_out: bool = JsonOpt):
    """A claim against the record, against chance (the max of N+1, or of N for a published
    result) and its own mu0 and interval."""
    from litaudit.analyses.best import run_claim

    f = _filters(source, role, run_type, years, topics, include_retracted, include_nonstandard)
    rep = _run(ctx, no_save, lambda con: run_claim(
        con, collection, measure, value, result_id=result, system=system, n=n,
        hidden_multiplier=hidden_multiplier, filters=f, alpha=alpha, p=p, method=method,
        trials=trials, seed=seed, save=not no_save))
    _emit(rep, json_out, "claim")


@app.command("history")
def history(ctx: typer.Context, collection: str = CollectionOpt, measure: str = MeasureOpt,
            reference: str = typer.Option("final", "--reference",
                                          help="final (all results) | running (so far)."),
            source: str = SourceOpt, role: list[str] = RoleOpt,
            run_type: list[str] = RunTypeOpt, years: str = YearsOpt, topics: str = TopicsOpt,
            include_retracted: bool = RetractedOpt,
            include_nonstandard: bool = NonstandardOpt, alpha: float = AlphaOpt,
            no_save: bool = NoSaveOpt, json_out: bool = JsonOpt):
    """The record year by year against the expected max and threshold for the N so far."""
    from litaudit.analyses.best import run_history

    f = _filters(source, role, run_type, years, topics, include_retracted, include_nonstandard)
    rep = _run(ctx, no_save, lambda con: run_history(
        con, collection, measure, filters=f, alpha=alpha, reference=reference,
        save=not no_save))
    _emit(rep, json_out, "history")


@app.command("summary")
def summary(ctx: typer.Context,
            min_n: int = typer.Option(defaults.MIN_N, "--min-n",
                                      help="Smallest population audited (at least "
                                           f"{defaults.MIN_N})."),
            alpha: float = AlphaOpt, p: float = POpt,
            include_retracted: bool = RetractedOpt,
            include_nonstandard: bool = NonstandardOpt, no_save: bool = NoSaveOpt,
            json_out: bool = JsonOpt):
    """`audit best` (exact) for every collection, measure and source; one table."""
    from litaudit.analyses.best import run_summary

    rep = _run(ctx, no_save, lambda con: run_summary(
        con, min_n=min_n, alpha=alpha, p=p, include_retracted=include_retracted,
        include_nonstandard=include_nonstandard, save=not no_save))
    _emit(rep, json_out, "summary")


@app.command("list")
def list_(ctx: typer.Context,
          kind: str = typer.Option(None, "--kind", help="best | claim | history | ..."),
          collection: str = typer.Option(None, "--collection", "-c",
                                         help="Collection id or alias."),
          measure: str = typer.Option(None, "--measure", "-m", help="Measure."),
          json_out: bool = JsonOpt):
    """List stored audits (all kinds unless --kind)."""
    from litaudit.analyses.audits import list_audits
    from litaudit.render.console import print_json, table
    from litaudit.store.refdata import resolve_collection, resolve_measure

    with open_read(ctx) as store:
        cid = resolve_collection(store.con, collection).id if collection else None
        meas = resolve_measure(store.con, measure) if measure else None
        rows = list_audits(store.con, kind=kind, collection_id=cid, measure=meas)
    if json_out:
        print_json([{k: v for k, v in a.__dict__.items() if k != "result"} for a in rows])
        return
    _print(table(f"{len(rows)} stored audits",
                 ["id", "kind", "collection", "measure", "method", "seed", "trials",
                  "input", "version", "created"],
                 [(a.id, a.kind, a.collection_id, a.measure or "-", a.method,
                   a.seed, a.trials, a.input_fingerprint[:12], a.software_version,
                   a.created_at[:19]) for a in rows]))


@app.command("show")
def show(ctx: typer.Context, audit_id: int = typer.Argument(..., help="Audit id."),
         json_out: bool = JsonOpt):
    """Show a stored audit as its command printed it (or its full record with --json)."""
    from litaudit.analyses.audits import get_audit
    from litaudit.render.audits import render_stored
    from litaudit.render.console import print_json

    with open_read(ctx) as store:
        a = get_audit(store.con, audit_id)
    if json_out:
        print_json(a)
        return
    _register_renderers()
    render_stored(a)


@app.command("matrix")
def matrix(ctx: typer.Context,
           files: list[Path] = typer.Argument(..., help="A topic-by-run CSV, or trec_eval -q "
                                              "outputs (one run per file)."),
           measure: str = typer.Option(..., "--measure", "-m",
                                       help="Measure of the scores (picks the trec_eval rows)."),
           collection: str = typer.Option(None, "--collection", "-c",
                                          help="Collection the runs were evaluated on (to store)."),
           fmt: str = typer.Option("csv", "--format", help="csv | trec_eval"),
           alpha: float = AlphaOpt, p: float = POpt,
           method: str = typer.Option("exact", help="exact | montecarlo"),
           trials: int = TrialsOpt, seed: int = SeedOpt,
           no_save: bool = typer.Option(False, "--no-save", help="Do not store the audit."),
           json_out: bool = JsonOpt):
    """Extreme-value audit of run means from a per-topic score matrix (N runs, n topics)."""
    from litaudit.analyses.matrix import KIND, run_matrix
    from litaudit.render.audits import emit

    opener = open_read if no_save else open_write
    with opener(ctx) as store:
        done = run_matrix(store.con, files, measure=measure, collection=collection, fmt=fmt,
                          alpha=alpha, p=p, method=method, trials=trials, seed=seed,
                          save=not no_save)
    emit(KIND, done, json_out)
