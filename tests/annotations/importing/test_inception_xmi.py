"""An INCEpTION project export, built with dkpro-cassis the way INCEpTION writes it
(``tests/support/inception.py``: per-user zips, INITIAL_CAS, curation, DKPro and WebAnno
types), imported: annotations stacked over the same offsets become one span's alternatives
("no fallacy" among them), for a single-valued ``label`` feature and a ``labels`` array;
INITIAL_CAS adds texts and no annotator; curation becomes the gold version; a span of
"no fallacy" alone is refused naming the file and the annotation, with nothing written."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotations.models import Annotation, Document, GoldSpan, GoldStandard, Project, Span
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from tests.support.inception import Ann, write_project_export

pytestmark = pytest.mark.django_db

SPEECH = "The senator is a crook. Ignore his plan. It costs too much."  # (0,23) (24,40) (41,59)
AD = "Buy now or regret it forever. Everyone else already did."  # (0,29) (30,56)
PLAIN = "Nothing to see here. Just a plain text."
NO = "no fallacy"


def _project(name: str) -> Project:
    return create_project(name=name, taxonomy=install_preset(name="mafalda"))


def _call(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def _import(path: Path, project: str = "Imported") -> str:
    return _call("import_dataset", "--format", "xmi", str(path), "--project", project)


def _records(project: Project) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    """(annotator, text) -> spans (start, end, labels, details) of the submitted annotation."""
    out = {}
    for annotation in Annotation.objects.filter(document__project=project).select_related(
        "document", "annotator"
    ):
        assert annotation.status == Annotation.Status.SUBMITTED
        spans = Span.objects.filter(annotation=annotation).order_by("start", "end", "id")
        out[(annotation.annotator.username, annotation.document.text)] = [
            (s.start, s.end, s.labels, s.details) for s in spans
        ]
    return out


def _gold(project: Project, version: int) -> dict[str, list[tuple[Any, ...]]]:
    gold = GoldStandard.objects.get(project=project, version=version)
    out: dict[str, list[tuple[Any, ...]]] = {d.text: [] for d in gold.documents.all()}
    for span in GoldSpan.objects.filter(gold_standard=gold).select_related("document"):
        out[span.document.text].append((span.start, span.end, span.labels, span.details))
    return {text: sorted(spans) for text, spans in out.items()}


def _stacked_single_values_export(tmp_path: Path) -> Path:
    """Three texts (one nobody annotated), anna's and ben's stacked single values, and a
    curation of two texts."""
    return write_project_export(
        tmp_path / "inception-export",
        texts={"speech.txt": SPEECH, "ad.txt": AD, "plain.txt": PLAIN},
        annotations={
            # "no fallacy" stacked on a fallacy, and two fallacies stacked over two sentences.
            ("speech.txt", "anna"): [
                Ann(0, 23, "ad hominem"),
                Ann(0, 23, NO),
                Ann(24, 59, "strawman"),
                Ann(24, 59, "appeal to ridicule"),
            ],
            # "nothing" over the sentence, a fallacy inside it: joined once snapped.
            ("speech.txt", "ben@example.org"): [Ann(0, 23, "nothing"), Ann(4, 22, "ad hominem")],
            # The same value stacked twice is one label.
            ("ad.txt", "anna"): [Ann(0, 29, "false dilemma"), Ann(0, 29, "False Dilemma")],
        },
        curation={
            "speech.txt": [Ann(0, 23, "ad hominem"), Ann(0, 23, NO), Ann(24, 59, "strawman")],
            "ad.txt": [Ann(0, 29, "false dilemma")],
        },
    )


def test_stacked_single_values_initial_cas_and_curation(tmp_path: Path) -> None:
    root = _stacked_single_values_export(tmp_path)
    project = _project("Imported")
    said = _import(root)

    assert "Imported 8 CAS files" in said  # 3 INITIAL_CAS, 3 annotators' files, 2 curated
    assert "INITIAL_CAS files: 3 (texts only, no annotator)" in said
    assert "stacked annotations merged: 4" in said
    assert "1 moved (5 characters), 1 merged as alternatives" in said
    assert "by anna, ben@example.org" in said
    assert "published gold standard version 1 (2 documents)" in said
    assert _records(project) == {
        ("anna", SPEECH): [
            (0, 23, ["ad hominem", NO], {}),
            (24, 59, ["appeal to ridicule", "straw man"], {}),
        ],
        ("ben@example.org", SPEECH): [(0, 23, ["ad hominem", NO], {})],
        ("anna", AD): [(0, 29, ["false dilemma"], {})],
    }
    assert _gold(project, 1) == {
        SPEECH: [(0, 23, ["ad hominem", NO], {}), (24, 59, ["straw man"], {})],
        AD: [(0, 29, ["false dilemma"], {})],
    }
    # Every document, the one nobody annotated too, with INCEpTION's sentences and name.
    documents = {d.external_id: d for d in Document.objects.filter(project=project)}
    assert {name: d.text for name, d in documents.items()} == {
        "speech.txt": SPEECH,
        "ad.txt": AD,
        "plain.txt": PLAIN,
    }
    bounds = documents["speech.txt"].sentences.order_by("index").values_list("start", "end")
    assert list(bounds) == [(0, 23), (24, 40), (41, 59)]
    # INITIAL_CAS and CURATION_USER are nobody: no account, no membership.
    members = set(project.memberships.values_list("user__username", flat=True))
    assert members == {"anna", "ben@example.org"}
    users = get_user_model().objects.filter(username__in=["INITIAL_CAS", "CURATION_USER"])
    assert not users.exists()

    # Importing again replaces the annotations and publishes the curation as version 2.
    said = _import(root)
    assert "(3 replaced)" in said and "version 2" in said
    assert _gold(project, 2) == _gold(project, 1)


def test_stacked_string_arrays_and_no_fallacy(tmp_path: Path) -> None:
    anger = {"appeal to anger": {"E": "the senator", "P": "ignore his plan"}}
    root = write_project_export(
        tmp_path / "export",
        shape="labels",
        texts={"speech.txt": SPEECH},
        annotations={
            ("speech.txt", "anna"): [
                Ann(0, 23, ["ad hominem", "appeal to ridicule"]),
                Ann(0, 23, [NO]),  # stacked: an alternative of the array beside it
                Ann(24, 40, ["strawman"]),  # two arrays on one range: two required spans
                Ann(24, 40, ["appeal to anger"], anger, {"appeal to anger": "outrage"}),
            ]
        },
    )
    project = _project("Imported")
    said = _import(root / "annotation")
    assert "Imported 2 CAS files" in said and "stacked annotations merged: 1" in said
    details = {"appeal to anger": {"slots": anger["appeal to anger"], "explanation": "outrage"}}
    assert _records(project) == {
        ("anna", SPEECH): [
            (0, 23, ["ad hominem", "appeal to ridicule", NO], {}),
            (24, 40, ["straw man"], {}),
            (24, 40, ["appeal to anger"], details),
        ]
    }


def test_a_label_feature_beside_a_labels_array(tmp_path: Path) -> None:
    root = write_project_export(
        tmp_path / "export",
        shape="both",
        texts={"speech.txt": SPEECH},
        annotations={("speech.txt", "anna"): [Ann(0, 23, ["ad hominem"]), Ann(0, 23, NO)]},
        initial_cas=False,
    )
    project = _project("Imported")
    _import(root)
    assert _records(project) == {("anna", SPEECH): [(0, 23, ["ad hominem", NO], {})]}


def _refused(root: Path) -> str:
    with pytest.raises(CommandError) as caught:
        _import(root, "Fresh")
    assert not Project.objects.filter(name="Fresh").exists()
    assert not Document.objects.exists() and not GoldStandard.objects.exists()
    assert not get_user_model().objects.filter(username__in=["anna", "zed"]).exists()
    return str(caught.value)


@pytest.mark.parametrize("stack", [[NO], [NO, "nothing"]], ids=["alone", "stacked twice"])
def test_no_fallacy_alone_is_refused_naming_the_file(tmp_path: Path, stack: list[str]) -> None:
    root = write_project_export(
        tmp_path / "export",
        texts={"speech.txt": SPEECH},
        annotations={
            ("speech.txt", "anna"): [Ann(0, 23, "ad hominem")],
            ("speech.txt", "zed"): [Ann(24, 40, "strawman")] + [Ann(0, 23, v) for v in stack],
        },
    )
    message = _refused(root)
    assert message.startswith(
        'annotation/speech.txt/zed.zip: webanno.custom.Fallacy at 0–23: label: "no fallacy"'
        " alone is not a span"
    )


def test_no_fallacy_alone_in_the_curation_is_refused(tmp_path: Path) -> None:
    root = write_project_export(
        tmp_path / "export",
        texts={"speech.txt": SPEECH},
        annotations={},
        curation={"speech.txt": [Ann(24, 59, ["strawman"]), Ann(0, 23, [NO])]},
        shape="labels",
    )
    message = _refused(root)
    assert message.startswith(
        "curation/speech.txt/CURATION_USER.zip: webanno.custom.Fallacy at 0–23: labels:"
        ' "no fallacy" alone'
    )


def test_an_unknown_single_value_names_the_feature(tmp_path: Path) -> None:
    root = write_project_export(
        tmp_path / "export",
        texts={"speech.txt": SPEECH},
        annotations={("speech.txt", "zed"): [Ann(0, 23, "ad hominem"), Ann(0, 23, "gish gallop")]},
    )
    message = _refused(root)
    assert message.startswith(
        'annotation/speech.txt/zed.zip: webanno.custom.Fallacy at 0–23: label: "gish gallop"'
        " is not a fallacy type of taxonomy"
    )
