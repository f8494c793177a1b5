"""The Markdown verdict of `litaudit check-change` (issue 34, item 5): one section per
result a change adds, for a pull request's comment. Reads only the analysis's result
types; text from the audits is escaped for Markdown."""

from __future__ import annotations

import re
from pathlib import Path

from litaudit.analyses.extreme.change import AddedVerdict, ChangeVerdict, PairedAgainstRecord
from litaudit.analyses.wording import p_text
from litaudit.render.console import out, print_json

_MD = re.compile(r"([\\`*_\[\]<>|~])")


def md(text: str) -> str:
    """Text as Markdown shows it literally (its punctuation escaped, line breaks spaces)."""
    return _MD.sub(r"\\\1", " ".join(str(text).split()))


def code(text: str) -> str:
    """Text as a Markdown code span (nothing inside is escaped; a backquote becomes ')."""
    return "`" + " ".join(str(text).replace("`", "'").split()) + "`"


def _paired(p: PairedAgainstRecord, holder: str) -> str:
    t = p.test
    p_sel = p_text(t.p_selective, t.p_selective < 1e-6, 1e-6)
    p_two = p_text(t.p_two_sided, t.p_two_sided < 1e-6, 1e-6)
    how = "exact" if t.exact else f"{t.draws:,} random sign patterns"
    text = (
        f"Paired against the record holder {md(holder)} on {p.n} shared {p.basis}: "
        f"{t.wins} wins, {t.losses} losses, {t.ties} ties, mean difference "
        f"{t.mean_difference:+.4f}; sign-flip test ({how}) "
    )
    if t.mean_difference > 0:
        text += f"p = {p_sel} given that it scored higher (selective), two-sided {p_two}"
    else:
        text += f"two-sided p = {p_two}"
    return text + (f" ({md(p.note)})" if p.note else "") + "."


def _section(v: AddedVerdict) -> list[str]:
    what = "changed from " + md(v.before) + " to" if v.before is not None else "added:"
    coll = v.claim.collection_name if v.claim is not None else v.collection
    head = f"### {md(coll)} {md(v.measure)}: {md(v.system)} {what} {md(v.value)}"
    lines = [head, "", f"{code(v.file)} line {v.line}", ""]
    if v.claim is None:
        return [*lines, f"- Not audited: {md(v.problem or 'unknown')}", ""]
    rep = v.claim
    for sentence in rep.answers[:3]:
        lines.append(f"- {md(sentence)}")
    if v.paired is not None:
        lines.append(f"- {_paired(v.paired, rep.record_holder.system)}")
    else:
        lines.append(
            "- No paired test: the store holds no per-topic or per-dataset scores of both "
            "this result and the record holder."
        )
    ranked = _ranked(v)
    if ranked:
        lines.append(f"- {ranked}")
    if rep.resolution is not None:
        lines.append(f"- {md(rep.resolution.sentence)}")
    return [*lines, ""]


def _ranked(v: AddedVerdict) -> str | None:
    """The result's simultaneous rank interval and whether it is tied with the top, where
    the claim audit ranked the systems on shared topics or datasets (`audit ranks`)."""
    ranks = v.claim.ranks if v.claim is not None else None
    if ranks is None or v.system not in ranks.systems:
        return None
    res = ranks.resolution
    i = ranks.systems.index(v.system)
    level = f"{100 * (1 - res.alpha):g}%"
    tied = (
        "in the " + level + " confidence set of the best (cannot be told apart from the top)"
        if res.in_best_set[i]
        else "outside the " + level + " confidence set of the best"
    )
    return (
        f"Rank {res.rank[i]} of {res.n_systems} on {res.n_units} shared {res.units}, "
        f"simultaneous {level} rank interval {res.rank_low[i]}-{res.rank_high[i]}; {tied}; "
        f"first in {100 * res.p_first[i]:.1f}% of resamples (`audit ranks`)."
    )


def markdown(cv: ChangeVerdict) -> str:
    """The whole verdict as Markdown."""
    n = len(cv.verdicts)
    changed = sum(1 for v in cv.verdicts if v.before is not None)
    out = [
        f"## litaudit: the results this change adds (base {code(cv.base)})",
        "",
        f"{n - changed} added and {changed} changed result(s) in {code(cv.folder)}; "
        f"{cv.n_removed} removed, {cv.n_unchanged} unchanged. Each is audited as one of its "
        "population (Carterette, SIGIR 2015): against the record, against chance, its own "
        "interval; paired against the record holder where the store has per-topic or "
        "per-dataset scores; and what the collection can resolve (Sakai, IRJ 2016).",
        "",
    ]
    if not n:
        out.append("Nothing to audit: the change adds no result.")
    for v in cv.verdicts:
        out += _section(v)
    return "\n".join(out).rstrip() + "\n"


def emit_change(cv: ChangeVerdict, json_out: bool, *, output: Path | None = None) -> None:
    """`check-change`: the verdict as JSON, or its Markdown printed or written to
    ``output`` (whole or not at all: through a ``.part`` file), then how many results."""
    if json_out:
        print_json(cv)
        return
    text = markdown(cv)
    if output is None:
        out.print(text, markup=False, highlight=False, soft_wrap=True)
        return
    tmp = output.with_name(output.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(output)
    out.print(f"{output}: {len(cv.verdicts)} result(s) audited")
