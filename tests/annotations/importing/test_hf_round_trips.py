"""Every project kind through a Hugging Face round trip with the real ``datasets`` library:
export ``--format hf``, ``datasets.load_dataset`` on the folder (offline), import the folder
into a new project, and compare every field the platform stores for the documents (text,
id, name, source, metadata, sentences, order) and their gold; what the folder does not
carry is listed in the card and in the export's report. FLUB and MAFALDA come from
../shared/datasets (skipped without it); the SmartyPat, rating and ArgBench projects use
fixtures written in their shapes."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotations.form_presets import form_preset
from annotations.importing.items import import_items
from annotations.models import (
    Annotation,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    Sentence,
    Span,
)
from annotations.services.item_exports import export_flub, export_smartypat
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from tests.conftest import SHARED_DATASETS

pytestmark = pytest.mark.django_db
FLUB_FILE = SHARED_DATASETS / "flub" / "FLUB.jsonl"
TEST_FILE = "data/test-00000-of-00001.parquet"


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))


@pytest.fixture
def flub_path() -> Path:
    if not FLUB_FILE.exists():
        pytest.skip(f"shared FLUB data not found at {FLUB_FILE} (../shared/datasets)")
    return FLUB_FILE


def _load(folder: Path, tmp_path: Path) -> Any:
    import datasets

    return datasets.load_dataset(str(folder), cache_dir=str(tmp_path / "hf-cache"))


def _card(folder: Path) -> tuple[dict[str, Any], str]:
    _, front, body = (folder / "README.md").read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(front), body


def _export(project: str, folder: Path, **options: Any) -> str:
    out = io.StringIO()
    call_command(
        "export_dataset", project=project, format="hf", out=str(folder), stdout=out, **options
    )
    return out.getvalue()


def _import(folder: Path, project: str) -> None:
    call_command("import_dataset", str(folder), format="hf", project=project, stdout=io.StringIO())


def documents_state(project: Project) -> list[dict[str, Any]]:
    """Every stored field of the project's documents, in their order."""
    sentences: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for pk, start, end in (
        Sentence.objects.filter(document__project=project)
        .order_by("document_id", "index")
        .values_list("document_id", "start", "end")
    ):
        sentences[pk].append((start, end))
    return [
        {
            "name": d.name,
            "text": d.text,
            "external_id": d.external_id,
            "source": d.source,
            "metadata": d.metadata,
            "sentences": sentences[d.pk],
        }
        for d in Document.objects.filter(project=project).order_by("position", "pk")
    ]


def assert_same_documents(original: Project, copy: Project) -> None:
    before, after = documents_state(original), documents_state(copy)
    assert len(before) == len(after)
    for number, (a, b) in enumerate(zip(before, after, strict=True), 1):
        for key in a:
            assert a[key] == b[key], f"document {number} ({a['external_id']}): {key} differs"


def _rows(loaded: Any) -> list[dict[str, Any]]:
    return [dict(row) for split in loaded for row in loaded[split]]


# --- FLUB (the real file) -------------------------------------------------------------------


@pytest.mark.slow
def test_flub_round_trips_every_field_and_the_card_names_its_licence(flub_path, tmp_path):
    originals = [json.loads(line) for line in flub_path.read_text(encoding="utf-8").splitlines()]
    project = create_project(
        name="FLUB",
        description="FLUB (Li et al., 2024), CC BY-NC 4.0: 834 Chinese cunning texts.",
        taxonomy=install_preset(name="flub"),
        kind="items",
        form=form_preset("flub"),
    )
    import_items(path=flub_path, project=project, format="flub")
    folder = tmp_path / "flub-hf"
    report = _export("FLUB", folder)
    assert "licence: cc-by-nc-4.0 (the licence the project's description names)" in report

    loaded = _load(folder, tmp_path)
    rows = _rows(loaded)
    assert len(rows) == len(originals) == 834
    records = [json.loads(row["metadata"])["record"] for row in rows]
    assert [r["is_question"] for r in records] == [o["is_question"] for o in originals]
    assert sum(r["is_question"] for r in records) == sum(o["is_question"] for o in originals)
    raw_types = [o["type"] if isinstance(o["type"], str) else None for o in originals]
    assert [r["type"] for r in records] == raw_types
    metadata, body = _card(folder)
    assert metadata["license"] == "cc-by-nc-4.0"
    licence = body.split("## Licence\n\n", 1)[1].split("\n", 1)[0]
    assert licence.startswith("`cc-by-nc-4.0`")

    _import(folder, "FLUB copy")
    copy = Project.objects.get(name="FLUB copy")
    assert copy.form == project.form and copy.taxonomy == project.taxonomy
    assert_same_documents(project, copy)
    again = io.StringIO()
    export_flub(project=copy, out=again)
    assert again.getvalue() == flub_path.read_text(encoding="utf-8")


