"""Headless Chromium for the report's and the site's tests, its answers kept across runs.

A page the tests load (the seeded site, the reports) is built from the code and kept
across runs byte for byte (tests/conftest.py ``_built_folder_once``), so Chromium's
answer to it is the same from run to run. :func:`browse` keeps that answer (the DOM it
dumped, its stderr, the requests in its network log, the screenshot's bytes) in pytest's
cache under the digest of every input of the launch: the bytes of every file under the
page's folder (all the page can load, its scripts and the probes a test adds to it), the
page's place in that folder, the switches (flags, window size, budget), the Chromium
binary (its path, size and mtime) and this module's source. A run whose inputs are the
same reads the answer back; any change to a page, a probe script, a switch or the browser
launches Chromium again. The tests' assertions run on the answer on every run. Without
pytest's cache (``-p no:cacheprovider``) or with ``--rebuild-fixtures`` every call
launches Chromium, as on a fresh clone's first run.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

# files a test writes beside a page for itself (tests/site/test_site_browser.py's probes
# of the site's pages): another test's probe is not an input of this launch
_PROBE = ".selftest-"


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name) or (
            f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None
        )
        if path:
            return path
    pytest.skip("chromium not found (install it with `make browser`: Debian package chromium)")


def _run(*args: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="litaudit-chromium-") as profile:
        return subprocess.run(
            [_chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def page_requests(netlog: Path) -> list[str]:
    """URLs the page asked for: requests whose initiator is the page (the browser's own
    background traffic has initiator 'not an origin'), other than file: and data:."""
    log = json.loads(netlog.read_text(encoding="utf-8"))
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for e in log["events"]:
        p = e.get("params") or {}
        if e["type"] == start and p.get("url") and p.get("initiator") != "not an origin":
            if not p["url"].startswith(("file:", "data:")):
                urls.append(p["url"])
    return urls


@dataclass(frozen=True, kw_only=True)
class Browsed:
    """Chromium's answer: its exit code, stdout (the DOM with ``--dump-dom``), stderr,
    the requests the page made (with ``netlog``) and the screenshot's bytes (with
    ``shot``)."""

    returncode: int
    stdout: str
    stderr: str
    requests: list[str] | None
    png: bytes | None


@functools.cache
def _browser_key() -> str:
    """The Chromium binary (the launcher and, on Debian, the binary it runs: path, size,
    mtime) and this module's source: a new browser or helper launches again."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    launcher = Path(_chromium()).resolve()
    for path in (launcher, launcher.parent.parent / "lib" / "chromium" / "chromium"):
        if path.exists():
            st = path.stat()
            h.update(f"{path}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def _folder_digest(root: Path, page: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if _PROBE in path.name and path != page:
            continue
        h.update(f"{path.relative_to(root)}\0{path.stat().st_size}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def browse(
    config: pytest.Config | None,
    page: Path,
    *args: str,
    root: Path | None = None,
    netlog: bool = False,
    shot: bool = False,
) -> Browsed:
    """Chromium (headless, :data:`FLAGS`) run with ``args`` on ``page``, or its answer
    kept from an earlier run with the same inputs (the files under ``root``, by default
    the page's folder; ``args``; the browser; this module). ``netlog``: the requests the
    page made (:func:`page_requests`); ``shot``: a screenshot of the window. The page's
    folder is written as ``{ROOT}`` in what is kept and put back on reading."""
    from tests.conftest import _kept_builds

    root = (root or page.parent).resolve()
    page = page.resolve()
    _chromium()  # skips without the browser, kept answer or not
    kept = _kept_builds()
    if config is None or kept is None or getattr(config, "cache", None) is None:
        return _launch(page, args, netlog, shot)
    h = hashlib.sha256()
    for item in (_browser_key(), str(page.relative_to(root)), repr(args), repr((netlog, shot))):
        h.update(item.encode() + b"\0")
    h.update(_folder_digest(root, page).encode())
    path = kept / "browser" / f"{h.hexdigest()}.json"
    if path.exists():
        found = json.loads(path.read_text(encoding="utf-8"))
        back = {k: v.replace("{ROOT}", str(root)) for k, v in found["text"].items()}
        png = base64.b64decode(found["png"]) if found["png"] is not None else None
        return Browsed(**back, returncode=found["returncode"], requests=found["requests"], png=png)
    answer = _launch(page, args, netlog, shot)
    if answer.returncode == 0:  # a failed launch is not kept: the next run tries again
        text = {"stdout": answer.stdout, "stderr": answer.stderr}
        record = {
            "text": {k: v.replace(str(root), "{ROOT}") for k, v in text.items()},
            "returncode": answer.returncode,
            "requests": answer.requests,
            "png": base64.b64encode(answer.png).decode() if answer.png is not None else None,
        }
        path.parent.mkdir(exist_ok=True)
        part = path.with_name(f"part-{os.getpid()}-{path.name}")
        part.write_text(json.dumps(record), encoding="utf-8")
        part.replace(path)  # whole or not at all, whichever worker writes it last
    return answer


def _launch(page: Path, args: tuple[str, ...], netlog: bool, shot: bool) -> Browsed:
    with tempfile.TemporaryDirectory(prefix="litaudit-browse-") as out:
        net, png = Path(out) / "net.json", Path(out) / "shot.png"
        res = _run(
            *([f"--log-net-log={net}"] if netlog else []),
            *args,
            *([f"--screenshot={png}"] if shot else []),
            page.as_uri(),
        )
        ok = res.returncode == 0
        return Browsed(
            returncode=res.returncode,
            stdout=res.stdout,
            stderr=res.stderr,
            requests=page_requests(net) if netlog and ok else None,
            png=png.read_bytes() if shot and ok else None,
        )
