"""Information consistency (Gupta et al. 2025, FActScore-style; docs/methods.md §1).

An LLM lists the atomic facts of the English response r_en(x) and of the English
translation r̂_l(x) of the response in language l, sentence by sentence; the same LLM
then judges every fact of one side against the other side's text. Precision is the
share of r̂_l's facts that r_en supports, recall the share of r_en's facts that r̂_l
supports; a language's score is the harmonic mean of mean precision and mean recall.

Modules, one job each:

- `prompts`: the extraction and verification prompts (the project's own wording and
  demonstrations).
- `parsing`: reading the fact lists and verdicts the LLM writes.
- `scores`: per-item precision/recall/F1, the rule for responses without facts, and the
  per-language aggregation.
- `pairs`: the comparisons (English response against translation or round trip) from the
  job's tables.
- `answerer`: the LLM calls, through the generation machinery and its resumable cache, one
  backend per job.
- `fact_checking`: the scoring pass (extraction, verification, the per-item and per-fact rows).
- `stage`: the jobs and rules (translations or round trips in, per-item, per-fact and
  per-language tables out).
"""
