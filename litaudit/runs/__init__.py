"""TREC run archives: reading run and qrels files, storing them, evaluating as trec_eval."""
