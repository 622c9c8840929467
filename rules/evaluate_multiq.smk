# MultiQ (paper 004): language fidelity by language ID, accuracy by an LLM judge, the
# tokenizer analysis, and the paper's tables and figures. One job per model for each
# evaluator (the LID model and the judge load once and serve every language).

if "multiq" in PLAN.generation_datasets():

    localrules:
        multiq_report,

    rule multiq_language_id:
        input:
            responses=response_patterns("multiq"),
            lid=get_language_id_model,
        output:
            fidelity=multiq_evaluation("{model}", "fidelity"),
        log:
            "logs/evaluate/multiq/{model}/language_id.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/multiq/{{model}}/language_id.tsv"
        conda:
            "../envs/evaluate.yaml"
        resources:
            mem_mb=8000,
            runtime=60,
        params:
            model_path=get_language_id_path,
            label_scheme=config["evaluators"]["language_id"]["label_scheme"],
            unsupported=config["evaluators"]["language_id"]["unsupported_languages"],
            robust=config["evaluators"]["language_id"]["robust"],
        script:
            "../workflow_scripts/multiq_language_id.py"

    rule multiq_judge:
        input:
            responses=response_patterns("multiq"),
            english=PLAN.prompt_file("multiq", "en"),
            weights=get_judge_weights,
        output:
            judgments=multiq_evaluation("{model}", "judgments"),
        log:
            "logs/evaluate/multiq/{model}/judge.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/multiq/{{model}}/judge.tsv"
        conda:
            get_judge_env
        threads: 2
        resources:
            gpu=get_judge_gpus,
            mem_mb=get_generator_mem_mb,
            runtime=720,
        params:
            judge=get_judge_spec,
            cache=f"{RESULTS}/cache/judge/multiq/{{model}}.jsonl",
        script:
            "../workflow_scripts/multiq_judge.py"

    rule multiq_tokenization:
        input:
            prompts=prompt_files("multiq"),
            weights=get_generator_weights,
        output:
            tokenization=multiq_evaluation("{model}", "tokenization"),
        log:
            "logs/evaluate/multiq/{model}/tokenization.log",
        wildcard_constraints:
            model=alternation(PLAN.tokenizer_models()),
        conda:
            "../envs/evaluate.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            tokenizer=get_tokenizer_path,
        script:
            "../workflow_scripts/multiq_tokenization.py"

    rule multiq_report:
        input:
            fidelity=[multiq_evaluation(m, "fidelity") for m in PLAN.generators()],
            judgments=[multiq_evaluation(m, "judgments") for m in PLAN.generators()],
            tokenization=[
                multiq_evaluation(m, "tokenization") for m in PLAN.tokenizer_models()
            ],
        output:
            report=reported(multiq_report_outputs(), "MultiQ"),
        log:
            "logs/report/multiq.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            table_formats=config["output"]["table_formats"],
            figure_formats=config["output"]["figure_formats"],
        script:
            "../workflow_scripts/multiq_report.py"
