"""Gold versions and item projects as Hugging Face dataset folders: exported, loaded by
``datasets.load_dataset`` (offline), imported back; bad folders refused naming the place."""

from __future__ import annotations

import io
import json
import shutil
from itertools import islice
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotations.form_presets import form_preset
from annotations.importing.datasets import import_mafalda_gold
from annotations.importing.items import import_items
from annotations.models import (
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    Sentence,
    TaxonomyNode,
)
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import AgreementResult

pytestmark = pytest.mark.django_db
TEST_FILE = "data/test-00000-of-00001.parquet"


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))


def _load(folder: Path, tmp_path: Path) -> Any:
    import datasets

    return datasets.load_dataset(str(folder), cache_dir=str(tmp_path / "hf-cache"))


def _card(folder: Path) -> tuple[dict[str, Any], str]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body


def _agreement(project: Project, gold: GoldStandard) -> None:
    """Finished agreement figures of two annotators against ``gold``, for the card."""
    AgreementResult.objects.create(
        project=project,
        gold_standard=gold,
        key="k" * 64,
        status="done",
        finished_at=timezone.now(),
        payload={
            "documents": 5,
            "annotators": [{"id": 1, "username": "a"}, {"id": 2, "username": "b"}],
            "levels": {
                "2": {
                    "alpha": {"masi": {"value": 0.6123}, "jaccard": {"value": 0.5}},
                    "fleiss_kappa": {"value": 0.25},
                }
            },
        },
    )


def _span_project(mafalda_gold_path: Path, tmp_path: Path) -> tuple[Project, GoldStandard]:
    """Five MAFALDA texts (gold v1), then a v2 adding a span with template slots, two texts
    in a ``train`` split, and agreement figures computed against v2."""
    project = create_project(name="Spans", taxonomy=install_preset(name="mafalda"))
    head = tmp_path / "head.jsonl"
    with mafalda_gold_path.open(encoding="utf-8") as stream:
        head.write_text("".join(islice(stream, 5)), encoding="utf-8")
    import_mafalda_gold(path=head, project=project)
    v1 = GoldStandard.objects.get(project=project, version=1)
    v2 = GoldStandard.objects.create(project=project, version=2, source="test", note="slots")
    for entry in GoldDocument.objects.filter(gold_standard=v1):
        GoldDocument.objects.create(gold_standard=v2, document=entry.document, comments=["ok"])
    for span in GoldSpan.objects.filter(gold_standard=v1):
        GoldSpan.objects.create(
            gold_standard=v2,
            document=span.document,
            start=span.start,
            end=span.end,
            labels=span.labels,
        )
    node = TaxonomyNode.objects.filter(taxonomy=project.taxonomy, level=2).exclude(slots=[])[0]
    other = TaxonomyNode.objects.filter(taxonomy=project.taxonomy, level=2).exclude(pk=node.pk)[0]
    document = Document.objects.filter(project=project).order_by("position")[1]
    GoldSpan.objects.create(
        gold_standard=v2,
        document=document,
        start=0,
        end=12,
        labels=sorted([node.name, other.name]),
        details={
            node.name: {
                "slots": {slot: f"value of {slot}" for slot in node.slots},
                "explanation": "Because.",
            }
        },
    )
    v2.status, v2.published_at = GoldStandard.Status.PUBLISHED, timezone.now()
    v2.save()
    for train in Document.objects.filter(project=project).order_by("position")[:2]:
        train.metadata = {**train.metadata, "split": "train"}
        train.save()
    _agreement(project, v2)
    return project, v2


def _gold_state(gold: GoldStandard) -> dict[str, Any]:
    """Per text: its spans (range, labels, details), comments and sentence ranges."""
    state = {}
    for entry in GoldDocument.objects.filter(gold_standard=gold).select_related("document"):
        spans = GoldSpan.objects.filter(gold_standard=gold, document=entry.document)
        sentences = Sentence.objects.filter(document=entry.document).order_by("index")
        state[entry.document.text] = {
            "spans": sorted((s.start, s.end, s.labels, json.dumps(s.details)) for s in spans),
            "comments": entry.comments,
            "sentences": [(s.start, s.end) for s in sentences],
        }
    return state


