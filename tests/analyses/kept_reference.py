"""A reference a real-data test compares the product with, made once and kept across
runs (:func:`kept_reference`)."""

from __future__ import annotations

from pathlib import Path


def kept_reference(tmp_path_factory, make, *args):
    """``make(*args)``, a reference a real-data test compares the product with, made
    once and kept across runs for as long as nothing it is made from changes, as the
    session's databases are (tests/conftest.py ``_built_once``: the package, schema,
    seeds, the robust03 archive, the libraries; here also ``make``'s source and the
    size and time of each file given in ``args``, in the kept file's name). The other
    ``args`` come from the session's fixtures (made from those)."""
    import hashlib
    import inspect
    import pickle

    from tests.conftest import _built_once, _run_folder

    made_from = hashlib.sha256(inspect.getsource(make).encode())
    run_folder = _run_folder(tmp_path_factory)
    for a in args:
        if isinstance(a, Path) and a.is_relative_to(run_folder):
            # this process's copy of a session build (robust03_db_file): its size is
            # the same each run but its time is new, so it is keyed by its name, as the
            # build is kept under the digest of all it is made from (the kept folder);
            # keyed by its time, the reference was made anew every run (1.0 s of CPU)
            made_from.update(f"session build {a.name}\n".encode())
        elif isinstance(a, Path):
            made_from.update(f"{a} {a.stat().st_size} {a.stat().st_mtime_ns}\n".encode())
    digest = made_from.hexdigest()[:12]
    name = f"{make.__name__.strip('_').replace('_', '-')}-{digest}.pickle"

    def build(part: Path) -> None:
        part.write_bytes(pickle.dumps(make(*args)))

    return pickle.loads(_built_once(tmp_path_factory, name, build).read_bytes())
