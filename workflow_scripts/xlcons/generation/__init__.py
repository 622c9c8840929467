"""The generation stage: prompts in, one response per (item, language) out.

`base` defines what every backend shares (model spec, requests, results, the registry),
`cache` the per-job response cache, `stage` the loop that ties them together, and
`backends/` one module per backend, imported only when a config asks for it.
"""
