"""The evaluation jobs of a run and their files: which (data set, model, translator) each
evaluator scores, and every file the results stage reads."""

from __future__ import annotations

from xlcons.evaluators.registry import EVALUATORS, MEASURABILITY_INPUT, QE_INPUT, RESPONSES_INPUT, TRANSLATIONS
from xlcons.plan.layout import Layout
from xlcons.plan.models import ModelSources
from xlcons.plan.quality import QualityPlan
from xlcons.plan.scoring import EvaluatorPlan
from xlcons.plan.translation import TranslationPlan
from xlcons.translation.quality_backends import QE_PATHS_INPUT


class EvaluationPlan:
    def __init__(
        self,
        models: ModelSources,
        layout: Layout,
        evaluators: EvaluatorPlan,
        translation: TranslationPlan,
        quality: QualityPlan,
    ):
        self.models, self.layout, self.evaluators = models, layout, evaluators
        self.translation, self.quality = translation, quality

    def evaluated_models(self, evaluator: str) -> list[str]:
        return (
            self.models.tokenizer_models() if EVALUATORS[evaluator].tokenizer_models_only else self.models.generators()
        )

    def evaluator_vias(self, evaluator: str, dataset: str) -> list[str]:
        """The translators an evaluator scores a data set's answers through: each one for an
        evaluator that reads translations, else none (the primary's plain paths)."""
        return self.translation.translator_vias(dataset) if EVALUATORS[evaluator].reads == TRANSLATIONS else [""]

    def evaluation_jobs(self, evaluator: str) -> list[tuple[str, str, str]]:
        """(data set, model, via) of every job of an evaluator."""
        return [
            (d, m, via)
            for d in self.evaluators.evaluator_datasets(evaluator)
            for m in self.evaluated_models(evaluator)
            for via in self.evaluator_vias(evaluator, d)
        ]

    def evaluation_files(self, evaluator: str, output: str | None = None) -> list[str]:
        """One output (by default the target) of an evaluator, for every data set it scores and every model."""
        output = output or EVALUATORS[evaluator].target
        return [self.layout.evaluation_file(d, m, output, via) for d, m, via in self.evaluation_jobs(evaluator)]

    def measurability_jobs(self) -> list[tuple[str, str]]:
        """(evaluator, data set) of every faithful-text check (rule <evaluator>_faithful): each data
        set an evaluator with a check (EvaluatorInfo.faithful_metric) scores with a model."""
        return [
            (info.name, dataset)
            for info in self.evaluators.evaluators()
            if info.faithful_metric and self.evaluated_models(info.name)
            for dataset in self.evaluators.evaluator_datasets(info.name)
        ]

    def measurability_file(self, evaluator: str, dataset: str) -> str:
        return self.layout.measurability_file(evaluator, dataset)

    def measurability_files(self) -> list[str]:
        return [self.layout.measurability_file(e, d) for e, d in self.measurability_jobs()]

    def faithful_prompts(self, dataset: str) -> bool:
        """Whether a data set's prompts are text in their own language (what the check scores)."""
        return self.layout.data.info(dataset).faithful_prompts

    def reference_scored(self, dataset: str) -> bool:
        """Whether a data set is the Language Confusion Benchmark's own (its languages are
        measurable by the benchmark's definition under the `lcb` rule)."""
        return self.layout.data.info(dataset).source == "lcb"

    def evaluator_reports(self) -> list[tuple[str, str]]:
        """(evaluator, data set) of every evaluator report (rule evaluator_report): each data set an
        evaluator of the run scores with at least one model, of the evaluators that declare a
        figure (EvaluatorInfo.figure_metrics), in the registry's and the config's order."""
        return [
            (info.name, dataset)
            for info in self.evaluators.evaluators()
            if info.figure_metrics
            for dataset in dict.fromkeys(dataset for dataset, _, _ in self.evaluation_jobs(info.name))
        ]

    def pair_figure_files(self, evaluator: str, dataset: str) -> list[str]:
        """The per-pair files an evaluator report draws (EvaluatorInfo.pair_figure), every model's
        of the data set; none for an evaluator whose figure is over languages."""
        figure = EVALUATORS[evaluator].pair_figure
        if figure is None:
            return []
        return [
            self.layout.evaluation_file(d, m, figure.output, via)
            for d, m, via in self.evaluation_jobs(evaluator)
            if d == dataset
        ]

    def evaluation_targets(self) -> list[str]:
        return [path for info in self.evaluators.evaluators() for path in self.evaluation_files(info.name)]

    def file_translators(self) -> dict[str, str]:
        """The translator behind each per-item file of an evaluator that reads translations (or
        round trips), and behind each QE table (the results' `translator` column): a lookup, in
        file order, so that reordering the models or data sets leaves the results job's params."""
        translator_of, layout = self.translation.translator_of, self.layout
        files: dict[str, str] = {}
        for info in self.evaluators.evaluators():
            if info.reads == TRANSLATIONS or info.through_primary_translator:
                for dataset, model, via in self.evaluation_jobs(info.name):
                    files |= {
                        layout.evaluation_file(dataset, model, source.output, via): translator_of(via)
                        for source in info.results
                    }
        for dataset, model, via in self.quality.qe_jobs():
            files |= dict.fromkeys(layout.qe_files(dataset, model, via), translator_of(via))
            files |= dict.fromkeys(layout.translation_files(dataset, model, via=via), translator_of(via))
        return dict(sorted(files.items()))

    def results_inputs(self) -> dict[str, list[str]]:
        """Every file the results stage reads, by registered output (see xlcons.reports.aggregate)."""
        inputs: dict[str, list[str]] = {}
        scored: dict[tuple[str, str], None] = {}
        for info in self.evaluators.evaluators():
            for source in info.results:
                files = self.evaluation_files(info.name, source.output)
                if files:
                    inputs[source.output] = files
                    if not source.corpus:
                        scored |= dict.fromkeys(
                            (d, m)
                            for d in self.evaluators.evaluator_datasets(info.name)
                            for m in self.evaluated_models(info.name)
                        )
        if scored:  # their failed requests: the scores resting on them are not the model's
            inputs[RESPONSES_INPUT] = [self.layout.response_table(dataset, model) for dataset, model in scored]
        if measurability := self.measurability_files():
            inputs[MEASURABILITY_INPUT] = measurability
        qe = self.quality.all_qe_files()
        if qe:  # the quality of each item's translation: QE means and the scores on passing items
            inputs[QE_INPUT] = qe
            # and the translation path of each answer: an untranslatable one has no QE, and fails it
            inputs[QE_PATHS_INPUT] = [
                path
                for dataset, model, via in self.quality.qe_jobs()
                for path in self.layout.translation_files(dataset, model, via=via)
            ]
        return inputs
