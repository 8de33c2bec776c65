"""Documents are named so a person can tell them apart: the external id when it reads as a
name, else the text's first words; a content hash (FLUB's ids) or a UUID is no name, and
Chinese text without spaces is cut by width."""

from __future__ import annotations

import io
import json
from importlib import import_module

import pytest
from django.apps import apps
from django.contrib.auth.models import User

from annotations.form_presets import form_preset
from annotations.importing.items import import_items
from annotations.models import Document, Project
from annotations.naming import is_opaque_id, readable_name
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset

HASH = "f60fc5d4ff5eccf0b52f78012cc69143717afee5"
CHINESE = "明天就要上手术台，我演个什么节目。这句话有什么问题？请仔细想一想再回答。"


def test_readable_names() -> None:
    assert readable_name("Some text here.", "doc-17") == "doc-17"
    assert readable_name("Cats are great. Therefore all animals are great! Yes.", HASH) == (
        "Cats are great. Therefore all animals are great! …"
    )
    assert readable_name("Short text.", "123e4567-e89b-12d3-a456-426614174000") == "Short text."
    assert is_opaque_id(HASH) and not is_opaque_id("1234") and not is_opaque_id("mafalda-12")
    # unspaced text: the first 40 columns, a Chinese character counting two
    name = readable_name(CHINESE, HASH)
    assert name == CHINESE[:20] + " …"
    assert readable_name("年满二十岁是弱冠。", HASH) == "年满二十岁是弱冠。"


def test_a_word_s_width_is_measured_only_when_it_could_be_too_wide() -> None:
    """``readable_name`` skips measuring short and ASCII words: the same answer as
    measuring every character."""
    from annotations.naming import LONG_WORD, _wider_than_word, _width

    words = (
        ["a" * n for n in (1, LONG_WORD // 2, LONG_WORD // 2 + 1, LONG_WORD, LONG_WORD + 1)]
        + [CHINESE[:n] for n in (1, LONG_WORD // 2, LONG_WORD // 2 + 1, LONG_WORD)]
        + ["é" * (LONG_WORD + 1), "é" * LONG_WORD, "Ｆｕｌｌ" * 4, "mixed明天" * 3]
    )
    for word in words:
        assert _wider_than_word(word) == (sum(map(_width, word)) > LONG_WORD), word


def flub_line(record_id: str | int, text: str) -> str:
    record = {
        "text": text,
        "is_question": False,
        "type": "文字游戏",
        "explanation": "解释。",
        "id": record_id,
        "options": {"A": "甲", "B": "乙"},
        "answer": "A",
    }
    return json.dumps(record, ensure_ascii=False) + "\n"


@pytest.mark.django_db
def test_flub_items_are_named_by_their_first_words_not_their_hash() -> None:
    admin = User.objects.create_user("boss")
    project = create_project(
        name="FLUB",
        taxonomy=install_preset(name="flub"),
        created_by=admin,
        kind="items",
        form=form_preset("flub"),
    )
    lines = flub_line(HASH, CHINESE) + flub_line(42, "年满二十岁是弱冠。")
    import_items(path=io.StringIO(lines), project=project, format="flub", name="flub.jsonl")
    names = dict(Document.objects.filter(project=project).values_list("external_id", "name"))
    assert names == {HASH: CHINESE[:20] + " …", "42": "42"}


@pytest.mark.django_db
def test_the_data_migration_renames_documents_named_by_a_hash() -> None:
    project = Project.objects.create(name="Old", taxonomy=install_preset(name="flub"))
    hashed = Document.objects.create(project=project, text=CHINESE, external_id=HASH, name=HASH)
    kept = Document.objects.create(project=project, text="A text.", external_id="a-1", name="a-1")
    renamed = Document.objects.create(
        project=project, text="B text.", external_id=HASH[:30] + "abcdefabcd", name="Mine"
    )
    migration = import_module("annotations.migrations.0012_document_names_not_hashes")
    migration.rename_hashed(apps, None)
    names = dict(Document.objects.filter(project=project).values_list("pk", "name"))
    assert names == {hashed.pk: CHINESE[:20] + " …", kept.pk: "a-1", renamed.pk: "Mine"}
