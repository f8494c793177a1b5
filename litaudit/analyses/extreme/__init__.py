"""Extreme-value audits of published results (Carterette, "The Best Published Result is
Random: Sequential Testing and its Effect on Reported Effectiveness", SIGIR 2015): is the
best of N published values, or a new claim, more than the max of N equally good systems?

The population of published results an audit reads (``population``) and the standard
error it uses (``noise``); the audits of a collection and measure (``best``: best, claim,
history), of every one at once (``summary``) and of a per-topic score matrix
(``matrix``); a claim's evidence (``claim_evidence``: its run against the archive,
``claim_run``, and its baseline against the published ones, ``baselines``, after
Armstrong et al., CIKM 2009); their sentences (``wording``).
"""
