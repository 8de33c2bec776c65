"""One rule for a SmartyPat output record whose ``logic_error`` and ``logic_fallacies``
disagree (``evaluation.scoring.label_answers``, rule 1): the ``logic_error`` flag says
whether the answer is fallacious, for every reader (the ranked field's parser, the
detection parser, both scoring profiles), and the definition report counts such
answers as ``contradictory``.

``{"logic_error": "no", "logic_fallacies": ["false cause"]}`` is "no fallacy" everywhere;
``{"logic_error": "yes", "logic_fallacies": "none"}`` is fallacious with no readable label
(the ranked field: unparseable, never "no fallacy")."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from annotations.models import Project
from evaluation.benchmarks import get_task
from evaluation.benchmarks.items import TaskItem
from evaluation.items.runs import profile_of_column
from evaluation.models import ModelRun, RunOutput, RunScore
from evaluation.scoring.item_profiles import PROFILES, read_answer
from evaluation.scoring.label_answers import (
    LabelReader,
    contradicts,
    read_detection,
    read_labels,
)
from tests.support.smartypat import write_files

LABELS = ["false cause", "false premise", "equivocation"]
SAYS_NO = json.dumps({"logic_error": "no", "logic_fallacies": ["False Cause", "Equivocation"]})
SAYS_YES = json.dumps({"logic_error": "yes", "logic_fallacies": "none"})
AGREE = [
    json.dumps({"logic_error": "no", "logic_fallacies": []}),
    json.dumps({"logic_error": "no", "logic_fallacies": "none"}),
    json.dumps({"logic_error": "yes", "logic_fallacies": ["false cause"]}),
    json.dumps({"logic_error": "yes", "logic_fallacies": []}),  # says nothing, not "none"
    "False cause, but it is not fallacious",  # no JSON object: no flag to contradict
]


def ranked(answer: str) -> list[str] | None:
    return get_task("ranked").parse(answer, item=TaskItem(id=1, text="t"), labels=LABELS)


def detection(answer: str) -> bool | None:
    return get_task("detection").parse(answer, item=TaskItem(id=1, text="t"), labels=[])


def test_logic_error_no_with_labels_is_no_fallacy_for_every_reader() -> None:
    assert detection(SAYS_NO) is False and read_detection(SAYS_NO) is False
    assert ranked(SAYS_NO) == []  # "no fallacy", the labels not taken
    reading = read_labels(SAYS_NO, LABELS)
    assert reading.contradictory and reading.no_fallacy and reading.labels == []
    for name in ("definition", "authors-smartypat"):
        profile_reading = read_answer(SAYS_NO, PROFILES[name], LabelReader(LABELS))
        assert profile_reading.no and profile_reading.pieces == [], name
    assert contradicts(SAYS_NO)


def test_logic_error_yes_saying_none_is_fallacious_without_a_label() -> None:
    assert detection(SAYS_YES) is True
    assert ranked(SAYS_YES) is None  # not "no fallacy": unparseable
    reading = read_labels(SAYS_YES, LABELS)
    assert reading.contradictory and not reading.no_fallacy
    for name in ("definition", "authors-smartypat"):
        assert not read_answer(SAYS_YES, PROFILES[name], LabelReader(LABELS)).no, name
    assert contradicts(SAYS_YES)


@pytest.mark.parametrize("answer", AGREE)
def test_answers_that_agree_are_not_contradictory(answer: str) -> None:
    assert not contradicts(answer)
    assert not read_labels(answer, LABELS).contradictory


@pytest.mark.django_db
def test_an_imported_run_reads_the_record_one_way_and_counts_it(tmp_path: Path) -> None:
    bench, _ = write_files(tmp_path)
    call_command(
        "import_dataset", str(bench), format="smartypat", project="SPB", stdout=io.StringIO()
    )
    project = Project.objects.get(name="SPB")
    records = [
        {"id": 1, "logic_error": "no", "logic_fallacies": ["False Analogy", "Equivocation"]},
        {"id": 2, "logic_error": "yes", "logic_fallacies": ["False Premise"]},
        {"id": 3, "logic_error": "yes", "logic_fallacies": "none"},
    ]
    path = tmp_path / "model_bench.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    parsed = {}
    for field in ("types", "fallacious"):
        call_command(
            "import_run",
            str(path),
            project="SPB",
            name=field,
            field=field,
            output_column="*",
            stdout=io.StringIO(),
        )
        run = ModelRun.objects.get(project=project, name=field)
        parsed[field] = dict(
            RunOutput.objects.filter(run=run).values_list("document__external_id", "parsed_labels")
        )
        reports = {
            profile_of_column(row.profile): row.report for row in RunScore.objects.filter(run=run)
        }
        assert reports["definition"]["contradictory"]["items"] == 2
        assert reports["definition"]["contradictory"]["examples"][0].startswith(
            '{"id": 1, "logic_error": "no"'
        )
    assert parsed["types"] == {"1": [], "2": ["false premise"], "3": None}
    assert parsed["fallacious"] == {"1": False, "2": True, "3": True}
