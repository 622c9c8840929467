# Tokenizer analysis (Holtermann et al. 2024, Table 5): how each generator's tokenizer cuts each
# language's prompts; generators whose backend has a local tokenizer only.

if PLAN.evaluator_datasets("tokenization"):

    rule tokenization:
        input:
            prompts=get_prompts,
            weights=PLAN.llm_job("models.{model}", RESOURCES, ENVS).weights,
        output:
            tokenization=evaluation("tokenization"),
        log:
            "logs/evaluate/{dataset}/{model}/tokenization.log",
        wildcard_constraints:
            dataset=scored_datasets("tokenization"),
            model=alternation(PLAN.tokenizer_models()),
        conda:
            "../envs/evaluate.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            tokenizer=PLAN.llm_job("models.{model}", RESOURCES, ENVS).location,
        script:
            "../workflow_scripts/evaluate.py"
