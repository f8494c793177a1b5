"""Ingest and curation of papers and published results."""
