"""`sync` and `check` asked once (issue 37 item 1): the one call each makes on a store
folder, returning what its renderer prints (render/curation.py)."""

from __future__ import annotations

from pathlib import Path

from litaudit.curation.consistency_rows import Finding, as_problems, folder_findings
from litaudit.curation.cycles import no_cycle_collection
from litaudit.curation.fields import current_user
from litaudit.curation.sync import SyncReport, check_tree, sync_tree
from litaudit.curation.tree_read import read_tree
from litaudit.errors import ParameterError, ValidationFailed
from litaudit.store.db import open_store
from litaudit.store.refdata import load_reference_data

CONSISTENCY_MODES = ("flag", "refuse", "off")


def answer_sync(
    store, folder: Path, *, who: str | None, dry_run: bool = False, prune: bool = False
) -> SyncReport:
    """`sync`: the database brought to ``folder`` as curator ``who`` (default: $LITAUDIT_USER
    or the login), in one transaction (:func:`~litaudit.curation.sync.sync_tree`)."""
    with no_cycle_collection():
        return sync_tree(store, folder, who=current_user(who), dry_run=dry_run, prune=prune)


def answer_check(folder: Path, consistency: str = "flag") -> tuple[Finding, ...]:
    """`check`: the folder checked as `sync` checks it; every problem raised at once
    (ValidationFailed); the values the consistency check flags returned (``consistency``
    'flag'), refused as problems ('refuse') or not looked for ('off')."""
    mode = consistency.strip().lower()
    if mode not in CONSISTENCY_MODES:
        raise ParameterError(f"--consistency: {consistency!r} is not one of flag, refuse, off")
    with no_cycle_collection():
        read = read_tree(folder)  # once: the check and the consistency findings share it
        if read[1]:
            raise ValidationFailed(read[1])
        flagged: list[Finding] = []
        # one database of the reference data for both (the check's dry run leaves it so)
        with open_store(":memory:") as reference:
            load_reference_data(reference.con)
            problems = check_tree(folder, read, reference)
            if mode != "off" and not problems:
                flagged = folder_findings(folder, read, reference)
                if mode == "refuse" and flagged:
                    problems = as_problems(flagged)
    if problems:
        raise ValidationFailed(problems)
    return tuple(flagged)
