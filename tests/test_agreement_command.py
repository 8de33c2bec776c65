"""``manage.py agreement``: the user-study table from files and from stored annotations."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.services.imports import import_doccano_annotations, import_mafalda_gold
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.scoring import pairwise_agreement, read_annotator, read_gold

USERS = ("user1", "user2", "user4", "user5")


def run(*args: str) -> str:
    out = StringIO()
    call_command("agreement", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def study(mafalda_dir: Path) -> dict[str, Path]:
    data = mafalda_dir / "datasets"
    files = {name: data / "users_results" / f"{name}.jsonl" for name in USERS}
    return {"gold": data / "user_study_examples_with_labels.jsonl", **files}


def test_table_from_files_matches_the_package(study) -> None:
    sources = [f"{name}={study[name]}" for name in USERS]
    payload = json.loads(run("--gold", str(study["gold"]), *sources, "--format", "json"))
    corpora = {"gold": read_gold(study["gold"])}
    corpora.update({name: read_annotator(study[name]) for name in USERS})
    expected = pairwise_agreement(corpora, bootstrap_resamples=0).table(2, "f1")
    for reference, row in expected.items():
        assert payload["2"]["f1"][reference] == pytest.approx(row)
    assert set(payload["2"]["f1"]["user1"]) == {"gold", "user2", "user4", "user5"}

    table = run("--gold", str(study["gold"]), *sources, "--level", "2")
    header, *rows = table.splitlines()[3:]
    assert header.split() == list(USERS)
    gold_row = rows[0].split()
    assert gold_row[0] == "gold"
    assert [float(v) for v in gold_row[1:]] == pytest.approx(
        [round(expected["gold"][name], 3) for name in USERS], abs=1e-9
    )


@pytest.mark.django_db
def test_stored_annotators_give_the_same_table(study) -> None:
    project = create_project(name="study", taxonomy=install_preset(name="mafalda"))
    import_mafalda_gold(path=study["gold"], project=project)
    for name in USERS:
        user = get_user_model().objects.create(username=name)
        import_doccano_annotations(path=study[name], project=project, annotator=user)
    from_files = json.loads(
        run("--gold", str(study["gold"]), *[f"{n}={study[n]}" for n in USERS], "--format", "json")
    )
    stored = json.loads(
        run(
            "--gold", "gold:study", *[f"{n}=annotator:study/{n}" for n in USERS], "--format", "json"
        )
    )
    for level in ("0", "1", "2"):
        for reference, row in from_files[level]["f1"].items():
            assert stored[level]["f1"][reference] == pytest.approx(row)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["user1"], "expected NAME=SOURCE"),
        (["a=x.jsonl"], "at least two sources"),
        (["a=/no/such/file.jsonl", "b=/no/such/file.jsonl"], "No such file"),
    ],
)
def test_bad_arguments_are_clear_errors(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_json_adds_alpha_labels_and_kappa_over_the_gold_sentences(study) -> None:
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import masi_distance

    from evaluation.scoring import mafalda_mapping

    sources = [f"{name}={study[name]}" for name in USERS]
    payload = json.loads(run("--gold", str(study["gold"]), *sources, "--format", "json"))
    assert payload["units_from"] == "gold file"
    assert (
        set(payload["alpha"]) == set(payload["labels"]) == set(payload["kappa"]) == {"0", "1", "2"}
    )
    assert payload["2"]["f1"]  # today's matrix is still there
    # independently: the gold file's sentences, each annotator's labels overlapping them
    gold = {t.text: t for t in read_gold(study["gold"]).texts}
    annotators = {name: {t.text: t for t in read_annotator(study[name]).texts} for name in USERS}
    mapping = mafalda_mapping()
    data = []
    for number, (text, item) in enumerate(gold.items()):
        cursor = 0
        for index, (sentence, _) in enumerate(item.sentence_labels):
            start = text.find(sentence, cursor)
            end = cursor = start + len(sentence)
            for name in USERS:
                labels = {
                    mapping.map_label(label, 2)
                    for span in annotators[name][text].spans
                    if span.start < end and start < span.end
                    for label in span.labels
                    if label != "no fallacy"
                }
                data.append((name, f"{number}:{index}", frozenset(labels or {"no fallacy"})))
    expected = AnnotationTask(data=data, distance=masi_distance).alpha()
    assert payload["alpha"]["2"]["masi"] == pytest.approx(expected, abs=1e-9)
    assert payload["alpha"]["2"]["units"] == len({unit for _, unit, _ in data})
    assert len(payload["kappa"]["2"]["cohen"]) == 6
    assert payload["kappa"]["2"]["fleiss"]["value"] is not None
