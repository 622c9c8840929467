"""The translation stage: responses in their language in, English responses out.

`xlcons.segmentation` (a package of its own, below every stage) cuts a response into the
sentences NLLB translates (one language-specific splitter per language, as Gupta et al. 2025 did)
and the layout that is kept verbatim, so the English can be put back together with the
original's paragraphs, lists, headings, emphasis and code blocks. `translators` is the
interface every translator backend implements (`transformers_translator`: NLLB, dense or MoE,
and MADLAD through transformers; `ctranslate2_translator`, with `ctranslate2_conversion`;
`llm_translator`); `degeneration` tells a looping or runaway translation from a normal one;
`cache` is a job's resumable sentence cache; `sentence_translator` puts them together for a
job (the cache, repair of degenerate sentences); `response_translation` decides which
language each response is translated from and writes the output tables;
`prompt_translation` translates English prompts (en → l) and `round_trip` runs the round
trip (en → l → en).
"""
