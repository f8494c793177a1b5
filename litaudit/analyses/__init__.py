"""Analyses: read inputs from the store, call the pure statistics, store the audit."""
