"""A consistency finding as JSON (`results add`, `results import`, `results consistency`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any


def finding_json(f: Any) -> dict:
    """A consistency finding (litaudit.curation.consistency.Finding) as JSON."""
    d = asdict(f)
    d["explanations"] = list(f.explanations)
    return d
