"""SmartyPat's taxonomy and file format: the paper's fourteen types each its own label, files
with and without a header (the published shapes, written here with our own sentences),
the text column by name or position, benign files as sound items of the same project."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotations.form_presets import form_preset
from annotations.models import Document, Project
from annotations.services.taxonomy import preset_path
from annotations.taxonomy_files import read_taxonomy_file

PAPER_TYPES = {
    "false dilemma",
    "equivocation",
    "false premise",
    "false analogy",
    "wrong direction",
    "fallacy of composition",
    "begging the question",
    "false cause",
    "inverse error",
    "improper transposition",
    "improper distribution or addition",
    "contextomy",
    "nominal fallacy",
    "accident fallacy",
}

# Headerless, as published: id, original post, fallacy types (as the authors spell them,
# a stray tab included), declarative rewrite. Our own sentences.
BENCH = [
    ["1", "Can my phone's battery cell join a prison choir?", "Equivocation,False Analogy",
     "If a battery has cells and prisons have cells, then a battery cell can sing in prison."],
    ["2", "Why do libraries ban silence-breaking pages?", "Accident fallacy",
     "If a library asks for silence, then turning a page is never allowed."],
    ["3", "Is a hot dog a dog that got hot?", "Nominal Fallacy\t",
     "Since it is called a hot dog, it is a dog that is hot."],
    ["4", "Two half-price tickets make one free ticket?", "Improper Distribution or Addition",
     "If each ticket is half price, then two of them together cost nothing."],
    ["5", "The label said 'fat free' so the whole cake is healthy?", "Contextomy, False Premise",
     "Since the frosting says fat free, the whole cake is free of any harm."],
    ["6", "No rain means no wet streets, so dry streets mean no rain?", "Improper transposition",
     "If rain makes the streets wet, then wet streets mean it rained."],
    ["7", "I did not study, so I cannot pass?", "Inverse Error",
     "If studying means passing, then not studying means failing."],
    ["8", "Umbrellas cause rain: I always see them when it rains.", "Wrong Direction",
     "Since umbrellas appear when it rains, umbrellas bring the rain."],
    ["9", "Each brick is light, so the wall is light.", "Fallacy of composition",
     "Since every brick is light, the whole wall is light."],
    ["10", "He is honest because he never lies.", "Begging the question",
     "Since he never lies, he is honest, because honest people never lie."],
    ["11", "Either I eat cake or I starve.", "False dilemma",
     "If I do not eat cake, then I starve, since nothing else is food."],
    ["12", "My lucky socks won the match.", "False Cause",
     "Since I wore these socks and we won, the socks made us win."],
]  # fmt: skip
BENIGN = [["The museum opens at nine on weekdays."], ["Water freezes at zero degrees Celsius."]]


def _write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    return path


def _import(path: Path, project: str = "SPB", **options) -> None:
    call_command(
        "import_dataset", str(path), format="smartypat", project=project, stdout=io.StringIO(),
        **options,
    )  # fmt: skip


def test_the_preset_holds_the_papers_fourteen_types_each_its_own_label() -> None:
    spec = read_taxonomy_file(preset_path("smartypat"))
    names = [t.name for t in spec.types()]
    assert len(names) == 14 and set(names) == PAPER_TYPES
    spellings = [alias.casefold() for t in spec.types() for alias in t.aliases]
    # an alias only joins spellings of one type: none is another type's name or repeated
    assert not set(spellings) & PAPER_TYPES and len(spellings) == len(set(spellings))
    resolver = spec.label_resolver()
    assert resolver.resolve("Improper transposition") == "improper transposition"
    assert resolver.resolve("inverse error") == "inverse error"
    assert form_preset("smartypat")["benchmark"] == "smartypat"


@pytest.mark.django_db
def test_a_headerless_bench_file_imports_the_papers_gold_with_the_rewrite_as_text(tmp_path):
    _import(_write(tmp_path / "bench.csv", BENCH))
    project = Project.objects.get(name="SPB")
    documents = {d.external_id: d for d in Document.objects.filter(project=project)}
    assert len(documents) == 12
    gold = {key: d.metadata["gold"]["types"] for key, d in documents.items()}
    assert {label for labels in gold.values() for label in labels} == PAPER_TYPES
    assert gold["6"] == ["improper transposition"] and gold["7"] == ["inverse error"]
    assert gold["1"] == ["equivocation", "false analogy"]
    assert documents["2"].text == BENCH[1][3]  # the rewrite, as the paper gave the models
    assert documents["2"].metadata["text_column"] == "declarative rewrite"
    assert documents["3"].metadata["gold_text"] == {"types": "Nominal Fallacy\t"}
    assert documents["2"].metadata["record"]["original post"] == BENCH[1][1]

    # a benign file (one column, no ids): sound items of the same project
    _import(_write(tmp_path / "good.csv", BENIGN))
    benign = Document.objects.filter(project=project, external_id__startswith="good-")
    assert sorted((d.external_id, d.text) for d in benign) == [
        ("good-1", BENIGN[0][0]),
        ("good-2", BENIGN[1][0]),
    ]
    assert {str(d.metadata["gold"]) for d in benign} == {"{'types': [], 'fallacious': False}"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("option", "expected"),
    [("post", 1), ("rewrite", 3), ("2", 1), ("4", 3)],
)
def test_the_text_column_by_name_or_position(tmp_path, option, expected) -> None:
    _import(_write(tmp_path / "bench.csv", BENCH[:2]), text_column=option)
    texts = list(
        Document.objects.filter(project__name="SPB")
        .order_by("position")
        .values_list("text", flat=True)
    )
    assert texts == [BENCH[0][expected], BENCH[1][expected]]


@pytest.mark.django_db
def test_a_file_with_a_header_and_other_shapes(tmp_path) -> None:
    header = ["ID", "Original_Post", "Fallacy Types", "Declarative Rewrite"]
    _import(_write(tmp_path / "h.csv", [header, *BENCH[:2]]))
    texts = Document.objects.filter(project__name="SPB").order_by("position")
    assert [d.text for d in texts] == [BENCH[0][1], BENCH[1][1]]  # with a header: the post
    _import(_write(tmp_path / "h2.csv", [header, *BENCH[:2]]), "SPR", text_column="rewrite")
    texts = Document.objects.filter(project__name="SPR").order_by("position")
    assert [d.text for d in texts] == [BENCH[0][3], BENCH[1][3]]
    # generated sentences: sentence, types, no ids
    _import(_write(tmp_path / "generated.csv", [["A rule is a rule.", "Accident fallacy"]]))
    made = Document.objects.get(project__name="SPB", external_id="generated-1")
    assert made.metadata["gold"] == {"types": ["accident fallacy"], "fallacious": True}


@pytest.mark.django_db
def test_bad_files_and_options_name_their_place(tmp_path) -> None:
    with pytest.raises(CommandError, match="text_column: no column 'nope'"):
        _import(_write(tmp_path / "a.csv", BENCH[:1]), text_column="nope")
    with pytest.raises(CommandError, match="text_column: column 9 does not exist"):
        _import(_write(tmp_path / "b.csv", BENCH[:1]), text_column="9")
    with pytest.raises(CommandError, match="b2.csv:1: text_column: the file has no 'decl"):
        _import(_write(tmp_path / "b2.csv", BENIGN), text_column="rewrite")
    with pytest.raises(CommandError, match="c.csv:1: a file without a header has 1 to 4"):
        _import(_write(tmp_path / "c.csv", [[*BENCH[0], "extra"]]))
    with pytest.raises(CommandError, match="d.csv:2: expected 4 fields"):
        _import(_write(tmp_path / "d.csv", [BENCH[0], BENCH[1][:3]]))
    with pytest.raises(CommandError, match="e.csv:1: fallacy types: unknown label 'Slippery"):
        _import(_write(tmp_path / "e.csv", [["1", "A post.", "Slippery slope", "A rewrite."]]))
    with pytest.raises(CommandError, match="--text-column goes with --format smartypat"):
        call_command("import_dataset", str(tmp_path / "a.csv"), format="flub", project="F",
                     text_column="post")  # fmt: skip
    assert not Document.objects.filter(project__name="SPB").exists()


@pytest.mark.django_db
def test_the_import_tab_takes_headerless_files_and_the_text_column(tmp_path) -> None:
    staff = APIClient()
    staff.force_login(User.objects.create_user("staff", is_staff=True, is_superuser=True))
    created = staff.post("/api/projects/", {"name": "SPW", "form_preset": "smartypat"})
    assert created.status_code == 201, created.content
    content = _write(tmp_path / "bench.csv", BENCH[:3]).read_bytes()
    job = staff.post(
        f"/api/projects/{created.json()['id']}/imports/",
        {
            "file": SimpleUploadedFile("bench.csv", content),
            "format": "smartypat",
            "text_column": "post",
        },
        format="multipart",
    )
    assert job.status_code == 201 and job.json()["status"] == "succeeded", job.content
    texts = Document.objects.filter(project__name="SPW").order_by("position")
    assert [d.text for d in texts] == [row[1] for row in BENCH[:3]]
