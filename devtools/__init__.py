"""Development tools of the xlcons checkout: run from the repository root, never shipped.

Nothing under ``workflow_scripts/xlcons`` imports from here; the wheel holds ``xlcons`` only.

``offline_models``
    builds the offline stand-ins for the models the workflow downloads (``make offline-models``,
    the test suite's ``offline_models`` fixture): ``python -m devtools.offline_models``.
"""
