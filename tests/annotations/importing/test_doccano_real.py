"""doccano JSON Lines against the real doccano (1.8.4, its own virtualenv; one server and
worker for this module, tests.support.doccano): doccano's import takes every record of our
exports (MAFALDA's gold; two annotators' files with alternatives and overlapping spans) into
a sequence-labeling project and gives back every span and label as we wrote them; doccano's
own export (two of its users annotating through its API, a comment) imports here with every
span equal, offsets as doccano wrote them."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from annotations.labels import NO_FALLACY
from annotations.models import Annotation, Document, Project
from tests.support.doccano import Doccano, doccano_server, jsonl
from tests.support.label_studio_project import T1, T2, T3, T4

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

Spans = dict[str, list[tuple[int, int, str]]]


@pytest.fixture(scope="module")
def doccano(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with doccano_server(tmp_path_factory.mktemp("doccano")) as (client, seconds):
        print(f"doccano started in {seconds:.1f} s")
        yield client


def file_spans(records: list[dict[str, Any]]) -> Spans:
    """text -> its [start, end, label] triples, sorted."""
    return {r["text"]: sorted((s, e, label) for s, e, label in r["label"]) for r in records}


def doccano_spans(doccano: Doccano, project: int) -> Spans:
    """text -> the spans doccano holds for it (through its API), sorted."""
    names = doccano.span_types(project)
    return {
        example["text"]: sorted(
            (s["start_offset"], s["end_offset"], names[s["label"]])
            for s in doccano.spans(project, example["id"])
        )
        for example in doccano.examples(project)
    }


def export_ours(tmp_path: Path, project: str, annotator: str | None = None) -> str:
    out = tmp_path / f"{project}-{annotator or 'gold'}.jsonl"
    options = {"annotator": annotator} if annotator else {}
    call_command(
        "export_dataset", project=project, format="doccano", out=str(out),
        stdout=io.StringIO(), **options,
    )  # fmt: skip
    return out.read_text(encoding="utf-8")


def imported(doccano: Doccano, name: str, content: str, *, overlapping: bool = True) -> int:
    """Our file imported into a new doccano sequence-labeling project (its id)."""
    project = doccano.create_project(name, allow_overlapping=overlapping)
    doccano.import_jsonl(project, f"{name}.jsonl", content)
    examples = doccano.examples(project)
    assert [e["text"] for e in examples] == [r["text"] for r in jsonl(content.encode())]
    return project


def accepted(doccano: Doccano, name: str, content: str, *, overlapping: bool = True) -> Spans:
    """Our file imported into a new doccano project; the spans doccano holds."""
    return doccano_spans(doccano, imported(doccano, name, content, overlapping=overlapping))


def test_mafalda_gold_is_accepted_by_doccano_with_every_span_equal(
    doccano, mafalda_gold_path, tmp_path
):
    began = time.monotonic()
    call_command(
        "import_dataset", str(mafalda_gold_path), format="mafalda", project="MAFALDA",
        stdout=io.StringIO(),
    )  # fmt: skip
    content = export_ours(tmp_path, "MAFALDA")
    records = jsonl(content.encode())
    assert len(records) == 200

    back = accepted(doccano, "MAFALDA gold", content)
    assert back == file_spans(records)
    count = sum(len(found) for found in back.values())
    print(f"MAFALDA gold: 200 of 200 texts, {count} spans equal, {time.monotonic() - began:.1f} s")


#: Two annotators' doccano files (our format, MAFALDA's spellings: "nothing" is no fallacy):
#: parts of sentences, alternatives (one range, several labels), overlapping spans, comments.
OURS = {
    "alice": [
        {
            "id": 101, "text": T1, "Comments": ["unsure about the second"],
            "label": [
                [T1.index("got sick"), T1.index(" Everyone"), "false causality"],
                [T1.index("Everyone"), len(T1), "ad populum"],
                [T1.index("Everyone"), len(T1), "appeal to (false) authority"],
            ],
        },
        {"id": 102, "text": T2, "Comments": [], "label": [[0, len(T2), "ad hominem"]]},
    ],
    "bob": [
        {
            "id": 7, "text": T1, "Comments": [],
            "label": [
                [0, T1.index(" Everyone"), "hasty generalization"],
                [T1.index("My neighbour"), T1.index(" Everyone"), "false causality"],
            ],
        },
        {
            "id": 8, "text": T3, "Comments": ["a slope"],
            "label": [[0, T3.index(" Then"), "slippery slope"], [0, T3.index(" Then"), "nothing"]],
        },
    ],
}  # fmt: skip


def test_two_annotators_exports_are_accepted_with_alternatives_and_overlaps(doccano, tmp_path):
    for who, records in OURS.items():
        path = tmp_path / f"{who}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        call_command(
            "import_dataset", str(path), format="doccano", project="Ours", annotator=who,
            stdout=io.StringIO(),
        )  # fmt: skip

    for who, records in OURS.items():
        content = export_ours(tmp_path, "Ours", annotator=who)
        written = jsonl(content.encode())
        assert file_spans(written) == file_spans(records)
        assert [(r["id"], r["Comments"]) for r in written] == [
            (r["id"], r["Comments"]) for r in records
        ]
        assert accepted(doccano, f"Ours {who}", content) == file_spans(written)

    # Through doccano and back: its export holds our spans and ids; our Comments, kept in its
    # examples' meta, give way to its own comments (none), as its export writes them.
    project = imported(doccano, "Circle", export_ours(tmp_path, "Ours", annotator="bob"))
    circle = jsonl(doccano.export_jsonl(project)["admin.jsonl"])
    assert file_spans(circle) == file_spans(OURS["bob"])
    assert [(r["id"], r["Comments"]) for r in circle] == [(7, []), (8, [])]
    path = tmp_path / "circle.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in circle), encoding="utf-8")
    call_command(
        "import_dataset", str(path), format="doccano", project="Ours", annotator="bob",
        stdout=io.StringIO(),
    )  # fmt: skip
    assert file_spans(jsonl(export_ours(tmp_path, "Ours", annotator="bob").encode())) == (
        file_spans(OURS["bob"])
    )

    # A project that does not allow overlapping spans keeps one span of a range (of
    # alternatives) and of overlapping ones, silently: alternatives need the option.
    content = export_ours(tmp_path, "Ours", annotator="alice")
    kept = accepted(doccano, "No overlapping", content, overlapping=False)
    assert kept[T1] == file_spans(OURS["alice"])[T1][:2]


# --- doccano's own export, imported here -----------------------------------------------------


#: Per annotator of the doccano project: (text, quote, label); one range labelled twice is a
#: span with alternatives here.
DOCCANO_LABELLED = {
    "alice": [
        (T1, "got sick after his shot", "false causality"),
        (T1, "Everyone knows the government", "ad populum"),
        (T1, "Everyone knows the government", "appeal to (false) authority"),
        (T2, "He was divorced twice!", "ad hominem"),
        (T4, "He is a socialist, so his plan is wrong.", "ad hominem"),
    ],
    "bob": [
        (T1, "My neighbour got sick after his shot.", "hasty generalization"),
        (T2, "divorced twice", "ad hominem"),
        (T2, "divorced twice", NO_FALLACY),
        (T3, "soon nobody will leave the house", "slippery slope"),
    ],
}
PASSWORD = "annotator-password-1"


def _doccano_project(doccano: Doccano) -> int:
    """The four texts imported by doccano's admin, its users alice and bob annotating them
    through its API (as its annotation page does), alice commenting one."""
    project = doccano.create_project("From doccano", allow_overlapping=True)
    content = "".join(json.dumps({"text": t, "label": []}) + "\n" for t in (T1, T2, T3, T4))
    doccano.import_jsonl(project, "texts.jsonl", content)
    examples = {e["text"]: e["id"] for e in doccano.examples(project)}
    labels = {item[2] for items in DOCCANO_LABELLED.values() for item in items}
    types = {label: doccano.create_span_type(project, label) for label in sorted(labels)}
    for who, labelled in DOCCANO_LABELLED.items():
        doccano.add_member(project, doccano.create_user(who, PASSWORD))
        client = doccano.as_user(who, PASSWORD)
        for text, quote, label in labelled:
            start = text.index(quote)
            client.add_span(project, examples[text], start, start + len(quote), types[label])
    doccano.as_user("alice", PASSWORD).add_comment(project, examples[T1], "check the causes")
    return project


def _expected(who: str) -> dict[str, set[tuple[int, int, tuple[str, ...]]]]:
    """text -> the annotator's spans as imported here: labels of one range grouped."""
    grouped: dict[tuple[str, int, int], set[str]] = {}
    for text, quote, label in DOCCANO_LABELLED[who]:
        start = text.index(quote)
        grouped.setdefault((text, start, start + len(quote)), set()).add(label)
    found: dict[str, set[tuple[int, int, tuple[str, ...]]]] = {}
    for (text, start, end), labels in grouped.items():
        found.setdefault(text, set()).add((start, end, tuple(sorted(labels))))
    return found


