"""Progress bars on stderr for the commands that can take more than a few seconds.

One helper for every command: :func:`progress_bar` is a context manager that yields a
:class:`Bar`, the one implementation of the library's :class:`~litaudit.progress.Progress`
protocol (``bar(steps, total=more, **counts)``, ``bar.status(text, unit=...)``), called
from any thread. The bar shows the steps done of the total (files, runs, splits, ...) and, when
asked, running counts of other things (lines, ...). It is drawn on the stderr console only
when stderr is a terminal and the command was not asked for ``--json`` (``quiet``); then
it costs nothing, and the callbacks stay harmless. It disappears when the work is done.

    with progress_bar("importing", total=len(files), unit="files",
                      counts=("lines",), quiet=json_) as bar:
        import_archive(..., progress=bar)

The work may find its size as it goes (``init``'s seed files, ``results import``'s
files, ``audit summary``'s groups): ``bar(steps, total=more_to_come, **counts)``; and it
may go through phases, each with its own label and unit (``reuse agreement``'s pooling
simulation, then its randomization test): ``bar.status(label, unit=...)``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from litaudit.render import console  # its consoles read when used (tests replace them)


class Bar:
    """A running progress bar (or a silent one): :meth:`advance` it as work is done."""

    def __init__(
        self, prog=None, task=None, counts: Sequence[str] = (), total: float | None = None
    ):
        self._prog = prog
        self._task = task
        self._counts = dict.fromkeys(counts, 0)
        self._total = total
        self._done = 0.0
        self._lock = threading.Lock()

    @property
    def shown(self) -> bool:
        return self._prog is not None

    def advance(self, steps: float = 1, **counts: int) -> None:
        """``steps`` more done, and more of the running ``counts`` (e.g. ``lines=1000``)."""
        if self._prog is None:
            return
        with self._lock:
            self._done += steps
            for k, v in counts.items():
                self._counts[k] = self._counts.get(k, 0) + v
            text = ", ".join(f"{v:,} {k}" for k, v in self._counts.items())
            self._prog.update(self._task, advance=steps, counts=text)

    def __call__(self, steps: float = 0, /, *, total: float = 0, **counts: int) -> None:
        """The bar as a library's ``progress`` callback: ``total`` more steps announced
        (:meth:`expect`), ``steps`` more done and more of the running ``counts``."""
        self.expect(total)
        if steps or counts:
            self.advance(steps, **counts)

    def expect(self, steps: float) -> None:
        """``steps`` more to do: the total grows as the work finds it (files read one
        after the other); a bar of unknown size (``total=None``) gets one, the steps done
        so far and these."""
        if self._prog is None or not steps:
            return
        with self._lock:
            self._total = (self._done if self._total is None else self._total) + steps
            self._prog.update(self._task, total=self._total)

    def status(self, text: str, *, unit: str = "") -> None:
        """A new phase of the work (:class:`~litaudit.progress.Progress`): the last frame
        of the phase before drawn, then the bar back to 0 steps of a total to be announced,
        under a new label and unit, with no counts."""
        if self._prog is None:
            return
        with self._lock:
            self._prog.refresh()
            self._done = 0.0
            self._total = None
            self._counts = {}
            self._prog.reset(self._task, total=None, description=text, unit=unit, counts="")

    def restart(self, description: str) -> None:
        """The next pass over the same steps: the bar back to 0 under a new label."""
        if self._prog is not None:
            with self._lock:
                self._done = 0.0
                self._prog.reset(self._task, total=self._total, description=description)

    def update(self, *, description: str | None = None, total: float | None = None) -> None:
        """A new label or total for the bar (a command's next phase)."""
        if self._prog is not None:
            kw = {
                k: v for k, v in (("description", description), ("total", total)) if v is not None
            }
            if total is not None:
                self._total = total
            self._prog.update(self._task, **kw)


def noting(bar: Bar) -> Callable[[str], None]:
    """A library's ``note(message)`` (an audit it runs, a step of its work): the message
    on stderr, and one step of ``bar``."""

    def note(message: str) -> None:
        console.err.print(message, markup=False)
        bar(1)

    return note


def shows(quiet: bool = False) -> bool:
    """Would a bar be drawn? (stderr a terminal, and not ``quiet``)."""
    if quiet:
        return False
    return console.err.is_terminal


@contextmanager
def progress_bar(
    description: str,
    total: float | None = None,
    *,
    unit: str = "",
    counts: Sequence[str] = (),
    quiet: bool = False,
) -> Iterator[Bar]:
    """A progress bar on stderr for the block (see the module's docstring); ``total=None``
    for work of unknown size (the bar pulses, the counts still move)."""
    if not shows(quiet):
        yield Bar()
        return

    # only where a bar is drawn: 7 ms of each command's start-up that `runs import` and
    # `runs eval` piped or in a script do not pay
    # start-up: rich.progress
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    columns += [TextColumn("{task.fields[unit]}"), TextColumn("{task.fields[counts]}")]
    columns += [TimeElapsedColumn(), TimeRemainingColumn()]
    prog = Progress(*columns, console=console.err, transient=True, refresh_per_second=8)
    task = prog.add_task(description, total=total, counts="", unit=unit)
    bar = Bar(prog, task, counts, total)
    with prog:
        yield bar


_PASSES = {"measured": "measuring", "fitted": "fitting"}  # rich's passes (see _Tally)


def print_rows(
    title: str | None,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    description: str,
    quiet: bool = False,
) -> None:
    """``out.print(table(title, columns, rows))`` with a progress bar on stderr (quiet as
    :func:`progress_bar` is) through rich's three passes over
    the rows: measuring, fitting (only when the table is wider than the terminal) and
    drawing. Rich lays out ~1,000 rows a second, so a listing of the whole database
    takes tens of seconds. The table is drawn under the bar and written after it,
    unchanged."""
    with progress_bar(f"{description}: measuring", len(rows), unit="rows", quiet=quiet) as bar:
        if not bar.shown:
            console.out.print(console.table(title, columns, rows))
            return
        phase = ["measuring"]

        def tick(steps: float = 0, /, **counts: int) -> None:
            now = "drawing" if steps else _PASSES[next(iter(counts))]
            if now != phase[0]:
                phase[0] = now
                bar.restart(f"{description}: {now}")
            bar.advance(steps or 1)

        with console.out.capture() as cap:
            console.out.print(console.table(title, columns, rows, progress=tick))
    console.out.file.write(cap.get())
    console.out.file.flush()
