"""Markdown report (GitHub-flavoured): tables, and plots as SVG files linked beside it."""

from __future__ import annotations

import re
from urllib.parse import quote

from litaudit.render.report.blocks import (
    Bullets,
    FigureBlock,
    Heading,
    Para,
    Table,
    http_url,
)
from litaudit.render.report.document import blocks
from litaudit.render.report.model import Report

# Stored text is data, never Markdown or HTML: the characters that would start markup
# are backslash-escaped, and &, <, > become entities (no live HTML, no autolinks).
_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _text(text: str) -> str:
    """Plain text for Markdown: one line, markup characters escaped."""
    text = _CONTROL.sub(" ", text.replace("\r\n", " ").replace("\n", " "))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def _inline(text: str) -> str:
    """Text with the report's own `code` spans kept (as in the HTML report) and the rest
    escaped; a lone backtick is escaped too."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: the last one is text
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    out = []
    for i, p in enumerate(parts):
        if i % 2 == 0:
            out.append(_text(p))
        elif p.strip():
            code = _CONTROL.sub(" ", p.replace("\n", " "))
            out.append(f"`{code}`")
    return "".join(out)


def _cell(text: str) -> str:
    return _text(text)


def _line_start(text: str) -> str:
    """Escape what would make a paragraph a list, quote, heading or rule."""
    return re.sub(
        r"^(\s*)([-+>=#]|\d+[.)](?=\s|$))",
        lambda m: (
            m.group(1) + "\\" + m.group(2)
            if not m.group(2)[0].isdigit()
            else m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1]
        ),
        text,
    )


def _anchor(anchor: str | None) -> list[str]:
    """An explicit anchor before a heading or table (the same id as in the HTML report;
    anchors are the report's own [a-z0-9-] slugs)."""
    return [f'<a id="{anchor}"></a>', ""] if anchor and re.fullmatch(r"[a-z0-9-]+", anchor) else []


def _href(href: str) -> str | None:
    if href.startswith("#") and re.fullmatch(r"#[a-z0-9-]+", href):
        return href
    return http_url(href)


def _bullets(b: Bullets) -> list[str]:
    out = []
    for text, links in b.items:
        ls = []
        for label, href in links:
            url = _href(href)
            ls.append(f"[{_text(label)}](<{url}>)" if url else _text(label))
        out.append("- " + _inline(text) + (f" ({'; '.join(ls)})" if ls else ""))
    return out


def _table(t: Table) -> list[str]:
    out = _anchor(t.anchor)
    if t.caption:
        out += [f"*{_inline(t.caption)}*", ""]
    header = t.columns if any(t.columns) else ("", "")
    out.append("| " + " | ".join(_cell(c) for c in header) + " |")
    out.append("|" + "|".join("---" for _ in header) + "|")
    for i, row in enumerate(t.rows):
        links = t.links[i] if i < len(t.links) else ()
        cells = []
        for j, v in enumerate(row):
            url = http_url(links[j]) if j < len(links) else None
            cells.append(f"[{_cell(v)}](<{url}>)" if url else _cell(v))
        out.append("| " + " | ".join(cells) + " |")
    return out


def render_markdown(rep: Report, image_prefix: str | None) -> tuple[str, dict[str, str]]:
    """(Markdown text, {file name: SVG}) with images named ``{image_prefix}.{figure}.svg``.

    With ``image_prefix=None`` (Markdown on stdout) plots are left out with a note, since
    there is no place to write them.
    """
    return render_markdown_blocks(blocks(rep), image_prefix)


def render_markdown_blocks(bs: list, image_prefix: str | None) -> tuple[str, dict[str, str]]:
    """:func:`render_markdown` of report blocks (one report's, or a claims file's)."""
    lines: list[str] = []
    files: dict[str, str] = {}
    skipped = 0
    for b in bs:
        if isinstance(b, Heading):
            lines += _anchor(b.anchor)
            lines.append("#" * b.level + " " + _inline(b.text))
        elif isinstance(b, Bullets):
            lines += _bullets(b)
        elif isinstance(b, Para):
            lines.append(_line_start(_inline(b.text)))
        elif isinstance(b, Table):
            lines += _table(b)
        elif isinstance(b, FigureBlock):
            fig = b.figure
            if image_prefix is None:
                skipped += 1
                continue
            name = f"{image_prefix}.{fig.name}.svg"
            files[name] = fig.svg
            lines += [
                f"![{_text(fig.title)}]({quote(name)})",
                "",
                f"*{_cell(fig.caption)} "
                f"({'audit #' + str(fig.audit) if fig.audit is not None else 'no audit'})*",
            ]
        lines.append("")
    if skipped:
        lines += [
            f"*{skipped} plot(s) left out: write the report to a file with `-o` to "
            "get them as SVG images beside it, or use `--format html`.*",
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n", files
