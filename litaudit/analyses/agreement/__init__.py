"""Reusability by experimental design: agreement in significance, Kendall's tau and RMSE
between baseline and reuse evaluations of one hold-out design (Carterette, Kanoulas,
Pavlu and Fang, "Reusable Test Collections Through Experimental Design", SIGIR 2010,
Sections 3.2, 4.2, 4.3 and 5.1), the audit of kind 'reuse-agreement'.

``input``: the design (per-topic scores, sites, held-out sites) read from files or made
by the Section 4.3 pooling simulation; ``analysis``: the Section 3.2 analysis and the
test of its X^2 against other assignments of the design; ``run``: `reuse agreement` as a
library call; ``tables``: the test and power analysis on tables given by hand (`reuse
table`, `reuse power`). The reusability verdict's agreement over many random
assignments of a run archive is part of the verdict (:mod:`litaudit.analyses.reuse`).
"""
