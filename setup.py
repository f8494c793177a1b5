"""Build step: ship the top-level schema/ and seeds/ inside the wheel as litaudit/_data/.

The metadata is in pyproject.toml; this file only adds the copy to ``build_py``. The
folders stay where the team keeps them (the repository's top level); the code finds them
with importlib.resources in an installed package and falls back to the repository's
folders in an editable install (litaudit/resources.py). Globs, not file lists: a new
seed or migration file ships without touching this file.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
DATA = {
    "schema": ("*.sql", "current/*.sql"),
    "seeds": ("**/*.csv", "**/*.csv.gz", "**/*.json", "**/*.md", "**/*.tsv"),
}


class BuildPyWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # editable installs read the repository's folders
        for folder, patterns in DATA.items():
            for pattern in patterns:
                for src in sorted((ROOT / folder).glob(pattern)):
                    if not src.is_file():
                        continue
                    dst = Path(
                        self.build_lib, "litaudit", "_data", folder, src.relative_to(ROOT / folder)
                    )
                    self.mkpath(str(dst.parent))
                    self.copy_file(str(src), str(dst))


setup(cmdclass={"build_py": BuildPyWithData})
