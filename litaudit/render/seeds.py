"""What `litaudit init` did to the seeded rows, as lines of text."""

from __future__ import annotations

from litaudit.defaults import SEED_IDS_SHOWN


def seed_sync_lines(sync: dict) -> list[str]:
    """The seeds' rows added, unchanged, updated, retracted, restored; then the rows the
    seeds no longer hold (or hold with another value) that a user changed: left alone."""
    parts = [f"{sync['added']:,} added", f"{sync['unchanged']:,} unchanged"]
    if sync["updated"]:
        parts.append(f"{sync['updated']:,} updated to the seeds' values (history says so)")
    if sync.get("notes_updated"):
        parts.append(f"{sync['notes_updated']:,} with the seeds' new notes (history says so)")
    if sync.get("dates_updated"):
        parts.append(
            f"{sync['dates_updated']:,} with the seeds' new dates or sources (history says so)"
        )
    if sync.get("roles_changed"):
        parts.append(
            f"{sync['roles_changed']:,} with the seeds' new role (history says so; seeds/README.md)"
        )
    if sync["retracted"]:
        parts.append(
            f"{sync['retracted']:,} retracted: no longer in the seeds "
            "(history says why; seeds/README.md)"
        )
    if sync["restored"]:
        parts.append(f"{sync['restored']:,} back in the seeds: no longer retracted")
    lines = ["seeded results: " + ", ".join(parts)]
    left = sync["left"]
    if left:
        shown = ", ".join(f"#{i}" for i in left[:SEED_IDS_SHOWN])
        more = (
            f" and {len(left) - SEED_IDS_SHOWN:,} more (--json lists all)"
            if len(left) > SEED_IDS_SHOWN
            else ""
        )
        lines.append(
            f"left as they are: {len(left):,} seeded result(s) that the seeds no longer "
            f"hold (or hold with another value) but a user changed since: {shown}{more}. "
            "`litaudit results history ID` shows each; retract or edit them by hand."
        )
    return lines