def test_doccanos_export_imports_with_every_span_equal(doccano, tmp_path):
    project = _doccano_project(doccano)
    files = doccano.export_jsonl(project)
    assert sorted(files) == ["admin.jsonl", "alice.jsonl", "bob.jsonl"]
    records = {name: jsonl(content) for name, content in files.items()}
    assert all(len(found) == 4 for found in records.values())  # every text, labelled or not
    assert {tuple(sorted(r)) for found in records.values() for r in found} == {
        ("Comments", "id", "label", "text")
    }
    assert [r["Comments"] for r in records["alice.jsonl"]][0] == ["check the causes"]

    out = io.StringIO()
    for who in DOCCANO_LABELLED:
        path = tmp_path / f"{who}.jsonl"
        path.write_bytes(files[f"{who}.jsonl"])
        call_command(
            "import_dataset", str(path), format="doccano", project="Here", annotator=who,
            stdout=out,
        )  # fmt: skip

    here = Project.objects.get(name="Here")
    assert Document.objects.filter(project=here).count() == 4
    count = 0
    for who in DOCCANO_LABELLED:
        annotations = Annotation.objects.filter(document__project=here, annotator__username=who)
        imported = {
            a.document.text: {(s.start, s.end, tuple(s.labels)) for s in a.spans.all()}
            for a in annotations
        }
        assert {text: spans for text, spans in imported.items() if spans} == _expected(who)
        count += sum(len(spans) for spans in imported.values())
        ids = {r["text"]: r["id"] for r in records[f"{who}.jsonl"]}
        assert {a.document.text: a.document.metadata["doccano_ids"][who] for a in annotations} == (
            ids
        )
    comments = Annotation.objects.get(document__text=T1, annotator__username="alice").comments
    assert comments == ["check the causes"]
    print(f"doccano's export: 2 annotators, {count} spans equal")
