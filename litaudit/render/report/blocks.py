"""The report's format-neutral block types (headings, bullet lists, paragraphs, tables,
figures) and number formats, shared by :mod:`.document` and :mod:`.document_reuse` and
read by :mod:`.markdown` and :mod:`.html`."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from litaudit.render.report import figures


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str | None = None  # the section's id, for links within the report


@dataclass(frozen=True)
class Bullets:
    """A list; each item a text and the links after it, (label, '#anchor' or URL)."""

    items: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    kind: str = "conclusions"  # the list's class in HTML: conclusions | verdict


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str | None = None
    links: tuple[tuple[str | None, ...], ...] = ()  # per cell: a URL, or None
    anchor: str | None = None


@dataclass(frozen=True)
class FigureBlock:
    figure: figures.Figure


def http_url(url: str | None) -> str | None:
    """``url`` when it is an http(s) URL with a host, else None: stored text never
    becomes a javascript:, data: or relative link. Characters that would end a link
    (spaces, quotes, angle brackets, controls) are percent-encoded."""

    if not url:
        return None
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~-._")


def f4(x) -> str:
    return "-" if x is None else f"{float(x):.4f}"


def f3(x) -> str:
    return "-" if x is None else f"{float(x):.3f}"


def f2(x) -> str:
    return "-" if x is None else f"{float(x):.2f}"


def cite(aid: int | None) -> str:
    return f"audit #{aid}" if aid is not None else "no audit"
