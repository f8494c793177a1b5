"""The command-line interface: thin Typer sub-apps that parse, call one function, render.

Modules here import only typer and light litaudit modules at top level; heavy libraries
(duckdb, sqlmodel, numpy, scipy, pandas) are imported inside the commands that use them,
so that `litaudit --help` stays fast.
"""
