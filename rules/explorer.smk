# The item explorer (docs/explorer.md): a static site over the run's results, opened from the
# file system. It reads the results table and the item scores, every evaluator's per-item
# tables (as the evaluator registry lists them), and the prompts, answers, translations and
# quality estimates beneath them; it writes results/explorer/. A local rule after the results
# stage; `output.explorer: false` leaves it out. In `snakemake --report` only with
# `output.explorer_report` (a folder: only a report.zip holds it).

if PLAN.explorer_enabled():
    REPORT_TARGETS.append(PLAN.explorer_dir())

    localrules:
        explorer,

    rule explorer:
        input:
            unpack(get_explorer_inputs),
        output:
            explorer=(
                report(
                    directory(PLAN.explorer_dir()),
                    htmlindex="index.html",
                    caption="captions/explorer.rst",
                    category="Item explorer",
                )
                if PLAN.explorer_in_report()
                else directory(PLAN.explorer_dir())
            ),
        log:
            "logs/report/explorer.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=8000,
            runtime=60,
        params:
            models=PLAN.generators(),
        script:
            "../workflow_scripts/explorer.py"
