"""Collection names: the one resolver of the names a user gives for a collection.

A collection is resolved by its id, short name or any alias (case-insensitively), or by
a unique prefix that ends at a '/' of an id (``msmarco-passage/dev`` ->
``msmarco-passage/dev/small``). A miss suggests the collections the name could mean:
typos of a name (:func:`near_names`: never a different split or year of the same
corpus), ir_datasets-style short forms (``dl19``), words of titles.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.errors import NotFound

if TYPE_CHECKING:
    import duckdb

_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class CollectionNames:
    """Every name of every collection, read once: the one resolver of collection names
    (audits, curation, imports, runs, reports).

    A name resolves when it is an id, a short name or an alias (``aliases``: lower-case,
    each to its id; the ids and short names are aliases too), case-insensitively, or a
    prefix of exactly one id ending at a '/' of it (``beir/scifact`` ->
    ``beir/scifact/test``). A miss suggests (:meth:`suggest`) the collections the name
    could mean: a typo of a name (:func:`near_names`), an ir_datasets-style short form
    that begins or sits inside names (``dl19`` -> ``dl19-doc``, ``dl19-passage``;
    ``nfcorpus`` -> ``beir/nfcorpus/test``), or words of a title (``robust``).
    """

    aliases: dict[str, str]
    short: dict[str, str]  # id -> short name
    titles: dict[str, str]  # id -> title

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection) -> CollectionNames:
        # the two tables in one query (0.71 -> 0.59 ms): a collection's row is
        # (id, name, title), an alias's (alias, collection id, NULL) after them
        got = con.execute(
            "SELECT 0, id, name, title FROM collections UNION ALL "
            "SELECT 1, alias, collection_id, NULL FROM collection_aliases"
        ).fetchall()
        rows = [r[1:] for r in got if r[0] == 0]
        aliases = {a: cid for k, a, cid, _ in got if k == 1}
        for cid, name, _ in rows:
            aliases.setdefault(cid.lower(), cid)
            aliases.setdefault(name.lower(), cid)
        return cls(aliases, {c: n for c, n, _ in rows}, {c: t for c, _, t in rows})

    def lookup(self, name: str) -> str | None:
        """The id ``name`` names, or None; an ambiguous prefix raises NotFound."""
        key = name.strip().lower()
        if key in self.aliases:
            self._refuse_family(name, key, self.aliases[key])
            return self.aliases[key]
        if not key:
            return None
        hits = sorted(i for i in self.short if i.lower().startswith(key.rstrip("/") + "/"))
        if len(hits) > 1:
            raise NotFound(
                f"collection {name!r} is ambiguous: it begins "
                f"{', '.join(hits[:8])}{' ...' if len(hits) > 8 else ''}"
            )
        return hits[0] if hits else None

    def averages(self, key: str) -> list[str]:
        """Collections whose short names are ``key`` and an average's name (``beir-mean``,
        ``beir-18``, ``beir-14``, ``beir-13``): the averages of one benchmark."""
        pat = re.compile(re.escape(key) + r"-(\d+|mean|average)")
        return sorted(
            (c for c, n in self.short.items() if pat.fullmatch(n.lower())),
            key=lambda c: (not self.short[c].lower().endswith(("mean", "average")), c),
        )

    def _refuse_family(self, name: str, key: str, cid: str) -> None:
        """An alias that is no collection's own name but the benchmark's (``beir``) names
        one of several averages: refused, naming each (issue 32: papers average BEIR over
        13, 14, 15 or 18 datasets)."""
        if key in (cid.lower(), self.short.get(cid, "").lower()):
            return
        family = self.averages(key)
        if len(family) > 1 and cid in family:
            listed = "; ".join(f"{self.short[c]} ({self.titles[c]})" for c in family)
            raise NotFound(
                f"collection {name!r} could mean {len(family)} averages: {listed}; name one"
            )

    def resolve(self, name: str) -> str:
        """The id ``name`` names; else NotFound naming the collections it could mean."""
        cid = self.lookup(name)
        if cid is not None:
            return cid
        if not self.short:
            raise NotFound(
                f"unknown collection {name!r}: the database has no collections; run `litaudit init`"
            )
        raise NotFound(f"unknown collection {name!r}{self.hint(name)}")

    def hint(self, name: str) -> str:
        """'; did you mean ...?' with the suggestions, or where to look when there are none."""
        near = self.suggest(name)
        if not near:
            return "; `litaudit collections list` shows them, `collections add` adds one"
        shown = [self._label(c) for c in near[:6]]
        more = f" ({len(near) - 6} more: `litaudit collections list`)" if len(near) > 6 else ""
        listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
        return f"; did you mean {listed}?{more}"

    def _label(self, cid: str) -> str:
        name = self.short[cid]
        return repr(cid) if name.lower() == cid.lower() else f"{name!r} ({cid})"

    def suggest(self, name: str) -> list[str]:
        """Ids of the collections ``name`` could mean, the closest first: a typo of one of
        their names (same parts, same numbers: never another split or year), else names
        in which it is a whole run of words (``dl19``, ``trec-dl-2019``, ``nfcorpus``),
        else titles holding all its words."""
        words = _TOKEN.findall(name.lower())
        if not words:
            return []
        order = lambda c: (self.short[c].lower(), c)  # noqa: E731
        runs = {
            cid
            for alias, cid in self.aliases.items()
            for w in _spellings(words)
            if _has_run(_TOKEN.findall(alias), w)
        }
        if runs:
            return sorted(runs, key=order)
        typo = near_names(name, list(self.aliases))
        if typo:
            return list(dict.fromkeys(self.aliases[a] for a in typo))
        return sorted(
            (c for c, t in self.titles.items() if set(words) <= set(_TOKEN.findall(t.lower()))),
            key=order,
        )


def _spellings(words: list[str]) -> list[list[str]]:
    """The words, and the same with a word and the number after it joined (``dl-19`` ->
    ``dl19``) or a two-digit year after a word written out (``dl 19`` -> ``dl 2019``)."""
    out = [words]
    joined: list[str] = []
    for w in words:
        if joined and w.isdigit() and joined[-1].isalpha():
            joined[-1] += w
        else:
            joined.append(w)
    if joined != words:
        out.append(joined)
    years = [f"20{w}" if w.isdigit() and len(w) == 2 and i else w for i, w in enumerate(words)]
    if years != words:
        out.append(years)
    return out


def _has_run(tokens: list[str], words: list[str]) -> bool:
    """``words`` occur in ``tokens`` one after the other."""
    n = len(words)
    return any(tokens[i : i + n] == words for i in range(len(tokens) - n + 1))


def near_names(name: str, choices, n: int = 3) -> list[str]:
    """Names close to ``name`` that could mean the same query set.

    A name with '/' (an ir_datasets-like id) is compared part by part: a choice is near
    only when it has as many parts and every part is close (a typo), so a different split
    (dev vs eval) or year (trec-dl-2019 vs -2020) is never offered. Plain names are
    compared whole, among plain names.
    """
    key = name.strip().lower()
    parts = key.split("/")
    out = []
    for c in choices:
        cp = c.lower().split("/")
        if len(cp) != len(parts):
            continue
        if all(_close(a, b) for a, b in zip(parts, cp, strict=True)):
            out.append((difflib.SequenceMatcher(None, key, c.lower()).ratio(), c))
    out.sort(key=lambda x: (-x[0], x[1]))
    return [c for _, c in out[:n]]


def _close(a: str, b: str) -> bool:
    """Two parts of a name are the same but for a typo: equal, or similar (ratio >= 0.75)
    with the same numbers (so 2019 never stands for 2020, v1 never for v2; 4 is 04)."""
    if a == b:
        return True
    numbers = [int(x) for x in re.findall(r"\d+", a)], [int(x) for x in re.findall(r"\d+", b)]
    return numbers[0] == numbers[1] and difflib.SequenceMatcher(None, a, b).ratio() >= 0.75
