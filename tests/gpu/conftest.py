"""The scripts here need a GPU (and vLLM); they are run by hand, never collected by pytest."""

collect_ignore_glob = ["*"]
