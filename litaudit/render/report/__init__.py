"""Audit reports for reviewers: Markdown, self-contained HTML with inline SVG, JSON.

``build_report`` gathers the stored audits that
:func:`litaudit.analyses.report_audits.prepare_report` ran or found into a frozen
:class:`~.model.Report`;
``render_markdown``, ``render_html`` and ``render_json`` format it.
"""

from __future__ import annotations

from litaudit.render.report.build import build_report
from litaudit.render.report.html import render_html
from litaudit.render.report.markdown import render_markdown
from litaudit.render.report.model import Report
from litaudit.render.report.text import render_text


def render_json(rep: Report) -> str:
    """Everything in the report model as canonical JSON (sorted keys)."""
    # start-up: rich (through litaudit.render.console)
    from litaudit.render.console import dumps

    return dumps(rep) + "\n"


__all__ = ["Report", "build_report", "render_html", "render_json", "render_markdown", "render_text"]
