"""Knowledge consistency (Xing et al. 2024) on MAKQA and any set of parallel items: xSC, xAC, xTC, xC.

Modules: `metrics` (the scores of a model), `measures` (chrF, Spearman, Tscore, cosine and the
harmonic mean they are made of), `grids` (a model's answers per question and language),
`tables` (their tables and the adapter of the overall scores to the results table), `stage`
(the job: one model's answers in, the tables out), `entry` (the registry entry). Submodules
are imported by name; this package imports nothing, so the registry (`entry`) and the reports
(`tables`) do not load the metrics' packages.
"""
