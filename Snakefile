# xlcons: cross-lingual consistency of language models, as one Snakemake workflow.
# Stages live in rules/*.smk; rules/common.smk validates the config before anything
# is scheduled and holds the shared input functions; each evaluator's rule file is
# included as xlcons.evaluators.registry lists it.

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
include: "rules/translate.smk"


# One rule file per evaluator, as the evaluator registry lists them.
for rule_file in PLAN.rule_files():

    include: f"rules/{rule_file}"


include: "rules/report.smk"
include: "rules/explorer.smk"


rule all:
    default_target: True
    input:
        get_final_targets(),