def test_the_licence_given_must_agree_with_the_declared_one(flub_path, tmp_path):
    project = create_project(
        name="F",
        description="FLUB (Li et al., 2024), CC BY-NC 4.0.",
        taxonomy=install_preset(name="flub"),
        kind="items",
        form=form_preset("flub"),
    )
    head = tmp_path / "head.jsonl"
    head.write_text("".join(flub_path.read_text(encoding="utf-8").splitlines(True)[:3]))
    import_items(path=head, project=project, format="flub")
    with pytest.raises(CommandError, match=r"--license mit: the project declares cc-by-nc-4.0"):
        _export("F", tmp_path / "a", license="mit")
    assert "licence: cc-by-nc-4.0" in _export("F", tmp_path / "b", license="cc-by-nc-4.0")
    project.description = ""
    project.save()
    _export("F", tmp_path / "c")
    metadata, body = _card(tmp_path / "c")
    assert metadata["license"] == "unknown" and "`unknown`: neither" in body


# --- MAFALDA gold (the real file) and a multi-annotator span project -----------------------


def _gold_state(gold: GoldStandard) -> dict[str, Any]:
    state = {}
    for entry in GoldDocument.objects.filter(gold_standard=gold).select_related("document"):
        spans = GoldSpan.objects.filter(gold_standard=gold, document=entry.document)
        state[entry.document.text] = {
            "spans": sorted((s.start, s.end, s.labels, json.dumps(s.details)) for s in spans),
            "comments": entry.comments,
        }
    return state


@pytest.mark.slow
def test_mafalda_gold_round_trips_every_text_span_and_field(mafalda_gold_path, tmp_path):
    project = create_project(
        name="MAFALDA",
        description="MAFALDA (Helwe et al., 2024), CC BY-SA 4.0: 200 gold texts.",
        taxonomy=install_preset(name="mafalda"),
    )
    call_command(
        "import_dataset", str(mafalda_gold_path), format="mafalda", project="MAFALDA",
        stdout=io.StringIO(),
    )  # fmt: skip
    folder = tmp_path / "mafalda-hf"
    _export("MAFALDA", folder)
    loaded = _load(folder, tmp_path)
    assert len(_rows(loaded)) == 200
    assert sum(len(row["spans"]) for row in _rows(loaded)) == 203
    metadata, body = _card(folder)
    assert metadata["license"] == "cc-by-sa-4.0" and "`cc-by-sa-4.0`:" in body

    _import(folder, "MAFALDA copy")
    copy = Project.objects.get(name="MAFALDA copy")
    assert_same_documents(project, copy)
    assert _gold_state(GoldStandard.objects.get(project=copy)) == _gold_state(
        GoldStandard.objects.get(project=project)
    )


SPAN_TEXTS = ["First text. It has two sentences.\n", "Second text, alone.\n", "Third.\n"]


