"""Evaluators: each scores the responses of one model and writes one stage table.

MultiQ (paper 004): `fidelity` (response language by fastText LID), `judge` (QA accuracy
by an LLM judge), `tokenization` (how each model's tokenizer splits each language).
Submodules are imported by name; this package imports nothing, so a rule pulls in only
what its evaluator needs.
"""
