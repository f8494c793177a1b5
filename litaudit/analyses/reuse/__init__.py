"""Reusability of a test collection from the runs that built it: would a new system's
score be off by more than evaluation noise?

A stored run archive read as integer codes (``coded_archive``), or a range of topics at a
time (``archive_ranges``); run average overlap and leave-out-uniques (``overlap``,
``lou_ranges``: Voorhees, Lin, Efron, "On Run Diversity in Evaluation as a Service",
SIGIR 2014); sub-collection tau (``subcollection_tau``: Sanderson, Turpin, Zhang,
Scholer, "Differences in Effectiveness Across Sub-collections", CIKM 2012); and the
verdict (``verdict``, kind 'reuse-verdict'), which decides on the shift of held-out runs
in the pooling simulation of Carterette, Kanoulas, Pavlu and Fang ("Reusable Test
Collections Through Experimental Design", SIGIR 2010): the pool table of every hold-out
(``holdout_pools``), the decision (``decision``), the agreement in significance over
random assignments (``holdout_agreement``) and what is shown beside the decision
(``descriptive``), its progress units (``progress``) and words (``wording``), and the
decision's calibration where the truth is known (``calibration``).
"""
