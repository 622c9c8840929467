"""The translation stage: responses in their language in, English responses out.

`xlcons.segmentation` (a package of its own, below every stage) cuts a response into the
sentences NLLB translates (one language-specific splitter per language, as Gupta et al. 2025 did)
and the layout that is kept verbatim, so the English can be put back together with the
original's paragraphs, lists, headings, emphasis and code blocks. `translators` runs NLLB
(transformers, dense or MoE, and CTranslate2) behind one interface; `degeneration` tells a
looping or runaway translation from a normal one; `cache` is a job's resumable sentence
cache; `stage` puts them together: which language each response is translated from, repair
of degenerate sentences, the output tables, prompt translation (en → l) and the round trip
(en → l → en).
"""
