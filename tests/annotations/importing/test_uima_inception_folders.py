"""UIMA CAS XMI folders shaped like INCEpTION's own project export (built here with
dkpro-cassis): one annotator per user file, zipped files, a single file beside its type
system; bad files refused naming the file and the annotation, with nothing written."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from cassis import Cas, TypeSystem
from django.contrib.auth import get_user_model
from django.core.management import CommandError

from annotations.models import Document, Project, Sentence
from tests.support.uima_projects import (
    SENTENCE,
    call,
    inception_cas,
    inception_type_system,
    new_project,
    records,
    sentences_of,
)

pytestmark = pytest.mark.django_db


def test_an_inception_export_imports_one_annotator_per_user_file(tmp_path: Path) -> None:
    ts = inception_type_system()
    text_a = "The senator is a crook. Ignore his plan. It costs too much."
    text_b = "Buy now or regret it forever. Everyone else already did."
    root = tmp_path / "inception-project"
    folder_a, folder_b = root / "annotation/a.txt", root / "annotation/b.txt"
    folder_a.mkdir(parents=True)
    folder_b.mkdir(parents=True)
    for folder in (folder_a, folder_b):
        (folder / "TypeSystem.xml").write_text(ts.to_xml(), encoding="utf-8")
    # anna: "senator is a crook" (inside sentence 1) and "his plan. It" (across 2 and 3).
    (folder_a / "anna.xmi").write_text(
        inception_cas(ts, text_a, [(4, 22, ["ad hominem"]), (31, 43, ["strawman"])]),
        encoding="utf-8",
    )
    # ben@example.org: two labels of the same sentences become alternatives of one span.
    (folder_a / "ben@example.org.xmi").write_text(
        inception_cas(ts, text_a, [(0, 23, ["ad hominem"]), (4, 10, ["appeal to ridicule"])]),
        encoding="utf-8",
    )
    # anna's file of b, zipped with its type system as INCEpTION's exports ship them.
    with zipfile.ZipFile(folder_b / "anna.zip", "w") as archive:
        archive.writestr("anna.xmi", inception_cas(ts, text_b, [(0, 29, ["false dilemma"])]))
        archive.writestr("TypeSystem.xml", ts.to_xml())

    project = new_project("Imported")
    said = call(
        "import_dataset", "--format", "xmi", str(root / "annotation"), "--project", "Imported"
    )
    assert "Imported 3 CAS files" in said
    assert "3 moved" in said and "1 merged as alternatives" in said
    a = Document.objects.get(project=project, text=text_a)
    assert sentences_of(a) == [(0, 23), (24, 40), (41, 59)]  # the CAS's sentences
    assert a.external_id == "a.txt"
    done = "submitted"
    assert records(project) == {
        ("anna", text_a): (done, [], [(0, 23, ["ad hominem"], {}), (24, 59, ["straw man"], {})]),
        ("ben@example.org", text_a): (
            done,
            [],
            [(0, 23, ["ad hominem", "appeal to ridicule"], {})],
        ),
        ("anna", text_b): (done, [], [(0, 29, ["false dilemma"], {})]),
    }
    assert set(project.memberships.values_list("user__username", flat=True)) >= {
        "anna",
        "ben@example.org",
    }


def test_a_single_xmi_file_with_its_type_system(tmp_path: Path) -> None:
    ts = inception_type_system()
    text = "Trust me, I am a doctor. So the vaccine is dangerous."
    (tmp_path / "TypeSystem.xml").write_text(ts.to_xml(), encoding="utf-8")
    path = tmp_path / "claims.xmi"
    path.write_text(inception_cas(ts, text, [(0, 24, ["appeal to authority"])]), "utf-8")
    project = new_project("Single")
    call("import_dataset", "--format", "xmi", str(path), "--project", "Single", "--annotator=cy")
    assert records(project) == {
        ("cy", text): ("submitted", [], [(0, 24, ["appeal to (false) authority"], {})])
    }


# --- bad input ----------------------------------------------------------------------------------


def _bad_import(path: Path) -> str:
    with pytest.raises(CommandError) as caught:
        call("import_dataset", "--format", "xmi", str(path), "--project", "Fresh")
    assert not Project.objects.filter(name="Fresh").exists()
    assert not Document.objects.exists() and not Sentence.objects.exists()
    assert not get_user_model().objects.filter(username__in=["anna", "zed"]).exists()
    return str(caught.value)


def _folder(tmp_path: Path, ts: TypeSystem, files: dict[str, str]) -> Path:
    root = tmp_path / "export"
    (root / "annotation/doc.txt").mkdir(parents=True)
    (root / "TypeSystem.xml").write_text(ts.to_xml(), encoding="utf-8")
    for user, xmi in files.items():
        (root / "annotation/doc.txt" / f"{user}.xmi").write_text(xmi, encoding="utf-8")
    return root


def test_a_file_that_is_not_xmi_is_refused_by_name(tmp_path: Path) -> None:
    ts = inception_type_system()
    good = inception_cas(ts, "One. Two.", [(0, 4, ["strawman"])])
    root = _folder(tmp_path, ts, {"anna": good, "zed": '{"text": "a Label Studio task"}'})
    message = _bad_import(root)
    assert message.startswith("annotation/doc.txt/zed.xmi: not readable UIMA CAS XMI")


def test_an_xmi_without_the_layer_is_refused(tmp_path: Path) -> None:
    ts = TypeSystem()
    ts.create_type(SENTENCE, supertypeName="uima.tcas.Annotation")
    cas = Cas(typesystem=ts)
    cas.sofa_string = "Plain. Text."
    root = _folder(tmp_path, ts, {"anna": cas.to_xmi()})
    message = _bad_import(root)
    assert message == (
        "annotation/doc.txt/anna.xmi: the type system has no layer webanno.custom.Fallacy"
    )


def test_an_unknown_label_names_the_file_and_the_annotation(tmp_path: Path) -> None:
    ts = inception_type_system()
    root = _folder(
        tmp_path,
        ts,
        {
            "anna": inception_cas(ts, "One. Two.", [(0, 4, ["strawman"])]),
            "zed": inception_cas(ts, "One. Two.", [(5, 9, ["strawman", "gish gallop"])]),
        },
    )
    message = _bad_import(root)
    assert message.startswith(
        'annotation/doc.txt/zed.xmi: webanno.custom.Fallacy at 5–9: labels: "gish gallop" is '
        "not a fallacy type of taxonomy"
    )


def test_a_slot_the_type_lacks_and_a_missing_type_system_are_refused(tmp_path: Path) -> None:
    from annotations.importing.formats.uima import CasDocument, CasSpan, cas_xmi, type_system

    ts = type_system()
    bad_slot = CasSpan(0, 4, ["appeal to anger"], {"appeal to anger": {"Q": "x"}})
    root = _folder(tmp_path, ts, {"anna": cas_xmi(CasDocument("One. Two.", [], [bad_slot]), ts)})
    message = _bad_import(root)
    assert message.startswith("annotation/doc.txt/anna.xmi: webanno.custom.Fallacy at 0–4: slots:")
    assert '"Q" is not a slot of "appeal to anger"' in message

    (root / "TypeSystem.xml").unlink()
    assert "no TypeSystem.xml beside the file" in _bad_import(root)
    assert "no CAS files" in _bad_import(tmp_path / "export" / "annotation" / "doc.txt")
