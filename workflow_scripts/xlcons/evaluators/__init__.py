"""Evaluators: each scores the responses of one model and writes one stage table.

Each evaluator is declared beside its code: its registry entry (`info.EvaluatorInfo`) in an
entry module of its own (`<name>_entry.py`, or `entry.py` in its package; standard library
only), its per-item table and the adapter to ITEM_SCORES in its module, which the registry
entry names. `registry` only collects the entries.

MultiQ (Holtermann et al. 2024): `fidelity` (response language by fastText LID), `judge` (QA accuracy
by an LLM judge), `tokenization` (how each model's tokenizer splits each language).
Submodules are imported by name; this package imports nothing, so a rule pulls in only
what its evaluator needs.
"""