def test_a_multi_annotator_span_project_lists_what_the_folder_does_not_carry(tmp_path):
    project = create_project(name="Team", taxonomy=install_preset(name="mafalda"))
    path = tmp_path / "texts.jsonl"
    path.write_text(
        "".join(json.dumps({"text": t, "labels": [], "comments": []}) + "\n" for t in SPAN_TEXTS)
    )
    call_command(
        "import_dataset", str(path), format="mafalda", project="Team", stdout=io.StringIO()
    )
    documents = list(Document.objects.filter(project=project).order_by("position"))
    documents[1].metadata = {"split": "train", "topic": "sport", "note": None}
    documents[1].save()
    users = [get_user_model().objects.create(username=name) for name in ("ann", "bob")]
    for user in users:
        annotation = Annotation.objects.create(
            document=documents[0], annotator=user, status=Annotation.Status.SUBMITTED
        )
        Span.objects.create(annotation=annotation, start=0, end=5, labels=["ad hominem"])
    gold = GoldStandard.objects.create(project=project, version=2, source="adjudicated")
    for document in documents:
        GoldDocument.objects.create(gold_standard=gold, document=document, comments=["c"])
    GoldSpan.objects.create(
        gold_standard=gold,
        document=documents[0],
        start=0,
        end=5,
        labels=["ad hominem"],
        proposed_by={"ad hominem": [u.pk for u in users]},
    )
    gold.status, gold.published_at = GoldStandard.Status.PUBLISHED, timezone.now()
    gold.save()

    folder = tmp_path / "team-hf"
    report = _export("Team", folder)
    _, body = _card(folder)
    not_carried = body.split("## Not carried\n", 1)[1].split("\n## ", 1)[0]
    for line in (
        "2 annotations by 2 annotators",
        "1 other gold versions (only v2 is exported)",
        "(`proposed_by`) of 1 gold spans",
        "the gold version's number (v2)",
    ):
        assert line in not_carried and line in report
    assert "licence: unknown" in report
    loaded = _load(folder, tmp_path)
    assert {split: len(loaded[split]) for split in loaded} == {"test": 2, "train": 1}
    assert json.loads(loaded["train"][0]["metadata"]) == documents[1].metadata

    _import(folder, "Team copy")
    copy = Project.objects.get(name="Team copy")
    assert_same_documents(project, copy)
    assert _gold_state(GoldStandard.objects.get(project=copy)) == _gold_state(gold)


# --- item projects in SmartyPat's, the rating preset's and ArgBench's shapes ---------------

SMARTYPAT_BENCH = [
    ["1", "Can my phone's battery cell join a prison choir?", "Equivocation,False Analogy",
     "If a battery has cells and prisons have cells, then a battery cell can sing in prison."],
    ["2", "Is a hot dog a dog that got hot?", "Nominal Fallacy\t",
     "Since it is called a hot dog, it is a dog that is hot."],
    ["3", "Either I eat cake or I starve.", "False dilemma",
     "If I do not eat cake, then I starve."],
]  # fmt: skip
SMARTYPAT_BENIGN = [["The museum opens at nine on weekdays."], ["Water freezes at zero."]]


