"""Process set-up for the litaudit command: how its memory is allocated.

Importing run archives and evaluating them makes large, short-lived numpy arrays. glibc's
malloc serves every block over its mmap threshold (128 KiB at first) with a fresh mapping
and hands it back to the kernel when it is freed, so each such array faults its pages in
anew; on a virtual machine that returns freed memory to its host (as this project's does:
touching 400 MB of fresh memory there takes from 85 ms to 700 ms), a page fault can cost
several microseconds. Raising the mmap threshold to glibc's documented maximum (32 MiB)
and the trim threshold lets the process reuse the memory it freed instead: importing and
evaluating the robust03 archive takes 33K page faults instead of 46K (the peak resident
set does not grow).

Only the litaudit command calls :func:`tune_allocator` (when it opens a database): a
library must not change its host process's allocator. It does nothing where the C
library is not glibc.

The command's entry point (``litaudit.cli.main.main``, before any command runs) also calls
:func:`command_environment`: OpenBLAS, which numpy and scipy load, starts a thread per
core when it is loaded, and litaudit makes no use of them (its linear algebra is a few
dot products on short vectors); with one thread, ``import numpy`` takes ~40 ms less per
command (robust03's two commands, measured on a shared two-core machine: numpy's import
median 0.25 -> 0.215 s in a fresh process). A value the user set is kept.
"""

from __future__ import annotations

import os
import sys

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # DEFAULT_MMAP_THRESHOLD_MAX on 64-bit glibc
TRIM_THRESHOLD = 1 << 30

_tuned: bool | None = None


def tune_allocator() -> bool:
    """Keep freed memory in the process for reuse (glibc only); True when applied."""
    global _tuned
    if _tuned is None:
        _tuned = _apply()
    return _tuned


def _apply() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    # start-up: `litaudit --help` imports this module
    import ctypes

    try:
        libc = ctypes.CDLL(None)  # the process's own C library
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    if not hasattr(libc, "gnu_get_libc_version"):  # glibc's parameters: glibc only
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )


def command_environment() -> None:
    """The litaudit command's process environment, set before numpy is loaded: one
    OpenBLAS thread (see the module's docstring), unless the user chose otherwise."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
