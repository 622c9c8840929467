"""The README's example output is regenerated from a run (devtools/readme_examples.py): a marked
block shows the header and the selected rows of the run's file, a changed number makes the
check fail naming the README line, --write brings the block back, and a marker that selects
nothing is an error, not an empty example."""

from __future__ import annotations

from pathlib import Path

import pytest

from devtools.readme_examples import ExampleError, find_examples, main, stale_examples, write_examples

REPO = Path(__file__).resolve().parent.parent

RESULTS = (
    "dataset,evaluator,model,lang,metric,value,note\n"
    "info,information,m1,de,F,0.25,\n"
    'info,information,m2,de,F,,"F undefined: no item, at all"\n'
    "info,empathy,m1,de,ER,0.5,\n"
)


def readme_with(block: str, marker: str = "results.csv | evaluator=information metric=F") -> str:
    return f"# Title\n\nSome prose.\n\n<!-- readme-example: {marker} -->\n```\n{block}```\n\nMore prose.\n"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "results.csv").write_text(RESULTS, encoding="utf-8")
    return folder


def test_a_block_that_shows_what_the_run_wrote_passes_and_one_changed_number_fails_naming_the_line(run, tmp_path):
    readme = tmp_path / "README.md"
    current = RESULTS.splitlines()
    readme.write_text(readme_with("\n".join(current[:3]) + "\n"))
    assert stale_examples(readme, run) == []

    readme.write_text(readme_with("\n".join([current[0], current[1].replace("0.25", "0.3"), current[2]]) + "\n"))
    [problem] = stale_examples(readme, run)
    assert problem.startswith("README.md:8: the example of results.csv is stale")
    assert "0.3" in problem and "0.25" in problem


def test_numbers_are_compared_to_a_tolerance_below_what_a_reader_sees(run, tmp_path):
    readme = tmp_path / "README.md"
    current = RESULTS.splitlines()
    readme.write_text(readme_with("\n".join([current[0], current[1].replace("0.25", "0.2501"), current[2]]) + "\n"))
    assert stale_examples(readme, run) == []
    readme.write_text(readme_with("\n".join([current[0], current[1].replace("0.25", "0.251"), current[2]]) + "\n"))
    assert len(stale_examples(readme, run)) == 1


def test_write_rewrites_the_block_in_selector_order_with_quoted_fields_kept(run, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(readme_with("old\n", marker="results.csv | metric=ER | evaluator=information model=m2"))
    assert write_examples(readme, run) == 1
    text = readme.read_text()
    assert (
        "```\ndataset,evaluator,model,lang,metric,value,note\n"
        "info,empathy,m1,de,ER,0.5,\n"
        'info,information,m2,de,F,,"F undefined: no item, at all"\n```' in text
    )
    assert text.startswith("# Title\n\nSome prose.") and text.endswith("More prose.\n")
    assert stale_examples(readme, run) == [] and write_examples(readme, run) == 0


def test_a_selector_no_row_matches_a_missing_file_or_column_and_a_bad_marker_are_errors(run, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(readme_with("x\n", marker="results.csv | model=m9"))
    with pytest.raises(ExampleError, match=r"README.md:5: no row of results.csv .* matches 'model=m9'"):
        stale_examples(readme, run)
    readme.write_text(readme_with("x\n", marker="results.csv | colour=red"))
    with pytest.raises(ExampleError, match="has no column colour"):
        stale_examples(readme, run)
    readme.write_text(readme_with("x\n", marker="other.csv | model=m1"))
    with pytest.raises(ExampleError, match="has no other.csv"):
        stale_examples(readme, run)
    with pytest.raises(ExampleError, match="not column=value"):
        find_examples(["<!-- readme-example: results.csv | model -->", "```", "```"])
    with pytest.raises(ExampleError, match="not followed by a fenced block"):
        find_examples(["<!-- readme-example: results.csv | model=m1 -->", "text"])


def test_the_command_exits_1_on_a_stale_block_and_2_on_a_broken_marker(run, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(readme_with("stale\n"))
    assert main(["--run", str(run), "--readme", str(readme), "--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert main(["--run", str(run), "--readme", str(readme), "--write"]) == 0
    assert main(["--run", str(run), "--readme", str(readme), "--check"]) == 0
    readme.write_text(readme_with("x\n", marker="results.csv | model=m9"))
    assert main(["--run", str(run), "--readme", str(readme), "--check"]) == 2


def test_the_readme_marks_its_example_output_blocks():
    """The README's example rows of results.csv and of the QE sensitivity table are kept by the
    script (checked against a real run in tests/test_workflow_translate_then_evaluate.py)."""
    examples = find_examples((REPO / "README.md").read_text(encoding="utf-8").splitlines())
    files = {example.file for example in examples}
    assert {"results/tables/results.csv", "results/tables/translation_quality/sensitivity.csv"} <= files