def _csv_file(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    return path


def test_a_smartypat_project_round_trips_and_exports_its_csv_again(tmp_path):
    project = create_project(
        name="SP", taxonomy=install_preset(name="smartypat"), kind="items",
        form=form_preset("smartypat"),
    )  # fmt: skip
    bench = _csv_file(tmp_path / "bench.csv", SMARTYPAT_BENCH)
    import_items(path=bench, project=project, format="smartypat", set_metadata=["split=bench"])
    benign = _csv_file(tmp_path / "benign.csv", SMARTYPAT_BENIGN)
    import_items(path=benign, project=project, format="smartypat")
    folder = tmp_path / "sp-hf"
    _export("SP", folder)
    loaded = _load(folder, tmp_path)
    assert {split: len(loaded[split]) for split in loaded} == {"bench": 3, "test": 2}
    assert loaded["bench"][0]["gold"] == {
        "types": ["equivocation", "false analogy"],
        "fallacious": True,
    }

    _import(folder, "SP copy")
    copy = Project.objects.get(name="SP copy")
    assert_same_documents(project, copy)
    before, after = io.StringIO(), io.StringIO()
    export_smartypat(project=project, out=before)
    export_smartypat(project=copy, out=after)
    assert after.getvalue() == before.getvalue()


def _rating_project(tmp_path: Path) -> Project:
    """Three texts with candidate replies under a declared licence, one rated by ``rater``."""
    rating = create_project(
        name="Rate", taxonomy=install_preset(name="flub"), kind="items",
        form=form_preset("flub-rating"),
    )  # fmt: skip
    items = tmp_path / "rate.jsonl"
    items.write_text(
        "".join(
            json.dumps({"q": f"Text {n}.", "id": f"r{n}", "reply": f"Reply {n}.", "x": n}) + "\n"
            for n in range(3)
        )
    )
    import_items(
        path=items, project=rating, format="items",
        columns={"text": "q", "id": "id", "candidate": "reply"},
        set_metadata=["license=CC BY 4.0"],
    )  # fmt: skip
    user = get_user_model().objects.create(username="rater")
    Annotation.objects.create(
        document=Document.objects.filter(project=rating).first(),
        annotator=user,
        status=Annotation.Status.SUBMITTED,
        response={"explanation_quality": 4},
    )
    return rating


def _argbench_project(tmp_path: Path) -> Project:
    """Two argbench items in a ``dev`` split, the first with a stance, a segment and a reply."""
    argbench = create_project(
        name="Arg", taxonomy=install_preset(name="mafalda"), kind="items",
        form=form_preset("argbench"),
    )  # fmt: skip
    text = "Cars should go because traffic kills. Also it is loud."
    arg = tmp_path / "arg.jsonl"
    arg.write_text(
        json.dumps(
            {
                "text": text,
                "id": "a1",
                "stance": "appeal to fear",
                "segments": [[0, 37, "appeal to fear"]],
                "reply": "Fix the crossings instead.",
            }
        )
        + "\n"
        + json.dumps({"text": "No argument here.", "id": "a2"})
        + "\n"
    )
    import_items(
        path=arg, project=argbench, format="items",
        columns={"text": "text", "id": "id", "label": "stance", "segments": "segments",
                 "reference": "reply"},
        set_metadata=["split=dev"],
    )  # fmt: skip
    return argbench


def test_rating_and_argbench_item_projects_round_trip_with_their_declared_licence(tmp_path):
    rating = _rating_project(tmp_path)
    folder = tmp_path / "rate-hf"
    report = _export("Rate", folder)
    assert "licence: cc-by-4.0 (the `license` its documents' metadata declares)" in report
    assert "1 annotations by 1 annotators (their responses)" in report
    assert [row["candidate"] for row in _rows(_load(folder, tmp_path))] == [
        "Reply 0.", "Reply 1.", "Reply 2."
    ]  # fmt: skip
    _import(folder, "Rate copy")
    assert_same_documents(rating, Project.objects.get(name="Rate copy"))

    argbench = _argbench_project(tmp_path)
    folder = tmp_path / "arg-hf"
    _export("Arg", folder)
    row = _load(folder, tmp_path)["dev"][0]
    assert row["gold"]["segments"] == [{"start": 0, "end": 37, "label": "appeal to fear"}]
    _import(folder, "Arg copy")
    assert_same_documents(argbench, Project.objects.get(name="Arg copy"))


# --- folders without the document columns, and bad ones -----------------------------------


def test_a_folder_without_the_document_columns_still_imports(tmp_path):
    project = create_project(
        name="Items", taxonomy=install_preset(name="flub"), kind="items", form=form_preset("flub")
    )
    path = tmp_path / "i.jsonl"
    path.write_text(json.dumps({"q": "A text?", "id": "1", "o": {"A": "x"}, "g": "A"}) + "\n")
    import_items(
        path=path, project=project, format="items",
        columns={"text": "q", "id": "id", "options": "o", "answer": "g"},
    )  # fmt: skip
    folder = tmp_path / "hf"
    _export("Items", folder)
    table = pq.read_table(folder / TEST_FILE)
    pq.write_table(table.drop_columns(["source", "position", "metadata"]), folder / TEST_FILE)
    _import(folder, "Old")
    copy = Document.objects.get(project__name="Old")
    assert copy.metadata == {
        "format": "hf", "options": {"A": "x"}, "gold": {"answer": "A"}, "split": "test"
    }  # fmt: skip
    assert copy.source == "hf"

    def bad(value: str, pattern: str) -> None:
        rows = table.to_pylist()
        rows[0]["metadata"] = value
        pq.write_table(table.from_pylist(rows, schema=table.schema), folder / TEST_FILE)
        with pytest.raises(CommandError, match=pattern):
            _import(folder, "Bad")
        assert (
            not Project.objects.filter(name="Bad").exists()
            or not Document.objects.filter(project__name="Bad").exists()
        )

    bad("[1]", rf"{TEST_FILE}: row 1: metadata: not a JSON object")
    bad('{"a": NaN}', rf"{TEST_FILE}: row 1: metadata: not JSON: NaN is not JSON")
    bad('{"a": "\\u0000"}', rf"{TEST_FILE}: row 1: metadata.a: Null characters")
