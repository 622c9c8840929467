"""Empathy consistency (Gupta et al. 2025): EPITOME's three mechanisms as classifiers, and profiles.

`xlcons.datasets.epitome` (a data set module, below the evaluators) reads the EPITOME Reddit
release, joins its three mechanism files and holds the seeker-post-level train/dev/test
split; `base`, `tfidf` and `encoder` are the classifiers
(one per mechanism, each on a (seeker post, response) pair); `training` fits and evaluates
one; `profiles` is the evaluator: the empathy profile [ER, IP, EX] of each English response
against that of each translated response. Submodules are imported by name; this package
imports nothing (scikit-learn, torch and transformers are loaded only by what needs them).
"""
