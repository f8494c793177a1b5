"""The one progress protocol of the library's long functions (issue 37 item 1).

A long function (importing runs or results, deleting runs, evaluating an archive, the
agreement analysis, building a report or a site, ...) takes ``progress: Progress | None``
and tells it, from inside the work:

* ``progress(total=n)``: n more steps to do (announced as the work finds them);
* ``progress(k, **counts)``: k more steps done, and more of running counts
  (``progress(1, lines=1000)``);
* ``progress.status(text, unit=...)``: a new phase of the work (its label and the unit of
  its steps), whose steps start from 0 and whose total is announced as above.

It is implemented once, by the Rich bar of :mod:`litaudit.render.progress` (silent under
``--json`` and when stderr is not a terminal); tests record the calls. Layer-neutral: the
stdlib only.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Progress(Protocol):
    """How far a long piece of work is (see the module's docstring)."""

    def __call__(self, steps: float = 0, /, *, total: float = 0, **counts: int) -> None:
        """``steps`` more done, ``total`` more announced, more of the running ``counts``."""
        ...

    def status(self, text: str, *, unit: str = "") -> None:
        """A new phase: its label and its steps' unit; its steps counted from 0."""
        ...
