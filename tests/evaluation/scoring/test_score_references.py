"""``manage.py score`` on stored sources gives what it gives on the files they came from."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.importing.datasets import import_doccano_annotations, import_mafalda_gold
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.runs.imports import import_run

pytestmark = pytest.mark.django_db
PROJECT = "Study: 20 texts"


def score_json(*args: str) -> dict:
    out = StringIO()
    call_command("score", *args, "--format", "json", "--bootstrap", "0", stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture
def study(mafalda_dir: Path) -> dict[str, Path]:
    files = {
        "gold": mafalda_dir / "datasets" / "user_study_examples_with_labels.jsonl",
        "run": mafalda_dir / "results" / "20_samples" / "gpt-3.5_level_2_results.jsonl",
        "user1": mafalda_dir / "datasets" / "users_results" / "user1.jsonl",
    }
    project = create_project(name=PROJECT, taxonomy=install_preset(name="mafalda"))
    import_mafalda_gold(path=files["gold"], project=project)
    import_run(project=project, path=files["run"], name="gpt-3.5")
    annotator = get_user_model().objects.create(username="user1")
    import_doccano_annotations(path=files["user1"], project=project, annotator=annotator)
    return files


@pytest.mark.parametrize("profile", ["paper", "mafalda-2024"])
def test_stored_gold_and_run_score_like_their_files(study, profile: str) -> None:
    from_files = score_json(str(study["gold"]), str(study["run"]), "--profile", profile)
    stored = score_json(f"gold:{PROJECT}@1", f"run:{PROJECT}/gpt-3.5", "--profile", profile)
    assert stored["texts"] == from_files["texts"] == 20
    for level in ("0", "1", "2"):
        for key in ("precision", "recall", "f1"):
            assert stored["levels"][level][key] == pytest.approx(
                from_files["levels"][level][key]
            ), (level, key)


def test_latest_version_and_annotator_reference(study) -> None:
    from_files = score_json(str(study["gold"]), str(study["user1"]))
    stored = score_json(f"gold:{PROJECT}", f"annotator:{PROJECT}/user1")
    assert stored["levels"]["2"]["f1"] == pytest.approx(from_files["levels"]["2"]["f1"])


@pytest.mark.parametrize(
    ("gold", "pred", "message"),
    [
        ("gold:No such project", "run:x/y", "no project named 'No such project'"),
        (f"gold:{PROJECT}@7", f"run:{PROJECT}/gpt-3.5", "no such published gold standard"),
        (f"gold:{PROJECT}@one", f"run:{PROJECT}/gpt-3.5", "version 'one' is not a number"),
        (f"gold:{PROJECT}", f"run:{PROJECT}/llama", "no run 'llama'"),
        (f"gold:{PROJECT}", f"annotator:{PROJECT}/nobody", "no user 'nobody'"),
    ],
)
def test_bad_references_name_what_is_missing(study, gold: str, pred: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        score_json(gold, pred)
