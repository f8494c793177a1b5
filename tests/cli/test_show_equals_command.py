"""The terminal text of every command that stores an audit and of `audit show` of the audit
it stored are the same, and so are their ``--json`` results (issue 37, item 1): one
renderer per result type (litaudit.render.audits.RENDERERS) prints both.

One case per kind of litaudit.analyses.audits.KINDS, run on the smallest real input that
stores it: the small seed set for the extreme-value audits of published results, a per-topic
matrix of ../shared/data for those of a matrix, the robust03 archive for the reuse kinds.
Each command runs once fresh, once with ``--json`` and once more as text (both handed the
stored audit back), and `audit show` of its audit once in each form.

The texts differ in one line each, the line that says where the audit is stored:
`audit show` opens with its provenance (``Audit #N (kind), created, version, method,
input``: what the stored record adds to the result); the command ends with ``saved as audit
#N``, or, when an identical call's stored audit is handed back, with ``audit #N: stored
earlier by an identical call ...``. The reports that say their audit id in their first
line (best, claim, history, ranks, resolution) have no fresh footer; a reused one still ends
with the "stored earlier" line, as its ``--json`` says ``"reused": true``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from litaudit.analyses.audits import KINDS
from tests.conftest import SHARED_DATA, Cli

MATRIX = SHARED_DATA / "pertopic" / "adhoc6_p10.csv"  # TREC-6 ad hoc P@10: 74 runs, 50 topics

SMALL, ROBUST03 = "small", "robust03"  # the database each case runs on

# kind -> (its database, the command that stores it, "{MATRIX}" standing for the matrix file)
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "best": (SMALL, ("audit", "best", "-c", "trec7", "-m", "AP")),
    "claim": (SMALL, ("audit", "claim", "-c", "trec7", "-m", "AP", "--value", "0.31")),
    "history": (SMALL, ("audit", "history", "-c", "trec7", "-m", "AP")),
    "baselines": (
        SMALL,
        (
            "audit",
            "baselines",
            "-c",
            "robust04",
            "-m",
            "AP",
            "--baseline",
            "0.25",
            "--baseline-system",
            "BM25",
            "--claim",
            "0.30",
        ),
    ),
    "best-matrix": (SMALL, ("audit", "matrix", "{MATRIX}", "-m", "P@10", "-c", "trec6")),
    "ranks": (
        SMALL,
        ("audit", "ranks", "{MATRIX}", "-m", "P@10", "-c", "trec6", "--resamples", "200"),
    ),
    "resolution": (
        SMALL,
        ("audit", "resolution", "--matrix", "{MATRIX}", "-m", "P@10", "-c", "trec6"),
    ),
    "reuse-rao": (ROBUST03, ("reuse", "rao", "-c", "robust03")),
    "reuse-lou": (ROBUST03, ("reuse", "lou", "-c", "robust03")),
    # 20 random splits, not 50: the text's lines are the same ones (each pair's tau, its
    # random range and p), and each split costs 10 ms
    "reuse-subcollections": (ROBUST03, ("reuse", "subcollections", "-c", "robust03", "-R", "20")),
    "reuse-verdict": (
        ROBUST03,
        ("reuse", "verdict", "-c", "robust03", "-R", "50", "--assignments", "20"),
    ),
    "reuse-agreement": (ROBUST03, ("reuse", "agreement", "-c", "robust03")),
}

# the options that show more in text than `audit show` does (render.audits.EVERY): the
# parts of the result a summary leaves out; `--json` has them with or without the option
VIEWS = {"history": "--all", "reuse-agreement": "--pairs"}

REUSED = "stored earlier by an identical call (same parameters, input and version), not recomputed"


def test_every_kind_has_a_case():
    # a new kind without a case here fails: its command's text is checked against
    # `audit show` from the day it is added
    assert set(CASES) == {kind for kind, _ in KINDS}


def test_every_longer_view_has_a_case():
    from litaudit.analyses.audits import kinds
    from litaudit.render.audits import EVERY

    assert {kind for kind, tp in kinds().items() if tp in EVERY} == set(VIEWS)


@dataclass(frozen=True)
class Outcome:
    """A case's command run fresh (text), again with --json and again as text, and
    `audit show` of its audit as text and as JSON."""

    kind: str
    fresh: list[str]
    envelope: dict
    again: list[str]
    shown: list[str]
    shown_json: dict
    view: list[str] | None  # the text with the case's VIEWS option (reused)
    view_envelope: dict | None  # its --json


def _lines(res) -> list[str]:
    assert res.exit_code == 0, res.output
    return res.stdout.rstrip("\n").splitlines()


def _outcome(kind: str, db: Path) -> Outcome:
    args = tuple(str(MATRIX) if a == "{MATRIX}" else a for a in CASES[kind][1])
    cli = Cli(db)
    fresh = _lines(cli(*args))
    envelope = json.loads("\n".join(_lines(cli(*args, "--json"))))
    again = _lines(cli(*args))
    audit_id = envelope["audit_id"]
    shown = _lines(cli("audit", "show", audit_id))
    shown_json = json.loads("\n".join(_lines(cli("audit", "show", audit_id, "--json"))))
    assert shown_json["kind"] == kind  # the case stores the kind it stands for
    view = view_envelope = None
    if kind in VIEWS:
        view = _lines(cli(*args, VIEWS[kind]))
        view_envelope = json.loads("\n".join(_lines(cli(*args, VIEWS[kind], "--json"))))
    return Outcome(kind, fresh, envelope, again, shown, shown_json, view, view_envelope)


def _run_cases(where: str, source: Path, part: Path) -> None:
    """Every case of the database ``where`` (in the order of the tests), run on one
    writable copy of ``source``: their :class:`Outcome` fields, or null for a case whose
    matrix is not in ../shared/data, written to ``part`` as JSON."""
    work = Path(tempfile.mkdtemp(prefix="show-", dir=part.parent))  # with its .wal, gone after
    copy = work / source.name
    shutil.copy(source, copy)
    try:
        found = {
            kind: None
            if "{MATRIX}" in CASES[kind][1] and not MATRIX.is_file()
            else dataclasses.asdict(_outcome(kind, copy))
            for kind in sorted(CASES)
            if CASES[kind][0] == where
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    part.write_text(json.dumps(found), encoding="utf-8")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, request) -> dict[str, Outcome]:
    """Each case's :class:`Outcome`, the cases of one database computed together when a
    test first asks for one of them, and kept across runs for as long as nothing they are
    made from changes, as the session's databases are (tests/conftest.py ``_built_once``:
    the package, schema, seeds, the robust03 archive, the libraries; here also the source
    of this module's runner, the cases, and the size and time of the matrix file). The
    first run computes them (4.8 s of CPU); the next read them back."""
    from tests.conftest import _built_once

    made_from = [inspect.getsource(f) for f in (_run_cases, _outcome, _lines)]
    matrix = f"{MATRIX.stat().st_size} {MATRIX.stat().st_mtime_ns}" if MATRIX.is_file() else ""
    digest = hashlib.sha256(repr((made_from, CASES, VIEWS, REUSED, matrix)).encode())

    class Lazy(dict):
        def __missing__(self, kind: str) -> Outcome:
            where = CASES[kind][0]
            fixture = "small_seeded_db_file" if where == SMALL else "robust03_db_file"
            source = request.getfixturevalue(fixture)
            name = f"show-{where}-{digest.hexdigest()[:12]}.json"
            path = _built_once(tmp_path_factory, name, lambda part: _run_cases(where, source, part))
            for case, fields in json.loads(path.read_text(encoding="utf-8")).items():
                if fields is not None:
                    self[case] = Outcome(**fields)
            if kind not in self:
                pytest.skip(f"shared data not found at {SHARED_DATA}: {MATRIX.name} is needed")
            return self[kind]

    return Lazy()


@pytest.mark.slow(reason="the cases' commands, kept across runs (4.8 s of CPU when made)")
@pytest.mark.parametrize("kind", sorted(CASES))
def test_show_prints_what_the_command_printed(outcomes, kind):
    outcome = outcomes[kind]
    audit_id = outcome.envelope["audit_id"]
    # `audit show`: its provenance line, then the command's text
    head, *shown = outcome.shown
    assert head.startswith(f"Audit #{audit_id} ({outcome.kind}), ")
    fresh = outcome.fresh
    assert REUSED not in fresh[-1]  # the first run stored the audit
    # one line of the fresh command says where it stored the audit, never two: its footer,
    # or (a report that names its audit in its first line: best, claim, history, ranks,
    # resolution) that first line
    footer = fresh[-1] == f"saved as audit #{audit_id}"
    assert footer != (f"[audit #{audit_id}]" in fresh[0])
    assert shown == (fresh[:-1] if footer else fresh)


@pytest.mark.slow(reason="the cases' commands, kept across runs (4.8 s of CPU when made)")
@pytest.mark.parametrize("kind", sorted(CASES))
def test_a_reused_audit_says_so_in_text_as_in_json(outcomes, kind):
    outcome = outcomes[kind]
    audit_id = outcome.envelope["audit_id"]
    assert outcome.envelope["reused"] is True and isinstance(audit_id, int)
    *body, last = outcome.again
    assert last == f"audit #{audit_id}: {REUSED}"
    assert body == outcome.shown[1:]


@pytest.mark.slow(reason="the cases' commands, kept across runs (4.8 s of CPU when made)")
@pytest.mark.parametrize("kind", sorted(CASES))
def test_the_commands_json_is_the_stored_result(outcomes, kind):
    outcome = outcomes[kind]
    assert set(outcome.envelope) == {"audit_id", "reused", "result"}
    assert outcome.envelope["result"] == outcome.shown_json["result"]
    assert outcome.shown_json["id"] == outcome.envelope["audit_id"]
    assert outcome.shown_json["kind"] == kind  # the case stores the kind it stands for


@pytest.mark.slow(reason="the cases' commands, kept across runs (4.8 s of CPU when made)")
@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_a_longer_view_adds_text_and_changes_no_json(outcomes, kind):
    outcome = outcomes[kind]
    assert outcome.view is not None and outcome.view_envelope is not None
    assert outcome.view_envelope == outcome.envelope
    assert len(outcome.view) > len(outcome.again)
    # the same header and the same note that the stored audit was handed back
    assert outcome.view[0] == outcome.again[0] and outcome.view[-1] == outcome.again[-1]
