"""Evaluators that turn responses into scores.

- :mod:`xlcons.metrics.knowledge` — paper 001's knowledge consistency on MAKQA: xSC
  (sentence-embedding agreement), xAC (chrF accuracy, Spearman across languages), xTC
  (timeliness), and their harmonic mean xC.

Modules here import numpy/scipy/sacrebleu at import time; the package itself imports
nothing, so the Snakefile can import :mod:`xlcons` without them.
"""
