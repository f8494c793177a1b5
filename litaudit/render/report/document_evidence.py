"""The report's sections on a claim's evidence (issue 21): "Same-topic comparison" and
"Baseline", as format-neutral blocks; :func:`evidence_blocks` is what the report calls,
after its conclusions (:func:`evidence_conclusions` gives their conclusions). The sentences are the stored audit's own (the terminal says the
same); the tables list every figure with the audit it comes from.
"""

from __future__ import annotations

from litaudit.render.report.blocks import Heading, Para, Table, cite, f4
from litaudit.render.report.model import anchor


def _p(x: float | None) -> str:
    return "-" if x is None else (f"{x:.3g}" if x >= 1e-6 else "< 1e-6")


def same_topic_blocks(ev, audit: int | None) -> list:
    """'Same-topic comparison': the claim's run against its value, then the paired tests."""
    out: list = []
    st = ev.same_topic
    if ev.run is None and st is None:  # none asked for (a --baseline alone)
        return out
    out.append(Heading(2, "Same-topic comparison", anchor("same-topic")))
    out += [Para(s) for s in ev.sentences]
    src = cite(audit)
    if ev.run is not None:
        r = ev.run
        out.append(
            Table(
                ("run", "file", "topics", r.measure, "claimed", "rounded", "reproduces", "source"),
                (
                    (
                        r.tag,
                        r.file,
                        f"{r.n_topics} of {r.n_qrels_topics}",
                        r.value_text,
                        r.claimed_text or "-",
                        r.rounded or "-",
                        "-" if r.reproduces is None else "yes" if r.reproduces else "no",
                        src,
                    ),
                ),
                "The claim's run, evaluated as trec_eval does",
            )
        )
    if st is not None:
        lvl = f"{round(100 * st.level)}% CI"
        out.append(
            Table(
                (
                    "against",
                    "topics",
                    "W/T/L",
                    "mean diff",
                    lvl,
                    "t p",
                    "t p (Holm)",
                    "rand. p",
                    "rand. p (Holm)",
                    "largest losses",
                    "source",
                ),  # fmt: skip
                tuple(
                    (
                        f"{c.tag} ({c.why})",
                        str(c.paired.n),
                        f"{c.paired.wins}/{c.paired.ties}/{c.paired.losses}",
                        f"{c.paired.mean:+.4f}",
                        f"[{c.paired.low:+.4f}, {c.paired.high:+.4f}]",
                        _p(c.paired.p_value),
                        _p(c.holm_t),
                        _p(c.randomization.p_value),
                        _p(c.holm_randomization),
                        ", ".join(f"{g.topic} ({g.difference:+.4f})" for g in c.worst) or "-",
                        src,
                    )
                    for c in st.comparisons
                ),
                f"Paired tests on the same topics ({st.measure}; randomization: "
                f"{st.permutations:,} assignments when not exact, seed {st.seed}; Holm across "
                f"{len(st.comparisons)})",
            )
        )
    return out


def baseline_blocks(b, audit: int | None) -> list:
    """'Baseline': the paper's baseline against the reference values, with their sources."""
    out: list = [Heading(2, "Baseline", anchor("baseline"))]
    out += [Para(s) for s in b.sentences]
    src = cite(audit)
    out.append(
        Table(
            (
                "baseline",
                "rank",
                "median of all published (context)",
                "gap to reproducible",
                "rounding",
                "gap to best official",
                "weak",
                "gain over own",
                "gain over strongest",
                "source",
            ),  # fmt: skip
            (
                (
                    b.value_text or "-",
                    "-" if b.rank is None else f"{b.rank} of {b.n_published + 1}",
                    f4(b.median),
                    "-" if b.reproducible_gap is None else f"{b.reproducible_gap:+.4f}",
                    f4(b.rounding),
                    "-" if b.official_gap is None else f"{b.official_gap:+.4f}",
                    "-" if b.weak is None else "yes" if b.weak else "no",
                    "-" if b.gain_over_own is None else f"{b.gain_over_own:+.4f}",
                    "-" if b.gain_over_strongest is None else f"{b.gain_over_strongest:+.4f}",
                    src,
                ),
            ),
            "The baseline's standing",
        )
    )
    refs = [*b.reproductions, *b.published]
    if b.best_official is not None:
        refs.append(b.best_official)
    if refs:
        out.append(
            Table(
                ("kind", "system", "value", "source"),
                tuple((r.kind, r.system, r.value_text, r.source) for r in refs),
                "Reference values",
                tuple((None, None, None, r.url) for r in refs),
            )
        )
    return out


def evidence_blocks(ev, audit: int | None) -> list:
    """The claim's evidence sections: "Same-topic comparison", then "Baseline"."""
    if ev is None:
        return []
    out = same_topic_blocks(ev, audit)
    if ev.baseline is not None:
        out += baseline_blocks(ev.baseline, audit)
    return out


def evidence_conclusions(c) -> list:
    """(question, sentence, evidence, anchor) of the claim section ``c``'s evidence: the
    run and the same-topic tests, then the baseline; the audit's own sentences."""
    ev = c.evidence
    if ev is None:
        return []
    out = []
    src = f"claim audit #{c.audit}"
    if ev.run is not None or ev.same_topic is not None:
        said = [
            s
            for s in ev.sentences
            if s.startswith(("The claim's run", "The claim's value", "Against "))
        ]
        n = 0 if ev.same_topic is None else len(ev.same_topic.comparisons)
        out.append(("same-topic", " ".join(said), f"{src}, {n} paired comparison(s)", "same-topic"))
    b = ev.baseline
    if b is not None:
        said = [
            s
            for s in b.sentences
            if s.startswith(("Weak baseline", "The baseline is not weak", "Nothing to judge",
                             "The baseline is not judged", "The claim's gain"))
        ]  # fmt: skip
        refs = len(b.reproductions) + b.n_published
        out.append(("baseline", " ".join(said), f"{src}, {refs} reference values", "baseline"))
    return out
