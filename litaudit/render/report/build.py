"""Gather the stored audits of a collection into one frozen :class:`Report`.

Every number of the report comes from a stored audit; audits that are missing are run
through the analysis functions (which store them) and then read back from the store, so
a first and a second report on the same database are byte-identical. The data section
is read from the results table, fingerprinted like an audit input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from litaudit.errors import LitauditError
from litaudit.render.report.model import (
    AuditRef,
    Count,
    DataSection,
    Report,
    ReuseSection,
    Source,
)

Note = Callable[[str], None]


def audit_ref(a, *, timestamp: bool = False) -> AuditRef:
    """The citation of a stored audit (``created_at`` only when timestamps are wanted)."""
    return AuditRef(a.id, a.kind, a.measure, a.params, a.method, a.seed, a.trials,
                    a.input_fingerprint, a.software_version,
                    a.created_at if timestamp else None)


def build_report(con, collection: str, *, measure: str | None = None,
                 claim: float | None = None, timestamp: bool = False,
                 note: Note | None = None) -> Report:
    """The report of ``collection`` (any alias): data, literature audits, claim, reuse.

    ``measure`` limits the literature sections to one measure (default: every measure
    with at least 2 results); ``claim`` needs a measure when the collection has several.
    Missing audits are run and stored (the connection must be writable).
    """
    import datetime as dt

    from litaudit.render.report import literature
    from litaudit.store.refdata import resolve_collection, resolve_measure

    note = note or (lambda _msg: None)
    ref = resolve_collection(con, collection)
    data = data_section(con, ref)
    if measure is not None:
        measures = (resolve_measure(con, measure),)
    else:
        measures = tuple(c.label for c in data.measures if c.n >= 2)
    if claim is not None and len(measures) != 1:
        raise LitauditError(f"--claim needs --measure: {ref.name} has results for "
                            f"{len(measures)} measures ({', '.join(measures) or 'none'})")
    used: dict[int, object] = {}
    lit = tuple(literature.section(con, ref, m, used, note) for m in measures)
    claims = ()
    if claim is not None:
        claims = (literature.claim_section(con, ref, measures[0], float(claim), lit[0], used,
                                           note),)
    reuse, notes = reuse_section(con, ref.id, used, note)
    generated = (dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
                 if timestamp else None)
    audits = tuple(audit_ref(used[i], timestamp=timestamp) for i in sorted(used))
    title = f"Audit report: {ref.title} ({ref.name})"
    return Report(title, ref.id, measures, claim, generated, data, lit, claims, reuse, audits,
                  tuple(notes))


# ---------------------------------------------------------------------------- data section

def data_section(con, ref) -> DataSection:
    """Sources, counts, years, transcribers and statuses of the collection's results."""
    from litaudit.analyses.audits import fingerprint
    from litaudit.curation.results import ResultFilter, query_results

    rows = query_results(con, ResultFilter(collection=ref.id))
    live = [r for r in rows if r["status"] != "retracted"]
    by_measure = Counter(r["measure"] for r in live)
    measures = tuple(Count(m, n) for m, n in sorted(by_measure.items(),
                                                     key=lambda kv: (-kv[1], kv[0])))
    papers = {r["bibkey"] for r in live if r["source"] == "paper"}
    sources = []
    n_paper_rows = sum(1 for r in live if r["source"] == "paper")
    if papers:
        sources.append(Source("paper", f"{len(papers)} papers", n_paper_rows))
    tracks = Counter(r["track"] for r in live if r["source"] == "official")
    sources += [Source("official", t, n) for t, n in sorted(tracks.items())]
    years = [r["year"] for r in live]
    statuses = Counter(r["status"] for r in rows)
    who = Counter(r["transcribed_by"] for r in rows)
    when = sorted(r["transcribed_at"] for r in rows if r["transcribed_at"])
    keys = ("id", "source", "bibkey", "track", "measure", "value_text", "system", "role",
            "year", "n_topics", "status", "transcribed_by", "transcribed_at")
    fp = fingerprint([[r[k] for k in keys] for r in sorted(rows, key=lambda r: r["id"])])
    return DataSection(
        collection_id=ref.id, collection_name=ref.name, collection_title=ref.title,
        default_topics=ref.default_topics, measures=measures, n_results=len(live),
        n_papers=len(papers), sources=tuple(sources),
        first_year=min(years) if years else None, last_year=max(years) if years else None,
        statuses=tuple(Count(s, statuses.get(s, 0)) for s in ("verified", "draft",
                                                               "retracted")),
        transcribers=tuple(Count(w, n) for w, n in sorted(who.items(),
                                                          key=lambda kv: (-kv[1], kv[0]))),
        first_transcribed=when[0] if when else None,
        last_transcribed=when[-1] if when else None, fingerprint=fp)


