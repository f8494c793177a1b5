"""Markdown report (GitHub-flavoured): tables, and plots as SVG files linked beside it."""

from __future__ import annotations

from litaudit.render.report.document import FigureBlock, Heading, Para, Table, blocks
from litaudit.render.report.model import Report


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _table(t: Table) -> list[str]:
    out = []
    if t.caption:
        out += [f"*{_cell(t.caption)}*", ""]
    header = t.columns if any(t.columns) else ("", "")
    out.append("| " + " | ".join(_cell(c) for c in header) + " |")
    out.append("|" + "|".join("---" for _ in header) + "|")
    for i, row in enumerate(t.rows):
        links = t.links[i] if i < len(t.links) else ()
        cells = []
        for j, v in enumerate(row):
            url = links[j] if j < len(links) else None
            cells.append(f"[{_cell(v)}](<{url}>)" if url else _cell(v))
        out.append("| " + " | ".join(cells) + " |")
    return out


def render_markdown(rep: Report, image_prefix: str | None) -> tuple[str, dict[str, str]]:
    """(Markdown text, {file name: SVG}) with images named ``{image_prefix}.{figure}.svg``.

    With ``image_prefix=None`` (Markdown on stdout) plots are left out with a note, since
    there is no place to write them.
    """
    lines: list[str] = []
    files: dict[str, str] = {}
    skipped = 0
    for b in blocks(rep):
        if isinstance(b, Heading):
            lines.append("#" * b.level + " " + b.text)
        elif isinstance(b, Para):
            lines.append(b.text)
        elif isinstance(b, Table):
            lines += _table(b)
        elif isinstance(b, FigureBlock):
            fig = b.figure
            if image_prefix is None:
                skipped += 1
                continue
            name = f"{image_prefix}.{fig.name}.svg"
            files[name] = fig.svg
            lines += [f"![{fig.title}]({name})", "", f"*{_cell(fig.caption)} "
                      f"({'audit #' + str(fig.audit) if fig.audit is not None else 'no audit'})*"]
        lines.append("")
    if skipped:
        lines += [f"*{skipped} plot(s) left out: write the report to a file with `-o` to "
                  "get them as SVG images beside it, or use `--format html`.*", ""]
    return "\n".join(lines).rstrip("\n") + "\n", files