def _record_spans(record: dict[str, Any]) -> list[tuple[Any, ...]]:
    """A loaded record's spans in ``_gold_state``'s form (details keyed by label)."""
    return sorted(
        (
            s["start"],
            s["end"],
            s["labels"],
            json.dumps(
                {
                    d["label"]: {
                        "slots": {slot["name"]: slot["value"] for slot in d["slots"]},
                        "explanation": d["explanation"],
                    }
                    for d in s["details"]
                }
            ),
        )
        for s in record["spans"]
    )


def _assert_span_card(folder: Path, project: Project) -> None:
    """The dataset card of gold version 2: licence, language, task, definitions, agreement."""
    metadata, body = _card(folder)
    assert metadata["license"] == "cc-by-4.0" and metadata["language"] == ["en"]
    assert "token-classification" in metadata["task_categories"]
    assert metadata["fallacy_platform"]["gold_version"] == 2
    definition = TaxonomyNode.objects.filter(taxonomy=project.taxonomy, level=2)[0].definition
    assert definition and definition in body
    assert "## Gold version 2" in body and "| 2 | 0.612 | 0.500 | 0.250 |" in body
    assert "`paper`" in body


def test_a_gold_version_exports_loads_with_datasets_and_imports_back(mafalda_gold_path, tmp_path):
    project, gold = _span_project(mafalda_gold_path, tmp_path)
    folder = tmp_path / "hf"
    out = io.StringIO()
    call_command(
        "export_dataset",
        project="Spans",
        format="hf",
        gold_version=2,
        out=str(folder),
        license="cc-by-4.0",
        stdout=out,
    )
    assert "train 2, test 3" in out.getvalue()

    loaded = _load(folder, tmp_path)
    assert {split: len(loaded[split]) for split in loaded} == {"train": 2, "test": 3}
    documents = Document.objects.filter(project=project).order_by("position")
    expected = _gold_state(gold)
    for record, document in zip([*loaded["train"], *loaded["test"]], documents, strict=True):
        assert record["id"] == document.external_id and record["text"] == document.text
        assert _record_spans(record) == expected[document.text]["spans"]
        assert [(s["start"], s["end"]) for s in record["sentences"]] == expected[document.text][
            "sentences"
        ]
    assert any(
        any(span["details"] for span in record["spans"])
        for record in [*loaded["train"], *loaded["test"]]
    )

    _assert_span_card(folder, project)

    call_command("import_dataset", str(folder), format="hf", project="Copy", stdout=io.StringIO())
    copy = GoldStandard.objects.get(project__name="Copy")
    assert (copy.version, copy.is_published) == (1, True)
    assert _gold_state(copy) == expected
    # each document's metadata as it was: the two train texts' split, none on the others
    splits = dict(Document.objects.filter(project__name="Copy").values_list("text", "metadata"))
    assert splits == dict(Document.objects.filter(project=project).values_list("text", "metadata"))
    assert sorted(m.get("split", "test") for m in splits.values()) == [
        "test", "test", "test", "train", "train"
    ]  # fmt: skip


ITEMS = [
    {"q": "Is this a trick?", "id": "1", "opts": {"A": "yes", "B": "no"}, "g": "A", "t": "歧义"},
    {"q": "Another text.", "id": "2", "opts": {"A": "x", "B": "y"}, "g": "B", "t": ""},
]


FIRST_ITEM_ROW = {  # the first item as its test split's row
    "id": "1",
    "text": "Is this a trick?",
    "options": [{"key": "A", "text": "yes"}, {"key": "B", "text": "no"}],
    "candidate": "",
    "gold": {"answer": "A", "type": "歧义", "explanation": None},
    "source": "items0.jsonl",
    "position": 0,
    "metadata": json.dumps(
        {
            "format": "items",
            "record": {"q": "Is this a trick?", "id": "1", "opts": {"A": "yes", "B": "no"},
                       "g": "A", "t": "歧义"},
            "record_keys": ["q", "id", "opts", "g", "t"],
            "gold": {},
        },
        ensure_ascii=False,
        sort_keys=True,
    ),
}  # fmt: skip


