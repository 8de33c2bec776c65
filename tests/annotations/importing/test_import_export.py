"""Importing and exporting MAFALDA and doccano files, on the real MAFALDA data."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotations.importing.datasets import (
    import_doccano_annotations,
    import_mafalda_gold,
    import_texts,
)
from annotations.importing.formats import DatasetFormatError
from annotations.importing.sentences import check_tiling
from annotations.labels import NO_FALLACY
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
from annotations.services.exports import export_doccano, export_mafalda
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from tests.support.paths import ROOT

pytestmark = pytest.mark.django_db
USERS = ("user1", "user2", "user4", "user5")
# Recounted from users_results: (distinct (start, end) spans, triples, comments).
USER_COUNTS = {
    "user1": (37, 44, 0),
    "user2": (28, 28, 0),
    "user4": (18, 18, 3),
    "user5": (36, 44, 0),
}


@pytest.fixture
def project() -> Project:
    return create_project(name="MAFALDA", taxonomy=install_preset(name="mafalda"))


def _lines(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as stream:
        return [json.loads(line) for line in stream]


def _triples(record: dict, key: str) -> set[tuple[int, int, str]]:
    return {(s, e, label) for s, e, label in record[key] if label != "to clean"}


def _users_file(mafalda_dir: Path, user: str) -> Path:
    return mafalda_dir / "datasets" / "users_results" / f"{user}.jsonl"


def test_gold_import_matches_the_published_facts(project: Project, mafalda_gold_path: Path):
    report = import_mafalda_gold(path=mafalda_gold_path, project=project)

    gold = GoldStandard.objects.get(project=project)
    assert (gold.version, gold.is_published, report.gold_version) == (1, True, 1)
    assert Document.objects.filter(project=project).count() == 200
    assert (report.documents_created, report.documents_reused) == (200, 0)
    assert GoldDocument.objects.filter(gold_standard=gold).count() == 200
    spans = list(GoldSpan.objects.filter(gold_standard=gold))
    assert len(spans) == report.spans == 203
    assert sum(NO_FALLACY in span.labels for span in spans) == 14
    assert Counter(len(span.labels) for span in spans) == {1: 147, 2: 48, 3: 7, 4: 1}
    assert all(span.labels == sorted(set(span.labels)) for span in spans)
    assert report.skipped_to_clean == 4
    assert report.to_clean_lines == [44, 85, 86, 122]
    assert report.texts_without_spans == 63
    assert report.texts_without_required_fallacy == 68
    assert report.sentence_units == 940
    assert report.sentence_units_dropped == ["24:3"]
    assert report.sentences == Sentence.objects.filter(document__project=project).count() == 957


def test_gold_documents_keep_comments_ids_and_a_sentence_tiling(
    project: Project, mafalda_gold_path: Path
):
    import_mafalda_gold(path=mafalda_gold_path, project=project)
    records = _lines(mafalda_gold_path)
    entries = GoldDocument.objects.select_related("document").order_by("document__position")
    for line, (record, entry) in enumerate(zip(records, entries, strict=True), start=1):
        assert entry.document.text == record["text"]
        assert entry.document.external_id == f"mafalda-gold-v1-{line}"
        assert entry.comments == record["comments"]
        ranges = list(entry.document.sentences.values_list("start", "end"))
        check_tiling(record["text"], ranges)


def test_reimport_is_a_new_version_reusing_the_documents(project: Project, mafalda_gold_path):
    import_mafalda_gold(path=mafalda_gold_path, project=project)
    report = import_mafalda_gold(path=mafalda_gold_path, project=project, note="again")

    assert report.gold_version == 2
    assert (report.documents_created, report.documents_reused, report.sentences) == (0, 200, 0)
    assert Document.objects.filter(project=project).count() == 200
    assert GoldSpan.objects.filter(gold_standard__version=2).count() == 203


def test_mafalda_round_trip_gives_back_every_text_and_triple(
    project: Project, mafalda_gold_path: Path
):
    import_mafalda_gold(path=mafalda_gold_path, project=project)
    out = io.StringIO()
    assert export_mafalda(project=project, out=out) == 200

    exported = [json.loads(line) for line in out.getvalue().splitlines()]
    originals = _lines(mafalda_gold_path)
    assert len(exported) == len(originals) == 200
    for original, copy in zip(originals, exported, strict=True):
        assert copy["text"] == original["text"]
        assert _triples(copy, "labels") == _triples(original, "labels")
        assert copy["comments"] == original["comments"]
        sentences = json.loads(copy["sentences_with_labels"])
        assert all(sentence in original["text"] for sentence in sentences)
        for groups in sentences.values():
            assert groups and all(isinstance(labels, list) and labels for labels in groups)
    # MAFALDA's own spellings come back, the quirky capital included.
    labels = {label for record in exported for _, _, label in record["labels"]}
    assert {"Appeal to Ridicule", "nothing"} <= labels
    assert "appeal to ridicule" not in labels and NO_FALLACY not in labels


def test_exported_sentences_list_the_spans_overlapping_them(project, mafalda_gold_path):
    import_mafalda_gold(path=mafalda_gold_path, project=project)
    out = io.StringIO()
    export_mafalda(project=project, out=out)
    first = json.loads(out.getvalue().splitlines()[0])  # one span [155, 588) slippery slope
    sentences = json.loads(first["sentences_with_labels"])
    assert list(sentences.values()) == [
        [["nothing"]],
        [["slippery slope"]],
        [["slippery slope"]],
        [["slippery slope"]],
    ]


@pytest.mark.parametrize("user", USERS)
def test_doccano_import_of_each_annotator(project: Project, mafalda_dir: Path, user: str):
    annotator = get_user_model().objects.create(username=user)
    report = import_doccano_annotations(
        path=_users_file(mafalda_dir, user), project=project, annotator=annotator
    )

    spans, triples, comments = USER_COUNTS[user]
    annotations = Annotation.objects.filter(annotator=annotator)
    assert annotations.count() == report.annotations_created == 20
    assert set(annotations.values_list("status", flat=True)) == {Annotation.Status.SUBMITTED}
    assert Span.objects.filter(annotation__annotator=annotator).count() == report.spans == spans
    assert report.span_labels == triples
    assert sum(len(a.comments) for a in annotations) == comments
    assert annotator.assignments.count() == 20
    ids = {doc.metadata["doccano_ids"][user] for doc in Document.objects.filter(project=project)}
    assert ids == {record["id"] for record in _lines(_users_file(mafalda_dir, user))}


def test_doccano_files_reuse_gold_documents_and_round_trip(
    project: Project, mafalda_dir: Path, mafalda_gold_path: Path
):
    import_mafalda_gold(path=mafalda_gold_path, project=project)
    for user in USERS:
        annotator = get_user_model().objects.create(username=user)
        report = import_doccano_annotations(
            path=_users_file(mafalda_dir, user), project=project, annotator=annotator
        )
        assert (report.documents_created, report.documents_reused) == (0, 20)

        out = io.StringIO()
        assert export_doccano(project=project, annotator=annotator, out=out) == 20
        exported = {r["text"]: r for r in map(json.loads, out.getvalue().splitlines())}
        for original in _lines(_users_file(mafalda_dir, user)):
            copy = exported[original["text"]]
            assert copy["id"] == original["id"]
            assert _triples(copy, "label") == _triples(original, "label")
            assert copy["Comments"] == original["Comments"]
    assert Document.objects.filter(project=project).count() == 200


def test_doccano_reimport_replaces_the_annotators_work(project: Project, mafalda_dir: Path):
    annotator = get_user_model().objects.create(username="user1")
    other = get_user_model().objects.create(username="user2")
    import_doccano_annotations(
        path=_users_file(mafalda_dir, "user2"), project=project, annotator=other
    )
    path = _users_file(mafalda_dir, "user1")
    import_doccano_annotations(path=path, project=project, annotator=annotator)
    report = import_doccano_annotations(path=path, project=project, annotator=annotator)

    assert report.annotations_replaced == 20
    assert Annotation.objects.filter(annotator=annotator).count() == 20
    assert Span.objects.filter(annotation__annotator=annotator).count() == 37
    assert Span.objects.filter(annotation__annotator=other).count() == 28


def test_gold_export_in_doccano_shape(project: Project, mafalda_gold_path: Path):
    import_mafalda_gold(path=mafalda_gold_path, project=project)
    out = io.StringIO()
    export_doccano(project=project, out=out)
    exported = [json.loads(line) for line in out.getvalue().splitlines()]
    for original, copy in zip(_lines(mafalda_gold_path), exported, strict=True):
        assert set(copy) == {"id", "text", "label", "Comments"}
        assert _triples(copy, "label") == _triples(original, "labels")


def test_text_import_of_blocks_and_jsonl(project: Project, tmp_path: Path):
    blocks = tmp_path / "texts.txt"
    blocks.write_text("First text.\nStill first.\n\n\nSecond text. Two sentences.\n", "utf-8")
    report = import_texts(path=blocks, project=project)
    assert (report.documents_created, report.sentences) == (2, 4)
    texts = list(Document.objects.filter(project=project).values_list("text", flat=True))
    assert texts == ["First text.\nStill first.", "Second text. Two sentences."]

    jsonl = tmp_path / "texts.jsonl"
    jsonl.write_text(
        '{"text": "Second text. Two sentences.", "id": "a"}\n'
        '{"text": "Third.", "id": 7, "source": "web", "metadata": {"k": 1}}\n',
        "utf-8",
    )
    report = import_texts(path=jsonl, project=project)
    assert (report.documents_created, report.documents_reused) == (1, 1)
    third = Document.objects.get(project=project, text="Third.")
    assert (third.external_id, third.source, third.metadata, third.position) == (
        "7",
        "web",
        {"k": 1},
        2,
    )


# --- all or nothing ----------------------------------------------------------------------


def _counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Project, Document, Sentence, GoldStandard, GoldDocument, GoldSpan)
    }


def _broken_copy(source: Path, target: Path, line: int, change) -> Path:
    records = _lines(source)
    lines = [json.dumps(record) for record in records]
    lines[line - 1] = change(records[line - 1])
    target.write_text("\n".join(lines) + "\n", "utf-8")
    return target


def _bad_json(record: dict) -> str:
    return json.dumps(record)[:-5]


def _offset_beyond_text(record: dict) -> str:
    record["labels"].append([0, len(record["text"]) + 10, "ad hominem"])
    return json.dumps(record)


def _unknown_label(record: dict) -> str:
    record["labels"].append([0, 5, "argument from vibes"])
    return json.dumps(record)


def _without_text(record: dict) -> str:
    del record["text"]
    return json.dumps(record)


def _only_nothing(record: dict) -> str:
    record["labels"] = [[0, 5, "nothing"]]
    return json.dumps(record)


@pytest.mark.parametrize(
    ("line", "change", "expected"),
    [
        (5, _bad_json, r"gold\.jsonl:5: invalid JSON"),
        (7, _offset_beyond_text, r"gold\.jsonl:7: labels\[\d+\]\[1\]: end \d+ is beyond the text"),
        (9, _unknown_label, r"gold\.jsonl:9: labels\[\d+\]\[2\]: unknown label 'argument from"),
        (3, _without_text, r"gold\.jsonl:3: text: required field is missing"),
        (11, _only_nothing, r"gold\.jsonl:11: labels\[0\]: span \[0, 5\) has no fallacy label"),
        (200, _unknown_label, r"gold\.jsonl:200: labels\[\d+\]\[2\]: unknown label"),
    ],
)
def test_a_bad_line_fails_the_command_and_imports_nothing(
    mafalda_gold_path: Path, tmp_path: Path, line: int, change, expected: str
):
    path = _broken_copy(mafalda_gold_path, tmp_path / "gold.jsonl", line, change)
    install_preset(name="mafalda")
    before = _counts()
    with pytest.raises(CommandError, match=expected):
        call_command("import_dataset", str(path), format="mafalda", project="New project")
    assert _counts() == before  # not even the project the command would have created


def test_an_error_after_written_batches_rolls_all_of_them_back(
    project: Project, mafalda_gold_path: Path, tmp_path: Path
):
    """1,200 texts (six varied copies of the gold file): batches of 500 are written before
    the bad last line is read."""
    path = tmp_path / "big.jsonl"
    records = _lines(mafalda_gold_path)
    with path.open("w", encoding="utf-8") as stream:
        for copy in range(6):
            for record in records:
                stream.write(json.dumps({**record, "text": record["text"] + f"(copy {copy})"}))
                stream.write("\n")
        stream.write(_unknown_label(dict(records[0])) + "\n")
    before = _counts()
    with pytest.raises(DatasetFormatError, match=r"big\.jsonl:1201: labels\[1\]\[2\]"):
        import_mafalda_gold(path=path, project=project)
    assert _counts() == before


def test_commands_import_and_export_with_a_summary(
    mafalda_dir: Path, mafalda_gold_path: Path, tmp_path: Path
):
    stdout = io.StringIO()
    call_command(
        "import_dataset", str(mafalda_gold_path), format="mafalda", project="P", stdout=stdout
    )
    assert "200 created" in stdout.getvalue() and "version 1" in stdout.getvalue()
    call_command(
        "import_dataset",
        str(_users_file(mafalda_dir, "user4")),
        format="doccano",
        project="P",
        annotator="user4",
        stdout=io.StringIO(),
    )
    with pytest.raises(CommandError, match="--annotator is required"):
        call_command("import_dataset", str(mafalda_gold_path), format="doccano", project="P")

    out = tmp_path / "export.jsonl"
    call_command("export_dataset", project="P", format="mafalda", out=str(out), stdout=stdout)
    assert len(out.read_text("utf-8").splitlines()) == 200
    call_command(
        "export_dataset",
        project="P",
        format="doccano",
        annotator="user4",
        out=str(out),
        stdout=stdout,
    )
    assert len(out.read_text("utf-8").splitlines()) == 20
    with pytest.raises(CommandError, match="no published gold standard version 9"):
        call_command("export_dataset", project="P", format="mafalda", out=str(out), version=9)


# --- plain texts in bulk ---------------------------------------------------------------------


def _bench_texts(count: int) -> list[str]:
    """Texts of 200-5,000 characters made of the MAFALDA gold texts (bench/import_texts.py)."""
    import sys

    bench = ROOT / "bench"
    sys.path.insert(0, str(bench))
    try:
        from import_texts import build_texts
    finally:
        sys.path.remove(str(bench))
    return build_texts(count)


def test_a_large_text_import_gives_every_document_a_name_and_tiling_sentences(
    mafalda_gold_path: Path, tmp_path: Path
):
    texts = _bench_texts(1_100)  # three batches
    path = tmp_path / "corpus.txt"
    path.write_text("\n\n".join(texts) + "\n", "utf-8")
    stdout = io.StringIO()
    call_command("import_dataset", str(path), format="text", project="Bulk", stdout=stdout)
    project = Project.objects.get(name="Bulk")
    documents = list(Document.objects.filter(project=project).order_by("position"))
    assert [document.text for document in documents] == texts
    assert [document.position for document in documents] == list(range(len(texts)))
    sentences: dict[int, list[tuple[int, int]]] = {}
    for document_id, start, end in Sentence.objects.filter(document__project=project).values_list(
        "document_id", "start", "end"
    ):
        sentences.setdefault(document_id, []).append((start, end))
    for document in documents:
        assert document.name == " ".join(document.text.split()[:8]) + " …"
        check_tiling(document.text, sentences[document.pk])  # and never none
    indexes = Sentence.objects.filter(document=documents[-1]).values_list("index", flat=True)
    assert list(indexes) == list(range(len(sentences[documents[-1].pk])))
    total = sum(map(len, sentences.values()))
    assert f"1100 created, 0 reused ({total} sentences stored)" in stdout.getvalue()
    assert "records/s" in stdout.getvalue()


@pytest.mark.parametrize(
    ("bad_line", "content", "expected"),
    [
        ('{"text": "   "}', None, r"texts\.jsonl:1101: text: the text is blank"),
        (
            '{"text": "Text number 7.", "id": "x"}',
            None,
            r"texts\.jsonl:1101: text: same text as line 8",
        ),
        ('{"text": "A new one.", "id": "id-3"}', None, r"texts\.jsonl:1101: id: same id as line 4"),
        ('{"text": 5}', None, r"texts\.jsonl:1101: text: expected a string"),
        (None, b'{"text": "caf\xe9"}', r"texts\.jsonl:1101: not UTF-8 text"),
    ],
)
def test_a_bad_line_after_written_batches_imports_no_text(
    project: Project, tmp_path: Path, bad_line: str | None, content: bytes | None, expected: str
):
    """1,100 good lines (two batches of 500 written), then a bad one: nothing stays."""
    path = tmp_path / "texts.jsonl"
    good = "".join(
        json.dumps({"text": f"Text number {n}.", "id": f"id-{n}"}) + "\n" for n in range(1_100)
    )
    path.write_bytes(good.encode() + (content or bad_line.encode()) + b"\n")
    before = _counts()
    with pytest.raises(DatasetFormatError, match=expected):
        import_texts(path=path, project=project)
    assert _counts() == before


def test_a_text_file_that_is_not_utf8_names_its_line(project: Project, tmp_path: Path):
    path = tmp_path / "texts.txt"
    body = "".join(f"Text {n}, long enough to fill a buffer. " * 20 + "\n\n" for n in range(300))
    path.write_bytes(body.encode() + b"Caf\xe9 au lait.\n")
    with pytest.raises(DatasetFormatError, match=r"texts\.txt:601: not UTF-8 text"):
        import_texts(path=path, project=project)
    assert not Document.objects.filter(project=project).exists()


def test_texts_and_ids_already_in_the_project_are_reused_or_refused(
    project: Project, tmp_path: Path
):
    path = tmp_path / "first.jsonl"
    path.write_text('{"text": "Already here.", "id": "a"}\n', "utf-8")
    import_texts(path=path, project=project)
    path = tmp_path / "second.jsonl"
    path.write_text('{"text": "Already here.", "id": "a"}\n{"text": "New.", "id": "b"}\n', "utf-8")
    report = import_texts(path=path, project=project)
    assert (report.documents_created, report.documents_reused) == (1, 1)
    path.write_text('{"text": "Newer.", "id": "c"}\n{"text": "Other.", "id": "a"}\n', "utf-8")
    with pytest.raises(DatasetFormatError, match=r"second\.jsonl:2: id: id 'a' is already the id"):
        import_texts(path=path, project=project)
    assert Document.objects.filter(project=project).count() == 2
