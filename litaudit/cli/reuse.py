"""`litaudit reuse ...`: test-collection reusability analyses.

The commands live in two modules, each registering its own: ``reuse_overlap`` (Voorhees
et al. 2014 RAO and leave-out-uniques; Sanderson et al. 2012 sub-collections; the verdict)
and ``reuse_design`` (Carterette et al. 2010 design, hold-outs and agreement).
"""

from __future__ import annotations

import typer

from litaudit.cli import reuse_design, reuse_overlap

app = typer.Typer(
    help="Can this test collection be trusted for systems that did not build it?",
    no_args_is_help=True,
)
reuse_overlap.register(app)
reuse_design.register(app)
