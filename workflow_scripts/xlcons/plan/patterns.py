"""Wildcard constraints: regular expressions that match exactly a given set of names."""

from __future__ import annotations

import re


def via_alternation(vias) -> str:
    """A wildcard constraint matching exactly these path prefixes, the empty one included (a
    bare empty pattern would read as no constraint at all)."""
    return "(?:" + "|".join(re.escape(via) for via in sorted(set(vias))) + ")"


def alternation(names) -> str:
    """A wildcard constraint matching exactly these names (and nothing when there are none)."""
    names = sorted(set(names))
    return "|".join(re.escape(name) for name in names) if names else "(?!x)x"
