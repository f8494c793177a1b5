"""No sentence of a verdict contradicts another (issue 32, item 3).

The verdict block and the conclusions of the reports of the four claims of the issue
(robust04 AP 0.372; DL 2019 passage nDCG@10 0.745 with a BM25 baseline of 0.4500; BEIR
SciFact nDCG@10 0.80; MS MARCO dev RR@10 0.440) are scanned for statements that cannot both
hold: above and below the record, within and below the same band, within and beyond
chance, reproduces and does not reproduce, weak and not weak, better and worse, and a
record comparison that denies being one ("this is not a test of the claim against the
record" beside "Against the record: ..."). The scanner is tested on the sentences the
reports printed before (it must catch them), then run on the real reports.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

NUM = r"[0-9]+(?:\.[0-9]+)?"
# (what is stated, the stance) <- a pattern, on a lower-cased sentence
FACTS: list[tuple[str, str, str]] = [
    ("record", "above", r"\bis above the record\b|\bholds the record\b|above the record\? yes\b"),
    ("record", "below", r"\bis below the record\b|above the record\? no\b"),
    ("record", "equal", r"\bequals the record\b|\bshares the record\b"),
    ("record band", "within", r"\bwithin the record's \d+% band\b"),
    ("record band", "below", r"\bbelow the record's \d+% band\b"),
    ("claim band", "within", r"record lies within the claim's \d+% band\b"),
    ("claim band", "below", r"record lies below the claim's \d+% band\b"),
    ("record distance", "apart", r"\bwider than the band\b"),
    ("record distance", "together", r"\bnot distinguishable from the record\b"),
    ("chance", "within", rf"against chance\? within chance\b|\bis not above {NUM}, the value that"),
    (
        "chance",
        "beyond",
        rf"against chance\? beyond chance\b|(?<!not )\babove {NUM}, the value that",
    ),
    ("run", "reproduces", r"(?<!not )\breproduces the (?:claimed|printed)\b|reproduces\? yes\b"),
    ("run", "does not", r"\bdoes not reproduce\b|reproduces\? no\b"),
    ("baseline", "weak", r"^weak baseline\b|baseline weak\? yes\b"),
    ("baseline", "not weak", r"\bnot weak\b|baseline weak\? no\b"),
    ("paired", "better", r"\bsignificantly better\b"),
    ("paired", "worse", r"\bsignificantly worse\b"),
    ("denial", "record", r"against the record"),
    ("denial", "not a test", r"\bnot a test of the claim against the record\b"),
]
# a sentence that states what another setting would give (the robust spread's sensitivity
# line: "... where with the sd ..."): its second stance is not the report's
CONDITIONAL = re.compile(r"^sensitivity:")


def facts(sentences: list[str]) -> dict[str, dict[str, str]]:
    """what -> stance -> the first sentence stating it."""
    out: dict[str, dict[str, str]] = {}
    for s in sentences:
        for part in re.split(r"(?<=[.;])\s+(?=[A-Z(-])", s):
            low = part.strip().lower()
            if CONDITIONAL.match(low):
                continue
            for what, stance, pattern in FACTS:
                if re.search(pattern, low):
                    out.setdefault(what, {}).setdefault(stance, part.strip())
    return out


def contradictions(sentences: list[str]) -> list[str]:
    """Pairs of stances on one question that cannot both hold."""
    found = facts(sentences)
    bad = []
    for what, stances in found.items():
        if what == "denial":
            if len(stances) == 2:
                bad.append(f"{what}: {stances['record']!r} / {stances['not a test']!r}")
        elif len(stances) > 1:
            bad.append(f"{what}: " + " / ".join(f"{k}: {v!r}" for k, v in stances.items()))
    return bad


def test_the_scanner_catches_the_contradictions_the_reports_printed():
    # issue 32's examples: a record sentence that denies being one; SciFact "within the
    # band" then "below the band"; a verdict line against a conclusion
    old = (
        "Against the record: 0.3720 is above the record, 0.3686, which lies within the "
        "claim's 60% band [0.3253, 0.3720] under the reference model: a gap of 0.0034 is "
        "within what picking the best of 329 equally good systems produces; this is not a "
        "test of the claim against the record; no published result is at or above it."
    )
    [denial] = contradictions([old])
    assert denial.startswith("denial: ") and "Against the record: 0.3720 is above" in denial
    assert "this is not a test of the claim against the record" in denial
    assert any(
        c.startswith("record band")
        for c in contradictions(
            [
                "0.80 is below the record, 0.866, within the record's 60% band [0.6917, 0.8660].",
                "Against the record: 0.80 is below the record's 60% band [0.8100, 0.8660].",
            ]
        )
    )
    assert any(
        c.startswith("record:")
        for c in contradictions(["Above the record? yes: 0.7", "0.7 is below the record, 0.8"])
    )
    assert any(
        c.startswith("run")
        for c in contradictions(
            ["The run reproduces the claimed 0.31.", "The run does not reproduce 0.3100."]
        )
    )
    assert any(
        c.startswith("chance")
        for c in contradictions(
            ["Against chance? within chance: 0.74", "0.7450 is above 0.7241, the value that the"]
        )
    )
    # and passes what does not contradict: a sensitivity line naming both settings, the
    # same stance said twice
    fine = [
        "Against the record: 0.80 is below the record, 0.866, within the record's 60% band.",
        "Sensitivity: with the robust spread, the claim lies below the record's band "
        "[0.8, 0.9], where with the sd the claim lies within the record's band.",
        "Above the record? no: 0.80 is 0.066 below the record 0.866",
    ]
    assert contradictions(fine) == []


CLAIMS = (
    "collection,measure,value,baseline,baseline_system\n"
    "robust04,AP,0.372,,\n"
    "dl19-passage,nDCG@10,0.745,0.4500,BM25\n"
    "beir/scifact,nDCG@10,0.80,,\n"
    "msmarco-passage/dev/small,RR@10,0.440,,\n"
)


@pytest.mark.slow
def test_no_sentence_of_the_four_claims_verdicts_contradicts_another(cli, seeded_db_file, tmp_path):
    db = tmp_path / "s.duckdb"
    shutil.copy(seeded_db_file, db)
    claims = tmp_path / "claims.csv"
    claims.write_text(CLAIMS, encoding="utf-8")
    res = cli("report", "--claims", claims, "-f", "json", db=db)
    assert res.exit_code == 0, res.output
    reports = json.loads(res.stdout)["claims"]
    assert len(reports) == 4
    seen: dict[str, set[str]] = {}
    for rep in reports:
        [claim] = rep["claims"]
        verdict = [f"{v['label']} {v['answer']}: {v['text']}" for v in claim["verdict"]]
        conclusions = [c["sentence"] for c in rep["conclusions"]]
        sentences = verdict + conclusions
        assert contradictions(sentences) == [], claim["value_text"]
        for what, stances in facts(sentences).items():
            seen.setdefault(what, set()).update(stances)
    # the scan read what it should: each claim's standing, band and chance, the baseline
    assert seen["record"] == {"above", "below"}  # robust04 above, the others below
    assert {"within"} <= seen["record band"] and "weak" in seen["baseline"]
    assert seen["chance"] == {"within", "beyond"} and seen["denial"] == {"record"}
