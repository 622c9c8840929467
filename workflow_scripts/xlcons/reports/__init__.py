"""Reports: the paper-style tables and figures computed from the evaluators' tables.

`multiq`: Holtermann et al. 2024's Tables 3-5, Figures 3-4 and per-language results. Submodules are
imported by name; this package imports nothing.
"""
