# Information consistency (Gupta et al. 2025): the evaluator LLM extracts atomic facts from the
# English answer and from each translated answer, and checks each fact against the other
# side; precision, recall and F per language. One job per (data set, model) serves every
# language (the English facts are extracted once). The translationese check scores the
# round trips en -> l -> en against the English answers the same way. With several
# translators (`translators`), one job per translator (`{via}`), each with its own cache.
# With `evaluators.information.shards: N`, N jobs per (data set, model, translator), one per
# shard of the items (`{shard}`: their files are PLAN.job_file's), and a merge (below).
# The decisions (options, round-trip languages) are xlcons.evaluators.information.plan's.

INFORMATION = PLAN.planner("information")
INFORMATION_LLM = PLAN.llm_job(INFORMATION.llm_key, RESOURCES, ENVS)
# The token caps and fact limit, and the share of requests that may fail.
INFORMATION_OPTIONS = INFORMATION.options(PLAN.max_failed_share())


if PLAN.evaluator_datasets("information"):

    rule information_consistency:
        input:
            english=get_english_response,
            responses=get_responses,
            translations=get_translations_into_english,
            weights=INFORMATION_LLM.weights,
        output:
            per_item=PLAN.job_file(
                translated_evaluation("information_items"), "information"
            ),
            facts=PLAN.job_file(
                translated_evaluation("information_facts"), "information"
            ),
            scores=PLAN.job_file(
                translated_evaluation("information_scores"), "information"
            ),
            usage=PLAN.job_file(
                PLAN.usage_file("information", "{dataset}", "{model}", "{via}"),
                "information",
            ),
        log:
            PLAN.job_file(
                "logs/evaluate/{via}{dataset}/{model}/information.log", "information"
            ),
        benchmark:
            PLAN.job_file(
                f"{RESULTS}/benchmarks/evaluate/{{via}}{{dataset}}/{{model}}/information.tsv",
                "information",
            )
        wildcard_constraints:
            dataset=scored_datasets("information"),
        conda:
            INFORMATION_LLM.env
        threads: 2
        resources:
            gpu=INFORMATION_LLM.gpus,
            mem_mb=INFORMATION_LLM.mem_mb,
            runtime=1440,
        params:
            llm=INFORMATION_LLM.spec,
            options=INFORMATION_OPTIONS,
            cache=translator_cache("information"),
            refusals=PLAN.refusals(),
        script:
            "../workflow_scripts/evaluate.py"


# The merge of the shard jobs of `evaluators.information.shards: N` (xlcons.plan.shards): their
# items and facts in the one job's order, scored per language: the one job's outputs.
if PLAN.evaluator_datasets("information") and PLAN.sharded("information"):

    rule information_consistency_merge:
        input:
            translations=get_translations_into_english,
            item_shards=PLAN.shard_files(
                translated_evaluation("information_items"), "information"
            ),
            fact_shards=PLAN.shard_files(
                translated_evaluation("information_facts"), "information"
            ),
        output:
            per_item=translated_evaluation("information_items"),
            facts=translated_evaluation("information_facts"),
            scores=translated_evaluation("information_scores"),
        log:
            "logs/evaluate/{via}{dataset}/{model}/information.merge.log",
        wildcard_constraints:
            dataset=scored_datasets("information"),
        localrule: True
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=2000,
            runtime=20,
        script:
            "../workflow_scripts/evaluate.py"


if PLAN.evaluator_datasets("translationese"):

    rule translationese_check:
        input:
            round_trips=get_round_trips,
            weights=INFORMATION_LLM.weights,
        output:
            per_item=evaluation("translationese_items"),
            facts=evaluation("translationese_facts"),
            scores=evaluation("translationese_scores"),
            usage=PLAN.usage_file("translationese", "{dataset}", "{model}"),
        log:
            "logs/evaluate/{dataset}/{model}/translationese.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/{{dataset}}/{{model}}/translationese.tsv"
        wildcard_constraints:
            dataset=scored_datasets("translationese"),
        conda:
            INFORMATION_LLM.env
        threads: 2
        resources:
            gpu=INFORMATION_LLM.gpus,
            mem_mb=INFORMATION_LLM.mem_mb,
            runtime=720,
        params:
            llm=INFORMATION_LLM.spec,
            options=INFORMATION_OPTIONS,
            cache=job_cache("translationese"),
        script:
            "../workflow_scripts/evaluate.py"
