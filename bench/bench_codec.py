"""Decoding and encoding the stored audits of a seeded store: the compiled decoder
(litaudit.codec.decode) and the direct writer (litaudit.codec.dumps) against the ones they
replaced (tests/store/codec_reference.py), checked to give the same values and the stored
text back, then `analyses.audits.list_audits` end to end. Prints CPU seconds (the
steadier figure on a shared machine). Builds a seeded store (`init`, `audit summary`) in a
temporary folder unless given one (opened read-only):

    .venv/bin/python bench/bench_codec.py [DB]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from litaudit.analyses.audits import list_audits, result_type  # noqa: E402
from litaudit.codec import decode, dumps  # noqa: E402
from litaudit.store.db import open_store  # noqa: E402
from tests.store import codec_reference  # noqa: E402


def cpu(fn, repeat: int = 3) -> tuple[float, object]:
    """The least CPU seconds of ``repeat`` calls of ``fn`` and its (last) value."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def measure(db: Path) -> None:
    with open_store(db, read_only=True) as store:
        rows = store.con.execute("SELECT kind, result FROM audits ORDER BY id").fetchall()
        n_bytes = sum(len(text) for _kind, text in rows)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"{len(rows)} stored audits, {n_bytes / 1e6:.1f} MB of result JSON")
        parsed, loaded = cpu(lambda: [(result_type(k), json.loads(t)) for k, t in rows])
        print(f"json.loads                      {parsed:6.3f} s")
        before, old = cpu(lambda: [codec_reference.decode(tp, d) for tp, d in loaded])
        after, new = cpu(lambda: [decode(tp, d) for tp, d in loaded])
        assert new == old, "the compiled decoder gives other values"
        print(
            f"decode: reference {before:6.3f} s  compiled {after:6.3f} s  ({before / after:.1f}x)"
        )
        before, _texts = cpu(lambda: [codec_reference.dumps(x) for x in new])
        after, texts = cpu(lambda: [dumps(x) for x in new])
        assert texts == [t for _k, t in rows], "dumps gives other text than is stored"
        print(
            f"dumps:  reference {before:6.3f} s  direct   {after:6.3f} s  ({before / after:.1f}x)"
        )
        listed, audits = cpu(lambda: list_audits(store.con))
        print(f"list_audits ({len(audits)} audits)          {listed:6.3f} s")
        heads, _audits = cpu(lambda: list_audits(store.con, results=False))
        print(f"list_audits(results=False)      {heads:6.3f} s  (`audit list`)")


def main() -> None:
    if len(sys.argv) > 1:
        measure(Path(sys.argv[1]))
        return
    with tempfile.TemporaryDirectory() as d:
        db = Path(d) / "seeded.duckdb"
        for args in (["init", "--json"], ["audit", "summary", "--json"]):
            subprocess.run(
                [sys.executable, "-m", "litaudit", "--db", str(db), *args],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
            )
        measure(db)


if __name__ == "__main__":
    main()
