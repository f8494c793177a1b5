"""`litaudit --help` start-up cost against a minimal two-command Typer app (target <= 1.3x).

Both run as fresh interpreters in the same session, alternating, median of repeats.
Heavy libraries (duckdb, sqlmodel, numpy, scipy, pandas) must not be imported by --help.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPEATS = 15
MINIMAL = """
import typer
app = typer.Typer()
@app.command()
def one(): "First."
@app.command()
def two(): "Second."
app()
"""


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def measure(repeats: int = REPEATS) -> tuple[float, float, list[str]]:
    """(median s of `litaudit --help`, median s of the minimal app, heavy modules imported)."""
    with tempfile.TemporaryDirectory() as d:
        app = Path(d) / "minimal.py"
        app.write_text(MINIMAL)
        ours = [sys.executable, "-m", "litaudit", "--help"]
        peer = [sys.executable, str(app), "--help"]
        timed(ours), timed(peer)  # warm the file cache
        a, b = [], []
        for _ in range(repeats):
            a.append(timed(ours))
            b.append(timed(peer))
    heavy = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, runpy; sys.argv=['litaudit','--help'];\n"
            "try:\n runpy.run_module('litaudit', run_name='__main__')\n"
            "except SystemExit: pass\n"
            "print('HEAVY:' + ','.join(m for m in ('duckdb','sqlmodel','numpy','scipy','pandas',"
            "'sqlalchemy') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
    ).stdout
    heavy = [x[6:] for x in heavy.splitlines() if x.startswith("HEAVY:")]
    found = heavy[-1].split(",") if heavy and heavy[-1] else []
    return statistics.median(a), statistics.median(b), found


def main() -> int:
    ma, mb, heavy = measure()
    print(f"litaudit --help      median {ma * 1000:7.1f} ms over {REPEATS} runs")
    print(f"minimal Typer --help median {mb * 1000:7.1f} ms")
    print(f"ratio {ma / mb:.2f} (target <= 1.30): {'OK' if ma / mb <= 1.3 else 'OVER'}")
    print(f"heavy modules imported by --help: {','.join(heavy) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
