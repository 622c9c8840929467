# Empathy consistency (paper 000): one classifier per EPITOME mechanism (ER, IP, EX) is
# trained once on the committed seeker-post split (TF-IDF on a CPU in seconds, or a
# fine-tuned encoder on a GPU); each model's English and translated answers get an
# empathy profile, and a language's consistency is the share of items whose profiles match.

if "empathy" in PLAN.generation_datasets():

    rule train_empathy_classifier:
        input:
            data=get_epitome_files,
            encoder=get_empathy_encoder_weights,
        output:
            model=directory(empathy_classifier_dir("{mechanism}")),
            evaluation=f"{RESULTS}/evaluations/empathy/classifiers/{{mechanism}}.json",
        log:
            "logs/evaluate/empathy/train_{mechanism}.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/empathy/train_{{mechanism}}.tsv"
        wildcard_constraints:
            mechanism="ER|IP|EX",
        conda:
            "../envs/evaluate.yaml"
        threads: 2
        resources:
            gpu=get_empathy_training_gpus,
            mem_mb=get_empathy_training_mem_mb,
            runtime=get_empathy_training_runtime,
        params:
            kind=config["evaluators"]["empathy"]["classifier"],
            data=get_epitome_folder,
            options=get_empathy_training_options,
        script:
            "../workflow_scripts/train_empathy_classifier.py"

    rule empathy_consistency:
        input:
            classifiers=[empathy_classifier_dir(m) for m in ("ER", "IP", "EX")],
            prompts=PLAN.prompt_file("empathy", "en"),
            english=PLAN.response_file("empathy", "{model}", "en"),
            translations=non_english_translation_patterns("empathy"),
        output:
            per_item=empathy_evaluation("{model}", "items"),
            scores=empathy_evaluation("{model}", "scores"),
        log:
            "logs/evaluate/empathy/{model}/empathy.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/empathy/{{model}}/empathy.tsv"
        conda:
            "../envs/evaluate.yaml"
        threads: 2
        resources:
            gpu=get_empathy_training_gpus,
            mem_mb=8000,
            runtime=120,
        script:
            "../workflow_scripts/empathy_consistency.py"
