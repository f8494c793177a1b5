"""The value consistency check on entry (`results import --consistency`), in `check`
(store folders) and over the whole store (`results consistency`)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import copy_db
from tests.curation.test_curation import GOOD, write_csv

# Liu et al.'s rows of the curation tests, with a P@20 over Robust04's 249 topics that no
# count produces (0.3001 * 4980 = 1494.5) and a recall pair in the wrong order
ODD = [
    GOOD[0],
    [*GOOD[1][:6], "P@20", "0.3001", *GOOD[1][8:]],
    [*GOOD[1][:6], "R@100", "0.70", *GOOD[1][8:]],
    [*GOOD[1][:6], "R@1000", "0.60", *GOOD[1][8:]],
]


@pytest.fixture
def ref(cli, reference_db_file):
    copy_db(reference_db_file, cli.db)
    return cli


def test_import_flags_by_default_with_file_line_and_explanations(ref, tmp_path):
    path = write_csv(tmp_path / "odd.csv", ODD)
    r = ref("results", "import", str(path), "--who", "alice")
    assert r.exit_code == 0, r.output
    flagged = [x for x in r.stdout.splitlines() if x.startswith("flagged: ")]
    assert flagged[0] == (
        f"flagged: {path}:3: P@20 0.3001 over 249 topics: no mean of per-topic values in steps "
        "of 1/20 prints so (a multiple of 1/4980 at 4 decimals) (possible: a mislabelled "
        "measure: P@15, P@30; a transcription slip)"
    )
    assert flagged[1].startswith(f"flagged: {path}:4: R@100 0.70 is above R@1000 0.60")
    assert flagged[1].endswith(f"[other value: {path}:5]")
    assert len(json.loads(ref("results", "list", "--json").stdout)) == 4


def test_import_refuses_on_request_and_writes_nothing(ref, tmp_path):
    path = write_csv(tmp_path / "odd.csv", ODD)
    r = ref("results", "import", str(path), "--consistency", "refuse", "--json")
    assert r.exit_code == 1
    problems = json.loads(r.stderr)
    assert [(p["file"], p["line"]) for p in problems] == [(str(path), 3), (str(path), 4)]
    assert ref("results", "list", "--json").stdout.strip() in ("[]", "")
    r = ref("results", "import", str(path), "--consistency", "off", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["flagged"] == []


def test_import_refuses_an_unknown_mode(ref, tmp_path):
    path = write_csv(tmp_path / "ok.csv", GOOD)
    r = ref("results", "import", str(path), "--consistency", "maybe")
    assert r.exit_code == 1 and "--consistency: 'maybe' is not one of flag, refuse, off" in r.stderr


def test_good_rows_are_not_flagged(ref, tmp_path):
    r = ref("results", "import", str(write_csv(tmp_path / "ok.csv", GOOD)), "--json")
    assert r.exit_code == 0 and all(f["flagged"] == [] for f in json.loads(r.stdout))


def test_store_check_lists_findings_and_reads_annotations(ref, tmp_path):
    ref("results", "import", str(write_csv(tmp_path / "odd.csv", ODD)))
    r = ref("results", "consistency", "--json")
    found = json.loads(r.stdout)
    assert [(f["kind"], f["measure"], f["curated"]) for f in found] == [
        ("granularity", "P@20", ""),
        ("contradiction", "R@100", ""),
    ]
    assert ref("results", "consistency", "--strict").exit_code == 1
    rid = found[0]["id"]
    e = ref(
        "results",
        "edit",
        str(rid),
        "--set",
        "notes=consistency: as published: Table 3 prints 0.3001",
        "--reason",
        "checked",
    )
    assert e.exit_code == 0, e.output
    found = json.loads(ref("results", "consistency", "--json").stdout)
    assert found[0]["curated"] == "consistency: as published: Table 3 prints 0.3001"
    assert len(json.loads(ref("results", "consistency", "--open", "--json").stdout)) == 1


@pytest.mark.slow
def test_check_flags_or_refuses_a_folder(ref, tmp_path):
    ref("results", "import", str(write_csv(tmp_path / "odd.csv", ODD)))
    out = tmp_path / "store"
    assert ref("export-tree", str(out)).exit_code == 0
    r = ref("check", str(out))
    assert r.exit_code == 0, r.output
    assert sum(x.startswith("flagged: ") for x in r.stdout.splitlines()) == 2
    r = ref("check", str(out), "--consistency", "refuse", "--json")
    assert r.exit_code == 1
    assert {p["line"] for p in json.loads(r.stderr)} == {
        5,
        7,
    }  # results are lines 1, 3, 5, ...: a blank line between them
    assert ref("check", str(out), "--consistency", "off").stdout.strip().endswith("no problems")


@pytest.mark.slow
def test_the_seeded_store_has_every_finding_curated(cli, seeded_db_file):
    """Run over the whole seeded store: the findings are those of seeds/consistency.csv
    (README, "Value consistency"), each curated."""
    import csv

    from tests.conftest import REPO

    # a read-only command: on the session's file itself (no copy of its 18 MB, and each
    # open reuses the DuckDB instance the run keeps open on it)
    # once, --strict and --json: exit 0 (none open) and the findings as JSON
    r = cli("results", "consistency", "--strict", "--json", db=seeded_db_file)
    assert r.exit_code == 0, r.output
    found = json.loads(r.stdout)
    with (REPO / "seeds" / "consistency.csv").open(newline="", encoding="utf-8") as f:
        curated = list(csv.DictReader(f))
    assert len(found) == len(curated) == 21
    assert all(f["curated"].startswith("consistency: as published: ") for f in found)
    assert {(f["location"], f["system"], f["measure"], f["value"]) for f in found} == {
        (c["location"], c["system"], c["measure"], c["value"]) for c in curated
    }


def test_results_add_flags_its_value(ref, tmp_path):
    ref("results", "import", str(write_csv(tmp_path / "ok.csv", GOOD)))  # the paper
    r = ref(
        "results", "add", "--paper", "liu2005cikm", "--collection", "robust04", "-m", "P@10",
        "--value", "0.4531", "--system", "best", "--role", "proposed", "--year", "2005",
        "--location", "Table 3", "--json",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert [f["kind"] for f in d["flagged"]] == ["granularity"]
    assert d["flagged"][0]["where"] == f"result #{d['id']}"
