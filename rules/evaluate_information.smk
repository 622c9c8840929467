# Information consistency (paper 000): the evaluator LLM extracts atomic facts from the
# English answer and from each translated answer, and checks each fact against the other
# side; precision, recall and F per language. One job per model serves every language
# (the English facts are extracted once). The translationese check scores the round
# trips en -> l -> en against the English answers the same way.

if "information" in PLAN.generation_datasets():

    rule information_consistency:
        input:
            english=PLAN.response_file("information", "{model}", "en"),
            translations=non_english_translation_patterns("information"),
            weights=get_information_llm_weights,
        output:
            per_item=information_evaluation("{model}", "items"),
            facts=information_evaluation("{model}", "facts"),
            scores=information_evaluation("{model}", "scores"),
        log:
            "logs/evaluate/information/{model}/information.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/information/{{model}}/information.tsv"
        conda:
            get_information_llm_env
        threads: 2
        resources:
            gpu=get_information_llm_gpus,
            mem_mb=get_information_llm_mem_mb,
            runtime=1440,
        params:
            llm=get_information_llm_spec,
            options=get_information_options,
            cache=f"{RESULTS}/cache/information/{{model}}.jsonl",
        script:
            "../workflow_scripts/information_consistency.py"


if PLAN.round_trip_languages():

    rule translationese_check:
        input:
            round_trips=round_trip_patterns(),
            weights=get_information_llm_weights,
        output:
            per_item=information_evaluation("{model}", "items", "translationese"),
            facts=information_evaluation("{model}", "facts", "translationese"),
            scores=information_evaluation("{model}", "scores", "translationese"),
        log:
            "logs/evaluate/information/{model}/translationese.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/information/{{model}}/translationese.tsv"
        conda:
            get_information_llm_env
        threads: 2
        resources:
            gpu=get_information_llm_gpus,
            mem_mb=get_information_llm_mem_mb,
            runtime=720,
        params:
            llm=get_information_llm_spec,
            options=get_information_options,
            cache=f"{RESULTS}/cache/translationese/{{model}}.jsonl",
        script:
            "../workflow_scripts/information_consistency.py"
