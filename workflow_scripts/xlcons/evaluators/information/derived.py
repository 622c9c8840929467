"""Information consistency's derived metric, which the results stage computes from the cell
means (kept apart from the tables so that the evaluation job does not import numpy)."""

from __future__ import annotations

from xlcons.derived_metrics import DerivedMetric, harmonic_mean

# Gupta et al. 2025's information-consistency score F(l) = 2·C^P·C^R / (C^P + C^R), in every cell
# with precision and recall rows (whatever the adapter calls the evaluator).
INFORMATION_F = DerivedMetric("F", ("precision", "recall"), harmonic_mean)
