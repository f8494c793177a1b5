"""`results list/show/history/export/consistency` in the one shape (issue 37 item 1): each
request's `.checked()` refuses bad input before the store opens (a missing --db is
neither reported nor created), and each answer is the typed result its renderer prints."""

from __future__ import annotations

import csv
import json

import pytest

from litaudit import defaults
from litaudit.curation.filters import CURATION
from litaudit.curation.results_requests import (
    ConsistencyReport,
    ExportWritten,
    HistoryRequest,
    HistoryWindow,
    ResultFilter,
    ResultHistory,
    ResultsExport,
    ResultsList,
    answer_consistency,
    answer_export,
    answer_history,
    answer_list,
    shown_result,
)
from litaudit.errors import LitauditError
from litaudit.store.db import open_store


@pytest.mark.parametrize(
    "args,message",
    [
        (("results", "list", "--sort", "vlaue"), "--sort: 'vlaue' is not one of"),
        (("results", "list", "--limit", "0"), "--limit must be at least 1, got 0"),
        (("results", "list", "--years", "20x5"), "--years"),
        (("results", "list", "--role", "boss"), "--role"),
        (("results", "history"), "give a result id, or --collection"),
        (("results", "history", "7", "-c", "robust04"), "not both"),
        (("results", "history", "--since", "2021", "--until", "2020"), "is after --until"),
        (("results", "history", "--since", "20x0"), "--since"),
        (("results", "export", "out.csv", "--format", "xml"), "--format: 'xml' is not one"),
        (("results", "export", "out.txt"), "cannot tell the export format"),
        (("results", "export", "out.csv", "--status", "boss"), "--status"),
    ],
)
def test_bad_options_refused_before_the_store_opens(cli, args, message):
    res = cli(*args)
    assert res.exit_code == 1, res.output
    assert message in res.output
    assert "no database" not in res.output
    assert not cli.db.exists()


def test_export_to_a_directory_refused_before_the_store_opens(cli, tmp_path):
    res = cli("results", "export", str(tmp_path), "--format", "csv")
    assert res.exit_code == 1 and "no database" not in res.output
    assert not cli.db.exists()


def test_checked_requests():
    req = ResultsList(given=ResultFilter(status="retracted", years="2005-2010")).checked()
    assert req.filters != CURATION and req.filters.include_retracted
    assert ResultsList(terminal=True).rows_read == defaults.RESULTS_PAGE
    assert ResultsList(terminal=True, all_=True).rows_read is None
    assert ResultsList(terminal=True, limit=3).rows_read == 3
    assert ResultsList(terminal=True, json=True).rows_read is None
    assert ResultsList().rows_read is None  # to a pipe: every row
    assert HistoryRequest(result_id="3").checked().result_id == "3"
    with pytest.raises(LitauditError, match="not both"):
        HistoryRequest(result_id="3", since="2020").checked()
    exp = ResultsExport(output="-", fmt="JSON", given=ResultFilter(source="papers")).checked()
    assert exp.fmt == "json" and exp.filters.source == "paper"


def test_answers_are_typed(small_seeded_db_file, tmp_path):
    # the small seeds (robust04 whole): what is checked is each answer's type and its
    # agreement with the others, which the full seeds prove no more (their consistency
    # check alone took 1.3 s of CPU here, 0.06 s on the small seeds)
    with open_store(small_seeded_db_file, read_only=True) as store:
        con = store.con
        req = ResultsList(collection="robust04", measure="AP", sort="value", desc=True, limit=3)
        listing = answer_list(con, req.checked())
        assert len(listing.rows) == 3 and listing.total >= 3
        assert listing.given == ("collection", "measure") and listing.json_pieces is None
        values = [float(r[5]) for r in listing.rows]
        assert values == sorted(values, reverse=True)
        as_json = answer_list(con, ResultsList(limit=2, json=True).checked())
        assert as_json.json_pieces is not None
        assert len(json.loads("".join(as_json.json_pieces))) == 2
        rid = listing.rows[0][0]
        shown = shown_result(con, f"#{rid}")
        assert shown.result.id == rid and shown.history
        assert shown_result(con, str(shown.result.uid)).result.id == rid
        one = answer_history(con, HistoryRequest(result_id=str(rid)).checked())
        assert isinstance(one, ResultHistory) and one.entries == shown.history
        window = answer_history(con, HistoryRequest(collection="robust04").checked())
        assert isinstance(window, HistoryWindow) and window.entries
        out = tmp_path / "ap.csv"
        exp = ResultsExport(output=str(out), collection="robust04", measure="AP").checked()
        done = answer_export(store, exp)
        assert done == ExportWritten(output=str(out), fmt="csv", results=listing.total)
        with out.open(newline="", encoding="utf-8") as fh:
            assert len(list(csv.DictReader(fh))) == listing.total
        rep = answer_consistency(con, strict=True)
        assert isinstance(rep, ConsistencyReport) and rep.findings
        assert rep.failed == (rep.n_open > 0)
        assert not answer_consistency(con, open_only=True).failed  # not strict
