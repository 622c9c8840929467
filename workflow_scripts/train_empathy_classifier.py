"""Rule train_empathy_classifier: one EPITOME mechanism's classifier, trained and evaluated on test.

Input: the EPITOME folder (and the encoder's weights when fine-tuning); params: the kind
(tfidf or encoder), the data folder and the training options; outputs: the classifier's
folder and its test evaluation (JSON, next to the paper's figures).
"""

import shutil
import sys
from pathlib import Path

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.evaluators.empathy.training import train_classifier  # noqa: E402

params, output = snakemake.params, snakemake.output  # noqa: F821
train_classifier(params.kind, snakemake.wildcards.mechanism, params.data, None, output.model, params.options)  # noqa: F821
shutil.copyfile(Path(output.model) / "evaluation.json", output.evaluation)
