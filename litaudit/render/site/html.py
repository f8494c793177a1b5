"""The pieces every page of the site is made of: the page frame (inline style and script,
a Content-Security-Policy forbidding every load), escaped text, safe links, sortable
table headers and the filter form. Stored text is data: every value is escaped and only
http(s) URLs become links (:func:`litaudit.render.report.blocks.http_url`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from litaudit import __version__
from litaudit.render.report.blocks import http_url
from litaudit.render.report.svg import escape
from litaudit.render.site.assets import CSP, CSS, SCRIPT

# a character :func:`escape` changes (markup, quotes, the control characters it drops)
_SPECIAL = re.compile(r"[&<>\"'\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def esc(text: object) -> str:
    """``text`` escaped as :func:`escape` does; text it would leave unchanged is returned
    after one search (most of a site's ~730,000 cells: numbers, names, measures)."""
    s = text if type(text) is str else str(text)
    if _SPECIAL.search(s) is None:
        return s
    return escape(s, quote=True)


def inline(text: str) -> str:
    """Escaped text with its `code` spans as <code> (the audits' sentences name options so)."""
    parts = esc(text).split("`")
    return "".join(f"<code>{x}</code>" if i % 2 else x for i, x in enumerate(parts))


def slug(*parts: str) -> str:
    """A file-name stem from ``parts``: letters, digits and '-' (lower case)."""
    return "-".join(re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in parts if p)


def link(label: str, url: str | None) -> str:
    """An external link when ``url`` is an http(s) URL, else the escaped label alone."""
    u = http_url(url)
    if not u:
        return esc(label)
    return f'<a href="{esc(u)}" rel="noreferrer">{esc(label)}</a>'


def page(title: str, body: Sequence[str], *, root: str, description: str) -> str:
    """A whole page; ``root`` is the relative path to the site's top ('' or '../')."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        f'<meta name="description" content="{esc(description)}">',
        f"<title>{esc(title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
        '<a class="skip" href="#main">Skip to the content</a>',
        '<nav class="site" aria-label="Site">'
        f'<a href="{root}index.html">Leaderboards</a> · <a href="{root}papers.html">Papers</a>'
        "</nav>",
        '<main id="main">',
        *body,
        "</main>",
        "<footer><p>Built by litaudit "
        f"{esc(__version__)} from stored audits and curated results only; each number names "
        "the audit it comes from (<code>litaudit audit show ID</code> prints it). "
        "Extreme-value audits: Carterette, “The Best Published Result is Random”, "
        "SIGIR 2015.</p></footer>",
        f"<script>{SCRIPT}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(out) + "\n"


def sort_head(label: str, kind: str = "text", *, sortable: bool = True) -> str:
    """A column header; a button sorts by it (``kind``: 'num' or 'text')."""
    if not sortable:
        return f'<th scope="col">{esc(label)}</th>'
    return (
        f'<th scope="col" aria-sort="none"><button type="button" data-type="{kind}">'
        f"{esc(label)}</button></th>"
    )


def cell(
    text: str, *, v: object | None = None, num: bool = False, raw: bool = False, cls: str = ""
) -> str:
    """A table cell: escaped ``text`` (``raw``: already HTML), its sort key ``v``."""
    attr = f' data-v="{esc(v)}"' if v is not None else ""
    cls = ' class="num"' if num else (f' class="{cls}"' if cls else "")
    return f"<td{cls}{attr}>{text if raw else esc(text)}</td>"


def select(name: str, label: str, options: Iterable[str]) -> str:
    opts = "".join(f'<option value="{esc(o)}">{esc(o)}</option>' for o in options)
    return (
        f'<label>{esc(label)}<select name="{name}"><option value="">all</option>{opts}'
        "</select></label>"
    )


def filter_form(table_id: str, fields: Sequence[str]) -> str:
    """The filter controls of table ``table_id`` (hidden until the script shows them)."""
    return (
        f'<form class="filters" data-for="{table_id}" hidden role="search" '
        f'aria-label="Filter the table">'
        + "".join(fields)
        + '<output aria-live="polite"></output></form>'
    )


def search_field(placeholder: str) -> str:
    return f'<label>Search<input type="search" name="q" placeholder="{esc(placeholder)}"></label>'


def year_fields() -> list[str]:
    return [
        '<label>From year<input type="number" name="from" inputmode="numeric"></label>',
        '<label>To year<input type="number" name="to" inputmode="numeric"></label>',
    ]


def check_field(name: str, label: str) -> str:
    return f'<label class="check"><input type="checkbox" name="{name}">{esc(label)}</label>'


def f4(x: float | None) -> str:
    return "-" if x is None or x != x else f"{x:.4f}"


def location(text: str | None) -> str:
    """A result's exact source (file, line, column; or table, page) as a cell."""
    return cell(f"<code>{esc(text)}</code>" if text else "-", raw=True, cls="loc")