def _flub_items(tmp_path: Path) -> Project:
    """A FLUB item project of ``ITEMS``, one file each, the second in a ``dev`` split."""
    project = create_project(
        name="Items", taxonomy=install_preset(name="flub"), kind="items", form=form_preset("flub")
    )
    columns = {"text": "q", "id": "id", "options": "opts", "answer": "g", "label": "t"}
    for index, (item, split) in enumerate(zip(ITEMS, (None, "dev"), strict=True)):
        path = tmp_path / f"items{index}.jsonl"
        path.write_text(json.dumps(item, ensure_ascii=False) + "\n", encoding="utf-8")
        import_items(
            path=path,
            project=project,
            format="items",
            columns=columns,
            set_metadata={"split": split} if split else None,
        )
    return project


def test_an_item_project_exports_its_answer_key_and_imports_back(tmp_path):
    project = _flub_items(tmp_path)
    folder = tmp_path / "items-hf"
    call_command(
        "export_dataset",
        project="Items",
        format="hf",
        out=str(folder),
        language=["zh"],
        stdout=io.StringIO(),
    )
    loaded = _load(folder, tmp_path)
    assert [dict(r) for r in loaded["test"]] == [FIRST_ITEM_ROW]
    assert loaded["dev"][0]["gold"] == {"answer": "B", "type": None, "explanation": None}
    metadata, body = _card(folder)
    assert metadata["language"] == ["zh"] and metadata["fallacy_platform"]["kind"] == "items"
    assert "`definition`" in body and "歧义" in body

    call_command(
        "import_dataset", str(folder), format="hf", project="Items 2", stdout=io.StringIO()
    )
    copies = Document.objects.filter(project__name="Items 2").order_by("position")
    assert [(d.external_id, d.text, d.metadata["options"], d.metadata["gold"]) for d in copies] == [
        (d.external_id, d.text, d.metadata["options"], d.metadata["gold"])
        for d in Document.objects.filter(project=project).order_by("position")
    ]
    assert Project.objects.get(name="Items 2").form == project.form
    with pytest.raises(CommandError, match=r"row 1: id: id '1' is already an item"):
        call_command("import_dataset", str(folder), format="hf", project="Items 2")


def _rewrite(folder: Path, change) -> None:
    table = pq.read_table(folder / TEST_FILE)
    pq.write_table(change(table), folder / TEST_FILE)


def test_bad_folders_fail_naming_file_row_and_field_and_write_nothing(mafalda_gold_path, tmp_path):
    _span_project(mafalda_gold_path, tmp_path)
    good = tmp_path / "good"
    call_command(
        "export_dataset", project="Spans", format="hf", out=str(good), stdout=io.StringIO()
    )
    before = (Document.objects.count(), GoldStandard.objects.count(), Project.objects.count())

    def fails(name: str, change, pattern: str) -> None:
        folder = tmp_path / name
        shutil.copytree(good, folder)
        change(folder)
        with pytest.raises(CommandError, match=pattern):
            call_command("import_dataset", str(folder), format="hf", project="Spans")
        assert (
            Document.objects.count(),
            GoldStandard.objects.count(),
            Project.objects.count(),
        ) == before

    fails("no-card", lambda f: (f / "README.md").unlink(), r"no dataset card \(README.md\)")
    fails("no-parquet", lambda f: (f / TEST_FILE).unlink(), rf"{TEST_FILE}: split 'test': no such")
    fails(
        "no-column",
        lambda f: _rewrite(f, lambda t: t.drop_columns(["spans"])),
        rf"{TEST_FILE}: spans: missing column",
    )

    def out_of_range(table):
        rows = table.to_pylist()
        rows[1]["spans"] = [{**rows[1]["spans"][0], "end": len(rows[1]["text"]) + 5}]
        return table.from_pylist(rows, schema=table.schema)

    fails(
        "out-of-range",
        lambda f: _rewrite(f, out_of_range),
        rf"{TEST_FILE}: row 2: spans\[0\].end: \d+ is beyond the text",
    )

    def unknown_label(table):
        rows = table.to_pylist()
        rows[0]["spans"] = [{**rows[0]["spans"][0], "labels": ["made up"]}]
        return table.from_pylist(rows, schema=table.schema)

    fails(
        "unknown-label",
        lambda f: _rewrite(f, unknown_label),
        rf"{TEST_FILE}: row 1: spans\[0\].labels\[0\]: unknown label 'made up'",
    )
