"""The history leaves reproductions out, and says so, only where the results it keeps hold
some: a track, paper or measure without reproductions is replayed as given (issue 32's
default, found over-applied: `audit history --track msmarco-passage/leaderboard/full-ranking`
said "reproductions left out" of a leaderboard that has none)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow(reason="audit history on the small seeded store, 4 CLI calls")

HIST = ("audit", "history", "-c", "msmarco-passage/dev/small", "-m", "RR@10", "--no-save")
TRACK = ("--track", "msmarco-passage/leaderboard/full-ranking")
LEFT_OUT = "published results only (reproductions left out)"


def _population(cli, db, *args):
    return json.loads(cli(*HIST, *args, "--json", db=db).stdout)["result"]["population"]


def test_a_track_without_reproductions_is_replayed_as_given(cli, small_seeded_db_file):
    db = small_seeded_db_file
    leaderboard = _population(cli, db, *TRACK)
    assert leaderboard["filters"]["roles"] == []
    assert leaderboard["n"] == 77  # the full-ranking leaderboard's RR@10 results
    assert LEFT_OUT not in cli(*HIST, *TRACK, db=db).output
    # the whole collection holds Pyserini's reproductions: left out, and said so
    everything = _population(cli, db)
    assert "reproduction" not in everything["filters"]["roles"]
    assert everything["filters"]["roles"]
    assert LEFT_OUT in cli(*HIST, db=db).output
    with_them = _population(cli, db, "--with-reproductions")
    assert with_them["n"] > everything["n"]
