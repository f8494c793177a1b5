"""`litaudit site`: a static site of the store's audited leaderboards (issue 36).

:mod:`.build` makes the pages from stored audits (:mod:`litaudit.analyses.site_audits`
runs them first), :mod:`.write` writes the changed ones; :mod:`.ranks` is the one place
the rank intervals and the group tied with the top are read from.
"""
