"""The translation stage: responses in their language in, English responses out.

`splitting` cuts a response into the sentences NLLB translates (one language-specific
splitter per language, as paper 000 did) and the layout that is kept verbatim, so the
English can be put back together with the original's paragraphs, lists, headings,
emphasis and code blocks.
"""
