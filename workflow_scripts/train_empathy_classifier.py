"""Rule train_empathy_classifier: one EPITOME mechanism's classifier, trained and evaluated on test.

Input: the EPITOME folder (and the encoder's weights when fine-tuning); params: the kind
(tfidf or encoder), the data folder and the training options; outputs: the classifier's
folder and its test evaluation (JSON, next to the paper's figures).
"""

import shutil
import sys
from pathlib import Path


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.evaluators.empathy.training import train_classifier

    params, output = smk.params, smk.output
    train_classifier(params.kind, smk.wildcards.mechanism, params.data, None, output.model, params.options)
    shutil.copyfile(Path(output.model) / "evaluation.json", output.evaluation)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
