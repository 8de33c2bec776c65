"""Harness logs in the published shapes (lm-evaluation-harness ``--log_samples`` lines written
here from an exported task's units): a chain-of-thought run is read as the platform reads it
and scored by the library as by the platform; a log whose samples do not match the gold
version's units, a file of another format, or a missing gold version fail naming the file
and the sample, and write nothing. ``export_harness`` refuses what it cannot export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from evaluation.models import ModelRun, RunOutput
from evaluation.scoring.harness import HarnessTask, UnitOutput
from tests.support.harness import (
    S1,
    S3,
    S4,
    TEXT_A,
    exported_units,
    lm_eval_samples,
    platform_f1,
    three_text_gold,
)
from tests.support.runs import write_jsonl

pytestmark = pytest.mark.django_db


def export(tmp_path: Path, *options: str) -> tuple[Path, list[dict[str, Any]]]:
    folder = tmp_path / "task"
    call_command("export_harness", "--gold-version", "1", "--to", "lm-eval", str(folder), *options)
    return folder, exported_units(folder)


def import_log(path: Path, *options: str) -> None:
    call_command("import_run", str(path), "--project", "Harness", "--name", "log", *options)


def test_a_chain_of_thought_log_is_read_and_scored_as_the_platform_does(tmp_path: Path) -> None:
    three_text_gold(tmp_path)
    folder, units = export(tmp_path, "--variant", "chain-of-thought")
    outputs = {
        S1: "He attacks the man, not the tax plan. Answer: ad hominem",
        S3: "<think>one step leads to ruin</think> Answer: slippery slope",
        S4: "Many people buy it, which proves nothing; it is not a straw man. Answer: ad populum",
    }
    path = write_jsonl(
        tmp_path / "samples_cot_2026-01-01T00-00-00.000001.jsonl", lm_eval_samples(units, outputs)
    )
    import_log(path, "--gold-version", "1")
    run = ModelRun.objects.get(name="log")
    assert run.config["parser"] == "keyword" and run.config["harness"]["version"] == ""
    answers = dict(run.outputs.values_list("unit_text", "answer"))
    assert answers[S1] == "ad hominem" and answers[S3] == "slippery slope"
    library = HarnessTask.load(folder).report(
        UnitOutput(unit["document"], unit["unit"], outputs.get(unit["sentence"], "No fallacy."))
        for unit in units
    )
    platform = platform_f1(run)
    assert {str(level): lr.f1 for level, lr in library.levels.items()} == pytest.approx(platform)
    assert platform["2"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"text": TEXT_A + " Extra."}, "sample 0: no document of gold version 1 has this text"),
        ({"unit": 1}, "sample 0: sentence 1 of document"),
        ({"unit": 7}, "sample 0: document"),
        ({"parser": "telepathy"}, "sample 0: unknown parser 'telepathy'"),
    ],
)
def test_samples_not_matching_the_units_name_file_and_sample_and_write_nothing(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    three_text_gold(tmp_path)
    _, units = export(tmp_path)
    lines = lm_eval_samples(units, {})
    lines[0]["doc"] = {**lines[0]["doc"], **change}
    path = write_jsonl(tmp_path / "samples_t_2026-01-01T00-00-00.000001.jsonl", lines)
    with pytest.raises(CommandError, match=rf"samples_t_.*\.jsonl:1: {message}"):
        import_log(path, "--gold-version", "1")
    assert not ModelRun.objects.exists() and not RunOutput.objects.exists()


def test_a_unit_met_twice_and_other_formats_are_refused(tmp_path: Path) -> None:
    three_text_gold(tmp_path)
    _, units = export(tmp_path)
    lines = lm_eval_samples(units, {})
    path = write_jsonl(tmp_path / "samples_t_2026-01-01T00-00-00.000001.jsonl", lines + lines[:1])
    with pytest.raises(CommandError, match=r":6: sample 0: the same sentence as sample 0"):
        import_log(path, "--gold-version", "1")
    with pytest.raises(CommandError, match="name it \\(--gold-version N\\)"):
        import_log(path)

    raw = write_jsonl(tmp_path / "raw.jsonl", [{"text": TEXT_A, "prediction": {S1: "x"}}])
    with pytest.raises(CommandError, match=r"raw.jsonl:1: sample \?: not an lm-evaluation"):
        import_log(raw, "--gold-version", "1", "--format", "lm-eval")
    with pytest.raises(CommandError, match=r"raw.jsonl:1: not an Inspect log"):
        import_log(raw, "--gold-version", "1", "--format", "inspect")
    not_a_log = tmp_path / "run.eval"
    not_a_log.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(CommandError, match=r"run.eval:1: not an Inspect log"):
        import_log(not_a_log, "--gold-version", "1")
    assert not ModelRun.objects.exists()


def test_export_harness_refuses_what_it_cannot_export(tmp_path: Path) -> None:
    three_text_gold(tmp_path)
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("x")
    cases = [
        (["--gold-version", "1", "--to", "lm-eval", str(full)], "is not an empty folder"),
        (["--gold-version", "2", "--to", "inspect", str(tmp_path / "a")], "no gold version 2"),
        (["--gold-version", "1", "--to", "helm", str(tmp_path / "b")], "lm-eval, inspect"),
        (
            ["--gold-version", "1", "--to", "inspect", str(tmp_path / "c"), "--variant", "nope"],
            "has no variant 'nope'",
        ),
        (
            ["--gold-version", "1", "--to", "inspect", str(tmp_path / "d"), "--task", "a-b"],
            "is not a name",
        ),
    ]
    for arguments, message in cases:
        with pytest.raises(CommandError, match=message):
            call_command("export_harness", *arguments)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["full"]


def test_a_taxonomy_of_its_own_is_scored_by_the_library_as_by_the_platform(
    tmp_path: Path,
) -> None:
    from tests.support.runs import custom_taxonomy_project

    project, gold, run, _ = custom_taxonomy_project(tmp_path)
    folder = tmp_path / "own"
    call_command(
        "export_harness", "--project", project.name, "--gold-version", "1",
        "--to", "inspect", str(folder),
    )  # fmt: skip
    task = HarnessTask.load(folder)
    assert not task.mafalda and task.mapping.labels_at(1) == {"greek", "latin"}
    outputs = [
        UnitOutput(document_id, unit, output)
        for document_id, unit, output in run.outputs.values_list(
            "document_id", "unit_index", "raw_output"
        )
    ]
    library = task.report(outputs)
    platform = platform_f1(run)
    assert {str(level): lr.f1 for level, lr in library.levels.items()} == pytest.approx(platform)
