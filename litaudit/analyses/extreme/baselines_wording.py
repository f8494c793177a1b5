"""A baseline's standing in words (issue 21, item 3; issue 32, item 6): the verdict line "Is
the baseline weak?" (:func:`verdict_text`, against its own model first, the median of all
published baselines only as context, named so) and the sentences of `audit baselines` and
of a claim's evidence (:func:`baseline_sentences`), from a
:class:`~litaudit.analyses.extreme.baselines.BaselineStanding`: what was compared, and
nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from litaudit.analyses.extreme.wording import fmt_value

if TYPE_CHECKING:
    from litaudit.analyses.extreme.baselines import BaselineRef, BaselineStanding


def _gap(x: float) -> str:
    return f"{fmt_value(abs(x))} {'below' if x < 0 else 'above' if x > 0 else 'from'}"


def _origin(r: BaselineRef) -> str:
    """Where a reference comes from, short: its source without the file and line."""
    return r.source.split(", ", 1)[0]


def verdict_text(b: BaselineStanding) -> tuple[str, str]:
    """(answer, figure) of "Is the baseline weak?": against its own model first; the
    median of all published baselines only as context, named so."""
    own = f"{b.value_text}" + (f" ({b.model})" if b.model else "")
    context = (
        f"; as context only, the median of all {b.n_published} published baselines of any "
        f"model is {fmt_value(b.median)}"
        if b.median is not None
        else ""
    )
    if b.reproducible is not None and b.reproducible_gap is not None:
        r = b.reproducible
        if b.matches is not None:
            m = b.matches
            text = f"{own} is within rounding of {m.system}, {m.value_text} ({_origin(m)})"
            if m.result_id != r.result_id:
                text += f"; the strongest reproduction of the model is {r.value_text} ({r.system})"
            return "no", text + context
        weakest = min(b.reproductions, key=lambda x: x.value)
        if b.weak:
            text = (
                f"{own} is {fmt_value(weakest.value - (b.value or 0.0))} below every reproduction of "
                f"the model (the closest: {weakest.value_text}, {weakest.system}, "
                f"{_origin(weakest)}), more than rounding"
            )
            return "yes", text + context
        if b.reproducible_gap >= 0:
            text = (
                f"{own} is {_gap(b.reproducible_gap)} the strongest reproduction of the model, "
                f"{r.value_text} ({r.system}, {_origin(r)})"
            )
        else:
            text = (
                f"{own} lies between the model's reproductions, {weakest.value_text} "
                f"({weakest.system}) and {r.value_text} ({r.system}, {_origin(r)})"
            )
        return "no", text + context
    if b.same_model_median is not None:
        n = len(b.same_model_published)
        where = "below" if b.weak else "not below"
        text = (
            f"{own} is {where} the median {fmt_value(b.same_model_median)} of the {n} published "
            f"baseline{'s' if n != 1 else ''} of the same model (no reproduction of it stored)"
        )
        return ("yes" if b.weak else "no"), text + context
    why = (
        f"no reproduction or published baseline of {b.model} is stored"
        if b.model
        else "no model named (--baseline-system), so no reproduction to judge it against"
    )
    return "not judged", f"{own}: {why}" + context


def baseline_sentences(b: BaselineStanding) -> tuple[str, ...]:
    """The standing in words, its own model first: what was compared, and nothing more."""
    out: list[str] = []
    if b.value is None:
        out.append(
            f"{b.n_published} published baselines, {len(b.reproductions)} reproductions"
            + (f" of {b.model}" if b.model else "")
            + f" and {'a' if b.best_official else 'no'} best official run on "
            f"{b.collection_id} {b.measure}."
        )
        return tuple(out)
    name = f"{b.model} " if b.model else ""
    own = f"The baseline ({name}{b.value_text})"
    answer, text = verdict_text(b)
    head = {
        "yes": "Weak baseline",
        "no": "The baseline is not weak",
        "not judged": "The baseline is not judged",
    }[answer]
    out.append(f"{head}: {text}.")
    if b.reproducible is not None and b.reproducible_gap is not None:
        r = b.reproducible
        out.append(
            f"Against its own model: the strongest reproduction is {r.value_text} ({r.system}, "
            f"{r.source}); the baseline is {_gap(b.reproducible_gap)} it (rounding "
            f"{fmt_value(b.rounding or 0.0)}); {len(b.reproductions)} reproduction"
            f"{'s' if len(b.reproductions) != 1 else ''} of the model "
            f"{'are' if len(b.reproductions) != 1 else 'is'} stored."
        )
    if b.same_model_median is not None:
        n = len(b.same_model_published)
        out.append(
            f"Published baselines of the same model: {n}, median {fmt_value(b.same_model_median)}."
        )
    if b.median is not None:
        out.append(
            f"Context, not a judgement: {own[0].lower()}{own[1:]} ranks {b.rank} of {b.n_published + 1} among "
            f"the {b.n_published} published baselines of any model and itself; their median "
            f"is {fmt_value(b.median)} (half of them lie below it by construction)."
        )
    else:
        out.append(f"No published baseline of {b.collection_id} {b.measure} is stored.")
    if b.best_official is not None and b.official_gap is not None:
        o = b.best_official
        out.append(
            f"The best official run is {o.value_text} ({o.system}, {o.source}); the baseline "
            f"is {_gap(b.official_gap)} it."
        )
    if b.gain_over_own is not None:
        s = f"The claim's gain over its own baseline is {b.gain_over_own:+.4f}"
        if b.strongest is not None and b.gain_over_strongest is not None:
            s += (
                f"; over the strongest baseline of the same kind ({b.strongest.value_text}, "
                f"{b.strongest.system}) it is {b.gain_over_strongest:+.4f}"
            )
        out.append(s + ".")
    return tuple(out)
