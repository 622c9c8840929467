"""Reports: the paper-style tables and figures computed from the evaluators' tables.

`multiq`: paper 004's Tables 3-5, Figures 3-4 and per-language results. Submodules are
imported by name; this package imports nothing.
"""
