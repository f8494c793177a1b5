"""One document for a paper's claims (`report --claims FILE`, issue 32, item 2): every
claim's verdict first, one block per claim, then each claim's full report with its
headings one level down and its anchors and plot names made its own (``c1-...``), so
the links of one claim's report never reach another's."""

from __future__ import annotations

import dataclasses

from litaudit.render.report.blocks import Bullets, FigureBlock, Heading, Para, Table
from litaudit.render.report.document import blocks, claim_text
from litaudit.render.report.model import Report

TITLE = "Audit of a paper's claims"


def _own(anchor: str | None, k: int) -> str | None:
    return None if anchor is None else f"c{k}-{anchor}"


def _link(href: str, k: int) -> str:
    return f"#c{k}-{href[1:]}" if href.startswith("#") else href


def _claim_blocks(bs: list, k: int) -> list:
    """A report's blocks as part k of the document: headings one level down, the title
    numbered, anchors and plot names prefixed with c{k}."""
    out: list = []
    for b in bs:
        if isinstance(b, Heading):
            text = f"Claim {k}: {b.text}" if b.level == 1 else b.text
            out.append(Heading(min(6, b.level + 1), text, _own(b.anchor, k) or f"c{k}"))
        elif isinstance(b, Table):
            out.append(dataclasses.replace(b, anchor=_own(b.anchor, k)))
        elif isinstance(b, Bullets):
            items = tuple(
                (text, tuple((label, _link(href, k)) for label, href in links))
                for text, links in b.items
            )
            out.append(dataclasses.replace(b, items=items))
        elif isinstance(b, FigureBlock):
            fig = dataclasses.replace(b.figure, name=f"c{k}-{b.figure.name}")
            out.append(FigureBlock(fig))
        else:
            out.append(b)
    return out


def _what(rep: Report) -> str:
    if rep.claims:
        c = rep.claims[0]
        return f"{rep.data.collection_name} {c.measure} = {claim_text(c)}"
    return rep.data.collection_name


def claims_blocks(reports: list[Report], source: str) -> list:
    """The document: a line saying what it is, each claim's verdict, then each report."""
    n = len(reports)
    out: list = [
        Heading(1, TITLE),
        Para(
            f"{n} claim{'s' if n != 1 else ''} read from {source}, each checked against the "
            "published results in the litaudit store: first every claim's verdict (one line "
            "per question), then each claim's full report."
        ),
    ]
    for k, rep in enumerate(reports, 1):
        out.append(Heading(2, f"Claim {k}: {_what(rep)}", f"verdict-c{k}"))
        lines = tuple((v.line(), ()) for c in rep.claims for v in c.verdict) or (
            ("no verdict: the claim could not be audited (see its report)", ()),
        )
        out.append(Bullets(lines, "verdict"))
    for k, rep in enumerate(reports, 1):
        out += _claim_blocks([b for b in blocks(rep) if not _is_verdict(b)], k)
    return out


def _is_verdict(b) -> bool:
    """A report's verdict (said once, at the top): its headings and its lists."""
    if isinstance(b, Heading):
        return b.anchor is not None and b.anchor.startswith("verdict")
    return isinstance(b, Bullets) and b.kind == "verdict"


def claims_json(reports: list[Report], source: str) -> str:
    """Every claim's report model as canonical JSON."""
    # start-up: rich (through litaudit.render.console)
    from litaudit.render.console import dumps

    return dumps({"title": TITLE, "source": source, "claims": list(reports)}) + "\n"
