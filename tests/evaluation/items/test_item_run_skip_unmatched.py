"""Published outputs holding records for ids that are no item (SmartyPat's benign output
files: 504 records, ids 1..504, for its 502 benign sentences): the all-or-nothing import
refuses them and names the switch; with ``skip_unmatched`` (``import_run
--skip-unmatched``, the run-imports API's ``skip_unmatched``) they are skipped, counted and
listed (the first few, with file and line), and the run scores as the same outputs without
them. A repeated id stays an error even then, and so does a file of which no id matches.

Fixtures in SmartyPat's published shapes, with texts of our own (``tests.support.smartypat``):
a headerless bench file of six items, a benign file of two sentences (items ``good-1``,
``good-2``), and one model's outputs as JSON arrays ``{id, sentence, logic_error,
logic_fallacies, details}``; the benign array carries ids beyond the file's sentences.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotations.models import Project
from annotations.services.projects import create_project
from evaluation.items.imports import SKIPPED_SHOWN
from evaluation.models import ModelRun, RunOutput, RunScore
from tests.support.factories import make_taxonomy
from tests.support.smartypat import BENIGN, RECORDS, item_texts, write_files

pytestmark = pytest.mark.django_db

EXTRA = [  # benign records past the file's sentences, as the published files have
    {"logic_error": "no", "logic_fallacies": []},
    {"logic_error": "yes", "logic_fallacies": ["false premise"]},
]


def array(records: list[dict], sentences: list[str]) -> str:
    """A JSON array with one element a line (element i, from 0, starts on line i + 2)."""
    elements = [
        json.dumps(
            {"id": i + 1, "sentence": sentence, **record, "details": "Explained."},
            ensure_ascii=False,
        )
        for i, (record, sentence) in enumerate(zip(records, sentences, strict=True))
    ]
    return "[\n" + ",\n".join(elements) + "\n]\n"


def outputs(folder: Path, extra: int = len(EXTRA)) -> tuple[Path, Path]:
    bench, benign = folder / "model_bench.json", folder / "model_benign.json"
    bench.write_text(array(RECORDS[:6], item_texts()[:6]), encoding="utf-8")
    records = [*RECORDS[6:], *(EXTRA * 4)[:extra]]
    sentences = [*BENIGN, *(f"A sentence of no item, number {n}." for n in range(extra))]
    benign.write_text(array(records, sentences), encoding="utf-8")
    return bench, benign


@pytest.fixture
def project(tmp_path: Path) -> Project:
    for path in write_files(tmp_path):
        call_command(
            "import_dataset", str(path), format="smartypat", project="SPB", stdout=io.StringIO()
        )
    return Project.objects.get(name="SPB")


def import_run(paths: tuple[Path, Path], name: str, **options: object) -> str:
    out = io.StringIO()
    options = {"id_prefix": ["", "good-"], **options}
    call_command(
        "import_run",
        *(str(path) for path in paths),
        project="SPB",
        name=name,
        field="types",
        output_column="*",
        stdout=out,
        **options,
    )
    return out.getvalue()


def reports(run: ModelRun) -> dict[str, dict]:
    return {
        score.profile: {k: v for k, v in score.report.items() if k != "run"}
        for score in RunScore.objects.filter(run=run)
    }


def test_unmatched_ids_are_refused_naming_the_switch(project: Project, tmp_path: Path) -> None:
    with pytest.raises(CommandError) as refused:
        import_run(outputs(tmp_path), "strict")
    message = str(refused.value)
    assert message == (
        "model_benign.json:4: id: no item of project 'SPB' has the id 'good-3' (to skip such "
        "records and have them counted and listed: import_run --skip-unmatched, the API's "
        'skip_unmatched, or "Skip unmatched ids" on the Import tab)'
    )
    assert ModelRun.objects.count() == 0 and RunOutput.objects.count() == 0


def test_the_switch_skips_them_reports_them_and_scores_as_without_them(
    project: Project, tmp_path: Path
) -> None:
    printed = import_run(outputs(tmp_path), "skipping", skip_unmatched=True)
    assert "8 outputs, 0 items missing" in printed
    assert printed.rstrip().endswith(
        "Skipped 2 record(s) whose id matches no item: 'good-3' (model_benign.json line 4), "
        "'good-4' (model_benign.json line 5)"
    )
    run = ModelRun.objects.get(name="skipping")
    assert run.config["skipped"] == {
        "count": 2,
        "first": [
            {"file": "model_benign.json", "line": 4, "id": "good-3"},
            {"file": "model_benign.json", "line": 5, "id": "good-4"},
        ],
    }
    assert run.config["files"] == [
        {"file": "model_bench.json", "id_prefix": "", "outputs": 6, "skipped": 0},
        {"file": "model_benign.json", "id_prefix": "good-", "outputs": 2, "skipped": 2},
    ]
    assert RunOutput.objects.filter(run=run).count() == 8

    exact = tmp_path / "exact"
    exact.mkdir()
    import_run(outputs(exact, extra=0), "exact")
    assert reports(run) == reports(ModelRun.objects.get(name="exact"))
    assert "skipped" not in ModelRun.objects.get(name="exact").config

    none = tmp_path / "none"
    none.mkdir()
    printed = import_run(outputs(none, extra=0), "asked, none", skip_unmatched=True)
    assert "Skipped no record: every id matches an item." in printed
    assert ModelRun.objects.get(name="asked, none").config["skipped"] == {"count": 0, "first": []}


def test_only_the_first_few_are_listed(project: Project, tmp_path: Path) -> None:
    printed = import_run(outputs(tmp_path, extra=7), "many", skip_unmatched=True)
    run = ModelRun.objects.get(name="many")
    assert run.config["skipped"]["count"] == 7
    assert [r["id"] for r in run.config["skipped"]["first"]] == [
        f"good-{n}" for n in range(3, 3 + SKIPPED_SHOWN)
    ]
    assert "Skipped 7 record(s)" in printed and printed.rstrip().endswith(", ...")


def test_repeated_ids_and_files_matching_nothing_stay_errors(
    project: Project, tmp_path: Path
) -> None:
    bench, benign = outputs(tmp_path)
    records = json.loads(benign.read_text(encoding="utf-8"))
    records.append({**records[0], "logic_error": "yes"})  # id 1 again, another answer
    benign.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(CommandError, match="same id 'good-1' as line 1"):
        import_run((bench, benign), "twice", skip_unmatched=True)
    with pytest.raises(CommandError) as wrong:
        import_run(outputs(tmp_path), "wrong prefix", skip_unmatched=True, id_prefix=["", "ok-"])
    assert str(wrong.value) == (
        "model_benign.json:1: none of the file's 4 ids matches an item of project 'SPB' "
        "(first: 'ok-1', 'ok-2', 'ok-3', 'ok-4'); is the id prefix right?"
    )
    assert ModelRun.objects.count() == 0 and RunOutput.objects.count() == 0


def named(path: Path) -> io.BytesIO:
    file = io.BytesIO(path.read_bytes())
    file.name = path.name
    return file


def test_the_import_tab_api_takes_the_switch(project: Project, tmp_path: Path) -> None:
    admin = User.objects.create_superuser("root", password="pw-for-tests-123")
    client = APIClient()
    client.force_authenticate(admin)
    url = f"/api/evaluation/projects/{project.pk}/run-imports/"
    bench, benign = outputs(tmp_path)
    body = {"name": "api", "field": "fallacious", "output_column": "*", "id_prefix": ["", "good-"]}
    answer = client.post(url, {**body, "file": [named(bench), named(benign)]}, format="multipart")
    assert answer.status_code == 400
    [message] = answer.json()["file"]
    assert message.startswith("model_benign.json:4: id: no item of project 'SPB' has the id")
    assert "skip_unmatched" in message
    answer = client.post(
        url,
        {**body, "file": [named(bench), named(benign)], "skip_unmatched": "true"},
        format="multipart",
    )
    assert answer.status_code == 201, answer.json()
    config = answer.json()["run"]["config"]
    assert config["skipped"]["count"] == 2
    assert [r["id"] for r in config["skipped"]["first"]] == ["good-3", "good-4"]
    assert config["outputs"] == 8

    spans = create_project(name="Spans", taxonomy=make_taxonomy(), created_by=admin)
    answer = client.post(
        f"/api/evaluation/projects/{spans.pk}/run-imports/",
        {"name": "s", "file": named(bench), "skip_unmatched": "true"},
        format="multipart",
    )
    assert answer.status_code == 400 and "skip_unmatched" in answer.json(), answer.json()
