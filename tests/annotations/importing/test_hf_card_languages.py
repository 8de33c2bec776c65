"""The dataset card's ``language:`` comes from the project's texts (their declared language,
else their script), and ``--language`` still overrides it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from annotations.form_presets import form_preset
from annotations.importing.items import import_items
from annotations.languages import text_language, text_languages
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset

# FLUB-shaped items (Chinese questions, options and explanations), written for this test.
CHINESE = [
    ("c1", "我昨天吃了三个苹果，所以我今天一定会生病。", "推理错误"),
    ("c2", "他是一个好学生，因为老师说他是一个好学生。", "推理错误"),
    ("c3", "如果你不同意我，那你就是反对进步。", "歧义"),
]
COLUMNS = {"text": "text", "id": "id", "options": "opts", "answer": "answer", "label": "type"}


def _item_project(name: str, tmp_path: Path, rows, set_metadata=None):
    project = create_project(
        name=name, taxonomy=install_preset(name="flub"), kind="items", form=form_preset("flub")
    )
    path = tmp_path / f"{name}.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {"id": i, "text": t, "opts": {"A": "是", "B": "否"}, "answer": "A", "type": y},
                ensure_ascii=False,
            )
            + "\n"
            for i, t, y in rows
        ),
        encoding="utf-8",
    )
    import_items(
        path=path, project=project, format="items", columns=COLUMNS, set_metadata=set_metadata
    )
    return project


def _card_languages(project: str, out: Path, *languages: str) -> list[str]:
    options = {"language": list(languages)} if languages else {}
    call_command(
        "export_dataset",
        project=project,
        format="hf",
        out=str(out),
        stdout=io.StringIO(),
        **options,
    )
    front = (out / "README.md").read_text(encoding="utf-8").split("---\n", 2)[1]
    return yaml.safe_load(front)["language"]


@pytest.mark.django_db
def test_a_chinese_project_gets_zh_and_language_still_overrides(tmp_path):
    _item_project("Chinese", tmp_path, CHINESE)
    assert _card_languages("Chinese", tmp_path / "zh") == ["zh"]
    assert _card_languages("Chinese", tmp_path / "en", "en") == ["en"]
    assert _card_languages("Chinese", tmp_path / "both", "zh", "en") == ["zh", "en"]


@pytest.mark.django_db
def test_a_language_the_documents_declare_is_taken_as_it_is(tmp_path):
    _item_project("Declared", tmp_path, CHINESE, set_metadata={"language": "zh-TW"})
    assert _card_languages("Declared", tmp_path / "out") == ["zh-TW"]


def test_texts_are_told_by_their_script():
    assert text_language("Correlation is not causation, and this argument forgets it.") == "en"
    assert text_language("他是一个好学生，因为老师说他是一个好学生。") == "zh"
    # An English sentence quoting one Chinese word stays English; the reverse stays Chinese.
    assert text_language("The word 歧义 means ambiguity in this argument of ours.") == "en"
    assert text_language("所谓的 strawman 谬误是歪曲对方的观点然后加以反驳。") == "zh"
    assert text_language("彼は学生なので、きっと頭がいいに違いない。") == "ja"
    assert text_language("그는 학생이니까 분명히 똑똑할 것이다.") == "ko"
    assert text_language("1234 !!!") == "en"
    mixed = [("他是一个好学生。", None)] * 6 + [("An English text.", None)] * 3
    assert text_languages(mixed) == ("zh", "en")
    assert text_languages([("他是一个好学生。", None)] * 19 + [("Hello.", None)]) == ("zh",)
    assert text_languages([]) == ("en",)
