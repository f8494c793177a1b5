"""One self-contained HTML file: inline CSS and SVG, no scripts, no network requests.

A Content-Security-Policy forbids every external load, and the layout reads at phone
width (viewport meta, tables scroll sideways, plots scale to the page).
"""

from __future__ import annotations

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
from litaudit.render.report.svg import escape  # escaped, control characters dropped

CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  margin: 0 auto; padding: 1rem; max-width: 60rem; line-height: 1.45; color: #1b1b1b; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.25rem; margin-top: 2rem;
  border-bottom: 1px solid #ddd; } h3 { font-size: 1.05rem; }
code { background: #f3f3f3; padding: 0 .2em; border-radius: 3px; word-break: break-all; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: .5rem 0 1rem; }
table { border-collapse: collapse; font-size: .9rem; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .5rem; text-align: left;
  vertical-align: top; overflow-wrap: anywhere; }
th { background: #f5f5f5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
caption { caption-side: top; text-align: left; font-style: italic; padding: .25rem 0; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .9rem; color: #444; }
ul.conclusions li, ul.verdict li { margin: .35rem 0; }
ul.conclusions .ev { color: #444; font-size: .9rem; }
@media (max-width: 600px) { body { padding: .5rem; } table { font-size: .8rem; } }
"""

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _inline(text: str) -> str:
    """Escape, then turn `code` spans into <code>."""
    parts = escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _is_num(v: str) -> bool:
    return v.replace(".", "", 1).replace("-", "", 1).isdigit()


def _href(href: str) -> str | None:
    """A link target: an anchor of the report ('#claim-ap') or an http(s) URL."""
    if href.startswith("#") and all(c.isalnum() or c == "-" for c in href[1:]):
        return href
    return http_url(href)


def _bullets(b: Bullets) -> list[str]:
    out = [f'<ul class="{escape(b.kind, quote=True)}">']
    for text, links in b.items:
        ls = []
        for label, href in links:
            url = _href(href)
            ls.append(
                f'<a href="{escape(url, quote=True)}" rel="noreferrer">{escape(label)}</a>'
                if url
                else escape(label)
            )
        tail = f' <span class="ev">({"; ".join(ls)})</span>' if ls else ""
        out.append(f"<li>{_inline(text)}{tail}</li>")
    out.append("</ul>")
    return out


def _id(anchor: str | None) -> str:
    return f' id="{escape(anchor, quote=True)}"' if anchor else ""


def _table(t: Table) -> list[str]:
    out = [f'<div class="scroll"{_id(t.anchor)}><table>']
    if t.caption:
        out.append(f"<caption>{_inline(t.caption)}</caption>")
    if any(t.columns):
        out.append(
            "<thead><tr>" + "".join(f"<th>{escape(c)}</th>" for c in t.columns) + "</tr></thead>"
        )
    out.append("<tbody>")
    for i, row in enumerate(t.rows):
        links = t.links[i] if i < len(t.links) else ()
        cells = []
        for j, v in enumerate(row):
            url = http_url(links[j]) if j < len(links) else None
            body = (
                f'<a href="{escape(url, quote=True)}" rel="noreferrer">{escape(v)}</a>'
                if url
                else escape(v)
            )
            if not any(t.columns) and j == 0:
                cells.append(f'<th scope="row">{body}</th>')
            else:
                cells.append(f'<td class="num">{body}</td>' if _is_num(v) else f"<td>{body}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return out


def render_html(rep: Report) -> str:
    return render_html_blocks(rep.title, blocks(rep))


def render_html_blocks(title: str, bs: list) -> str:
    """One HTML page of report blocks (one report's, or a claims file's)."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        f"<title>{escape(title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
    ]
    for b in bs:
        if isinstance(b, Heading):
            out.append(f"<h{b.level}{_id(b.anchor)}>{_inline(b.text)}</h{b.level}>")
        elif isinstance(b, Bullets):
            out += _bullets(b)
        elif isinstance(b, Para):
            out.append(f"<p>{_inline(b.text)}</p>")
        elif isinstance(b, Table):
            out += _table(b)
        elif isinstance(b, FigureBlock):
            f = b.figure
            src = f"audit #{f.audit}" if f.audit is not None else "no audit"
            out += [
                "<figure>",
                f.svg.rstrip("\n"),
                f"<figcaption>{escape(f.caption)} ({src})</figcaption>",
                "</figure>",
            ]
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
