"""The report as plain text for a review form (issue 32, item 2): no anchors, no markup,
no escapes, every line at most ``WIDTH`` characters; tables as aligned columns when they
fit, else one record per row ("column: value"); plots left out with a note; links given
as their URLs (links within the report dropped)."""

from __future__ import annotations

import re
import textwrap

from litaudit.render.report.blocks import Bullets, FigureBlock, Heading, Para, Table, http_url
from litaudit.render.report.document import blocks
from litaudit.render.report.model import Report

WIDTH = 100
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _clean(text: str) -> str:
    """One line of stored text: controls and line breaks as spaces, the report's own
    `code` backticks dropped."""
    text = _CONTROL.sub(" ", text.replace("\r\n", " ").replace("\n", " "))
    return text.replace("`", "")


def _wrap(text: str, first: str = "", rest: str = "") -> list[str]:
    return textwrap.wrap(
        _clean(text),
        WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def _heading(h: Heading) -> list[str]:
    lines = _wrap(h.text)
    rule = "=" if h.level <= 1 else "-" if h.level == 2 else ""
    if rule:
        lines.append(rule * min(WIDTH, max(len(x) for x in lines)))
    return lines


def _bullets(b: Bullets) -> list[str]:
    out = []
    for text, links in b.items:
        urls = [f"{label}: {http_url(href)}" for label, href in links if http_url(href)]
        said = _clean(text) + (f" ({'; '.join(urls)})" if urls else "")
        out += _wrap(said, "- ", "  ")
    return out


def _table(t: Table) -> list[str]:
    out = _wrap(t.caption) if t.caption else []
    cols = [_clean(c) for c in t.columns]
    rows = [[_clean(v) for v in row] for row in t.rows]
    urls: list[list[str | None]] = [
        [http_url(x) for x in (t.links[i] if i < len(t.links) else ())] for i in range(len(rows))
    ]
    widths = [max([len(c)] + [len(r[j]) for r in rows if j < len(r)]) for j, c in enumerate(cols)]
    if sum(widths) + 2 * (len(cols) - 1) <= WIDTH:
        if any(cols):
            out.append("  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)).rstrip())
        for r in rows:
            out.append("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=False)).rstrip())
        links = [u for us in urls for u in us if u]
        out += [x for u in dict.fromkeys(links) for x in _wrap(u, "  ", "    ")]
        return out
    for i, r in enumerate(rows):  # too wide: one record per row
        for j, v in enumerate(r):
            name = cols[j] if j < len(cols) and cols[j] else ""
            url = urls[i][j] if j < len(urls[i]) else None
            v = f"{v} ({url})" if url and url.split("://", 1)[-1].rstrip("/") != v else v
            head = f"{name}: " if name else ""
            out += _wrap(head + v, "  ", "    ")
        out.append("")
    return out[:-1] if out and out[-1] == "" else out


def render_text_blocks(bs: list) -> str:
    """Plain text of report blocks (:mod:`.document`)."""
    lines: list[str] = []
    skipped = 0
    for b in bs:
        if isinstance(b, Heading):
            lines += _heading(b)
        elif isinstance(b, Bullets):
            lines += _bullets(b)
        elif isinstance(b, Para):
            lines += _wrap(b.text)
        elif isinstance(b, Table):
            lines += _table(b)
        elif isinstance(b, FigureBlock):
            skipped += 1
            continue
        lines.append("")
    if skipped:
        lines += _wrap(
            f"({skipped} plot(s) left out of the text form: --format html or md shows them.)"
        )
    return "\n".join(lines).rstrip("\n") + "\n"


def render_text(rep: Report) -> str:
    """The report as plain text, lines of at most ``WIDTH`` characters."""
    return render_text_blocks(blocks(rep))
