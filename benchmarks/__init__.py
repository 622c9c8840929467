"""xlcons benchmarks: each module measures one figure of BENCHMARKS.md; `python -m benchmarks` runs them all.

Run from the repository root: another installed package (pysbd) ships a top-level
`benchmarks` package too, and only the working directory coming first on sys.path makes
this one win.
"""
