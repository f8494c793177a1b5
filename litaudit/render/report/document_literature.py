"""The literature sections of a report as blocks: the best published result against the
best of N equally good systems (Carterette 2015, Tables 2-3), its figures, the candidate
best set with citations and the record over time; and the cited-result tables and links
the claim and the conclusions share (split from :mod:`.document`, issue 37; no behaviour
changed)."""

from __future__ import annotations

from litaudit.render.report import figures as F
from litaudit.render.report.blocks import FigureBlock, Heading, Para, Table, cite, f3, f4, http_url
from litaudit.render.report.build import cite_text
from litaudit.render.report.model import Candidate, LiteratureSection, anchor


def paper_url(c: Candidate) -> str | None:
    """The paper (or the submission's description) of a cited result: its DOI, else its
    link, else its URL; http(s) only."""
    for u in (f"https://doi.org/{c.doi}" if c.doi else None, c.link, c.url):
        if http_url(u):
            return http_url(u)
    return None


def lookups(c: Candidate, whose: str) -> list[tuple[str, str]]:
    out = []
    if paper_url(c):
        out.append((f"{whose} paper", paper_url(c) or ""))
    if http_url(c.code_url):
        out.append((f"{whose} code", http_url(c.code_url) or ""))
    return out


def short_link(url: str | None, doi: str | None = None) -> str:
    """A link's text in a table: short (a DOI as 'doi:...', else the URL's host), never
    the raw URL that runs a table off the page."""
    if not url:
        return "-"
    if doi and url.endswith(doi):
        return f"doi:{doi}"
    from urllib.parse import urlsplit

    host = urlsplit(url).netloc or url.split("://", 1)[-1]
    return host.removeprefix("www.")


def literature_blocks(lit: LiteratureSection, claim: float | None = None) -> list:
    out: list = [
        Heading(
            2,
            f"The best published {lit.measure} against the best of N equally good systems",
            anchor("best", lit.measure),
        )
    ]
    if lit.best_audit is None:
        out.append(Para(f"No extreme-value audit for {lit.measure}: {lit.error}."))
        return out
    src = cite(lit.best_audit)
    if lit.population:
        out.append(Para(lit.population))
    out.append(
        Para(
            f"The {lit.n} published {lit.measure} values are treated as {lit.n} draws from one "
            f"normal distribution (mean {f4(lit.mean)}, standard error {f4(lit.se)} over "
            f"{lit.n_topics} topics; Carterette, SIGIR 2015). The best of {lit.n} equally good "
            f"systems is expected to reach {f4(lit.expected_max)} by chance; {lit.n_above} "
            f"published results lie above {f4(lit.max_threshold)}, the value that best exceeds "
            f"with probability {lit.alpha:g}; if all {lit.n} were draws from that distribution, "
            f"{f3(lit.expected_above_under_null)} would be expected above it."
        )
    )
    if lit.model_fit:
        out.append(Para(lit.model_fit))
    if lit.ranks:
        out.append(Para(lit.ranks))
        head = ("rank", "system", "mean", "95% rank interval", "P(first)", "set of the best")
        out.append(Table(head, lit.ranks_rows, caption="Rank resolution"))
    out += _literature_tables(lit, src)
    for fig in (F.mxvd_figure(lit, claim), F.expected_max_figure(lit, claim)):
        if fig is not None:
            out.append(FigureBlock(fig))
    if lit.candidates:
        out += _candidates(lit, src)
    fig = F.history_figure(lit, claim)
    if fig is not None:
        out += [
            Heading(3, "The record over time", anchor("history", lit.measure)),
            FigureBlock(fig),
        ]
    elif lit.history_error:
        out.append(Para(f"No history: {lit.history_error}."))
    return out


def _literature_tables(lit: LiteratureSection, src: str) -> list:
    """Tables 2 and 3 of Carterette (2015) and the thresholds of the max and min of N."""
    out: list = []
    out.append(
        Table(
            ("N", "topics", "mean", "sd", "max", "expected max", "source"),
            (
                (
                    str(lit.n),
                    str(lit.n_topics),
                    f4(lit.mean),
                    f4(lit.sd),
                    f4(lit.maximum),
                    f4(lit.expected_max),
                    src,
                ),
            ),
            "Table 2 of Carterette (2015): the published results",
        )
    )
    out.append(
        Table(
            (
                "alpha",
                "max threshold",
                "published above",
                "min threshold",
                "published below",
                "expected above under the model",
                "source",
            ),
            (
                (
                    f"{lit.alpha:g}",
                    f4(lit.max_threshold),
                    str(lit.n_above),
                    f4(lit.min_threshold),
                    str(lit.n_below),
                    f3(lit.expected_above_under_null),
                    src,
                ),
            ),
            "Thresholds of the max and min of N",
        )
    )
    cover = "-" if lit.coverage is None else f"{lit.coverage:.0%}"
    out.append(
        Table(
            ("best", "p", "mu0", "interval", "coverage", "candidates", "source"),
            (
                (
                    f4(lit.value),
                    f"{lit.p:g}",
                    f4(lit.mu0),
                    f"[{f4(lit.lower)}, {f4(lit.value)}]",
                    cover,
                    str(len(lit.candidates)),
                    src,
                ),
            ),
            "Table 3 of Carterette (2015): intrinsic effectiveness of the best",
        )
    )
    return out


def _candidates(lit: LiteratureSection, src: str) -> list:
    """The candidate best systems: every result at or above the lower bound."""
    out: list = [
        Heading(
            3, f"Candidate best systems ({len(lit.candidates)})", anchor("candidates", lit.measure)
        )
    ]
    out.append(
        Para(
            f"Every result at or above the lower bound {f4(lit.lower)} could be "
            "the truly best system; they cannot be told apart by these numbers."
        )
    )
    out.append(cited_table(lit.candidates, lit.measure, f"Candidate best set ({src})"))
    return out


def cited_table(cs: tuple[Candidate, ...], measure: str, caption: str) -> Table:
    """Published results as a reader cites them, linked to their paper and code (where
    they were transcribed from is in the appendix)."""
    rows, links = [], []
    for c in cs:
        paper, code = paper_url(c), http_url(c.code_url)
        rows.append(
            (
                str(c.rank) if c.rank else "-",
                c.value_text or f4(c.value),
                c.system or "-",
                cite_text(c),
                short_link(paper, c.doi),
                short_link(code),
                "-" if c.result_id is None else str(c.result_id),
            )
        )
        links.append((None, None, None, None, paper, code, None))
    return Table(
        ("#", measure, "system", "cited as", "paper or page", "code", "result"),
        tuple(rows),
        caption,
        tuple(links),
    )
