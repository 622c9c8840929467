# xlcons: cross-lingual consistency of language models, as one Snakemake workflow.
# Stages live in rules/*.smk; rules/common.smk validates the config before anything
# is scheduled and holds every input function.

from snakemake.utils import min_version

min_version("9.0")


# A --configfile replaces the default config instead of being merged into it, so a
# paper config never inherits the default run's models.
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"


include: "rules/common.smk"
include: "rules/fetch.smk"
include: "rules/prompts.smk"
include: "rules/generate.smk"
include: "rules/evaluate_multiq.smk"
include: "rules/evaluate_knowledge.smk"
include: "rules/translate.smk"
include: "rules/evaluate_information.smk"
include: "rules/evaluate_empathy.smk"
include: "rules/report.smk"


rule all:
    default_target: True
    input:
        get_final_targets(),