# --------------------------------------------------------------------------- reusability

def n_stored_runs(con, collection_id: str) -> int:
    try:
        return int(con.execute("SELECT count(*) FROM runs WHERE collection_id = ?",
                               [collection_id]).fetchone()[0])
    except Exception:  # noqa: BLE001 - a store without the runs schema has no runs
        return 0


def reuse_section(con, cid: str, used: dict, note: Note) -> tuple[ReuseSection | None,
                                                                   list[str]]:
    """Verdict, RAO, LOU, sub-collections and agreement audits, when runs are stored."""
    n_runs = n_stored_runs(con, cid)
    if n_runs == 0:
        return None, [f"no run archive is stored for {cid}: no reusability section "
                      "(import one with `litaudit runs import`)"]
    from litaudit.analyses import reuse
    from litaudit.analyses.audits import get_audit, list_audits
    from litaudit.analyses.coded_archive import load_coded
    from litaudit.analyses.verdict import run_verdict, verdict_from_json

    notes: list[str] = []
    _, coded = load_coded(con, cid)
    verdict = None
    for a in reversed(list_audits(con, kind="reuse-verdict", collection_id=cid)):
        if (a.input_fingerprint == coded.fingerprint and "outcome" in a.result
                and a.params.get("depth") == reuse.DEFAULT_DEPTH
                and a.params.get("split") == "prefix" and a.params.get("subcollections")):
            verdict = a
            break
    if verdict is None:
        note(f"running the reusability audits of {cid} (RAO, LOU, sub-collections, "
             "agreement)")
        _, vid = run_verdict(con, cid, subcollections=True)
        verdict = get_audit(con, vid)
    used[verdict.id] = verdict
    parts: dict[str, object] = {}
    for kind, aid in verdict.result.get("audits", []):
        a = get_audit(con, int(aid))
        used[a.id] = a
        parts[kind] = a
    decoded = verdict_from_json(verdict.result)
    notes += [f"reusability: {s}" for s in decoded.notes]
    agreement = parts.get("reuse-agreement") or _agreement(con, cid, verdict, used, notes,
                                                           note)

    def res(a):
        return None if a is None else a.result

    def aid(a):
        return None if a is None else a.id

    return ReuseSection(
        n_runs=n_runs, verdict_audit=verdict.id, verdict=decoded,
        rao_audit=aid(parts.get("reuse-rao")), rao=res(parts.get("reuse-rao")),
        lou_audit=aid(parts.get("reuse-lou")), lou=res(parts.get("reuse-lou")),
        sub_audit=aid(parts.get("reuse-subcollections")),
        subcollections=res(parts.get("reuse-subcollections")),
        agreement_audit=aid(agreement), agreement=res(agreement),
        notes=tuple(notes)), []


def _agreement(con, cid: str, verdict, used: dict, notes: list[str], note: Note):
    """The newest 'reuse-agreement' audit made after the verdict's archive, else run it."""
    from litaudit.analyses import agreement as ag
    from litaudit.analyses.audits import get_audit, list_audits
    from litaudit.errors import NotFound, ParameterError

    params = ag.audit_params(source="simulation", k=2, depth=100, alpha=0.05,
                             correction="none", min_topics=5)
    imported = con.execute("SELECT CAST(max(imported_at) AS VARCHAR) FROM runs "
                           "WHERE collection_id = ?", [cid]).fetchone()[0]
    found = None
    for a in reversed(list_audits(con, kind=ag.KIND, collection_id=cid)):
        if a.params == params and (imported is None or a.created_at >= imported):
            found = a
            break
    if found is None:
        note(f"running the agreement analysis of {cid} (pooling simulation, k=2, depth=100)")
        try:
            comp = ag.agreement_component(con, cid, save_audit=True)
        except (NotFound, ParameterError) as exc:
            notes.append(f"agreement: no data ({exc})")
            return None
        found = get_audit(con, comp.audit_id)
    used[found.id] = found
    return found
