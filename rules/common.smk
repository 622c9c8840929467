# Config validation and every input function of the workflow.

import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

sys.path.insert(0, str(Path(workflow.basedir) / "workflow_scripts"))

from xlcons.config import ConfigError, validate_config
from xlcons.plan import Plan

try:
    validate_config(config, base_dir=Path.cwd())
except ConfigError as error:
    raise WorkflowError(str(error)) from None

PLAN = Plan(config)
RESOURCES = "resources"
for warning in PLAN.unreachable_sources(RESOURCES):
    logger.warning(f"xlcons: {warning}")


wildcard_constraints:
    model=PLAN.hub_model_pattern(),
    dataset=PLAN.fetched_dataset_pattern(),


def get_model_source(wildcards):
    """The Hub coordinates of one model to fetch."""
    return PLAN.hub_models()[wildcards.model]


def get_dataset_fetch_params(wildcards):
    """Base URL and local copy (if any) of one data set to fetch."""
    return PLAN.dataset_fetch_params(wildcards.dataset)


def model_location(key):
    """A model's local path as given, or the marker its fetch job writes."""
    return PLAN.model_location(key, RESOURCES)


def dataset_location(dataset):
    """A data set's local folder as given, or the manifest its fetch job writes."""
    return PLAN.dataset_location(dataset, RESOURCES)


def get_fetch_targets():
    """The markers and manifests of every model and data set the enabled stages need."""
    return PLAN.fetch_targets(RESOURCES)


def get_final_targets():
    """Everything the enabled stages produce; each stage adds its outputs here."""
    return get_fetch_targets()
