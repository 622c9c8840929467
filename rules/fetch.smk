# Downloads for a login node with internet. Compute jobs then run with the Hub offline
# and find everything under resources/. Local paths and pre-seeded copies are used as is.


localrules:
    fetch,
    fetch_model,
    fetch_dataset,


rule fetch:
    """Everything this config downloads; run it on the login node before submitting."""
    input:
        get_fetch_targets(),


rule fetch_model:
    output:
        marker=f"{RESOURCES}/models/{{name}}/.xlcons-fetched.json",
    log:
        "logs/fetch/model-{name}.log",
    wildcard_constraints:
        name=PLAN.hub_model_pattern(),
    conda:
        "../envs/fetch.yaml"
    resources:
        mem_mb=2000,
        runtime=240,
    params:
        source=get_model_source,
    script:
        "../workflow_scripts/fetch_model.py"


rule fetch_dataset:
    output:
        manifest=f"{RESOURCES}/data/{{source}}/MANIFEST.json",
    log:
        "logs/fetch/data-{source}.log",
    wildcard_constraints:
        source=PLAN.fetched_dataset_pattern(),
    conda:
        "../envs/fetch.yaml"
    resources:
        mem_mb=1000,
        runtime=60,
    params:
        fetch=get_dataset_fetch_params,
    script:
        "../workflow_scripts/fetch_dataset.py"
