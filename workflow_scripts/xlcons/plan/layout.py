"""Where every file of a run goes under the results folder: one path builder per kind of file.

`via` is a translator's path prefix ("" for the primary, by-translator/<name>/ for another):
the files that rest on a translation lie under it.
"""

from __future__ import annotations

from xlcons.plan.data import DataPlan


class Layout:
    def __init__(self, results: str, data: DataPlan):
        self.results, self.data = results, data

    # -- prompts ---------------------------------------------------------------------------
    def prompt_file(self, dataset: str, lang: str) -> str:
        return f"{self.results}/prompts/{dataset}/{lang}.parquet"

    def prompt_files(self, dataset: str) -> list[str]:
        return [self.prompt_file(dataset, lang) for lang in self.data.languages(dataset)]

    def prompt_table(self, dataset: str) -> str:
        """Every language's prompts in one table, what the (data set, model) jobs read: one
        input each instead of one per language (the DAG stays small as models are added)."""
        return f"{self.results}/prompts/{dataset}.parquet"

    def prompt_review_file(self, dataset: str, lang: str) -> str:
        return f"{self.results}/prompts/{dataset}/review/{lang}.tsv"

    def english_question_files(self, dataset: str) -> list[str]:
        """What the judge reads for the English question: the English prompts, or, for a set
        without English rows, every language's prompts (their `question_en` column)."""
        if "en" in self.data.languages(dataset) or not self.data.info(dataset).user:
            return [self.prompt_file(dataset, "en")]
        return [self.prompt_table(dataset)]

    # -- answers ---------------------------------------------------------------------------
    def response_file(self, dataset: str, model: str, lang: str) -> str:
        return f"{self.results}/responses/{dataset}/{model}/{lang}.parquet"

    def response_files(self, dataset: str, model: str, *, english: bool = True) -> list[str]:
        return [
            self.response_file(dataset, model, lang) for lang in self.data.languages(dataset) if english or lang != "en"
        ]

    def response_table(self, dataset: str, model: str) -> str:
        """Every language's answers of one model in one table, written by the generation job
        beside the per-language files: what the evaluators read (one input each)."""
        return f"{self.results}/responses/{dataset}/{model}.parquet"

    # -- translations, their quality estimates and round trips -----------------------------
    def translation_file(self, dataset: str, model: str, lang: str, kind: str = "translations", via: str = "") -> str:
        suffix = "" if kind == "translations" else f".{kind}"
        return f"{self.results}/{via}translations/{dataset}/{model}/{lang}{suffix}.parquet"

    def translation_files(
        self, dataset: str, model: str, kind: str = "translations", *, english: bool = True, via: str = ""
    ) -> list[str]:
        return [
            self.translation_file(dataset, model, lang, kind, via)
            for lang in self.data.languages(dataset)
            if english or lang != "en"
        ]

    def qe_files(self, dataset: str, model: str, via: str = "") -> list[str]:
        return self.translation_files(dataset, model, "qe", via=via)

    def round_trip_file(self, dataset: str, model: str, lang: str) -> str:
        return f"{self.results}/round_trips/{dataset}/{model}/{lang}.parquet"

    # -- evaluations and caches ------------------------------------------------------------
    def evaluation_file(self, dataset: str, model: str, output: str, via: str = "") -> str:
        return f"{self.results}/{via}evaluations/{dataset}/{model}/{output}.parquet"

    def measurability_file(self, evaluator: str, dataset: str) -> str:
        """The faithful-text check of one (evaluator, data set): its verdict per language."""
        return f"{self.results}/measurability/{dataset}/{evaluator}.parquet"

    def evaluator_report_dir(self, evaluator: str, dataset: str) -> str:
        """The folder of one evaluator's figure and table of one data set (rule evaluator_report)."""
        return f"{self.results}/tables/evaluators/{evaluator}/{dataset}"

    def cache_file(self, stage: str, dataset: str, model: str | None = None, via: str = "") -> str:
        """A job's own item cache: not an output, so it survives reruns (and a killed job resumes)."""
        cache = f"{self.results}/{via}cache/{stage}/{dataset}"
        return f"{cache}/{model}.jsonl" if model else f"{cache}.jsonl"

    def usage_file(self, stage: str, dataset: str, model: str | None = None, via: str = "") -> str:
        """The usage ledger of a job that calls a model (xlcons.usage), beside its outputs: one
        per job, an output of it, gathered into tables/usage.csv."""
        usage = f"{self.results}/{via}usage/{stage}/{dataset}"
        return f"{usage}/{model}.json" if model else f"{usage}.json"
