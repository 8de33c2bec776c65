"""A span project with a published gold version to export as a Hugging Face dataset folder
(three texts, four spans, one with two alternative labels) and an empty project of the same
taxonomy that ``demo-admin`` imports the folder into from the Import tab
(``tests/e2e/test_hf_import_ui.py``).

Run as a script against the database the environment selects, after ``migrate``; prints a
JSON object with the two projects' ids and names and the gold spans as ``[text, labels]``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import mafalda, setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

SOURCE = "HF export source"
TARGET = "HF import target"
TEXTS = [  # text, [(first words of a sentence, labels)]
    (
        "You cannot trust his plan for the bridge. He failed chemistry in school.",
        [("You cannot trust", ["ad hominem"])],
    ),
    (
        "Either we close every road tonight or the whole city floods. Nobody wants that.",
        [("Either we close", ["false dilemma", "appeal to fear"])],
    ),
    (
        "Everyone in my street recycles. So recycling must be the law of nature. "
        "The council agrees.",
        [("Everyone in my", ["ad populum"]), ("So recycling", ["appeal to nature"])],
    ),
]


def _records() -> list[dict]:
    """MAFALDA records: each labelled sentence a ``[start, end, label]`` triple per label."""
    records = []
    for text, spans in TEXTS:
        labels = []
        for opening, names in spans:
            start = text.index(opening)
            end = text.index(".", start) + 1
            labels += [[start, end, name] for name in names]
        records.append({"text": text, "labels": labels, "comments": []})
    return records


def build() -> dict:
    from annotations.importing.datasets import import_mafalda_gold
    from annotations.models import Project
    from annotations.services.projects import add_member, create_project

    admin = _user("demo-admin")
    source = Project.objects.filter(name=SOURCE).first()
    if source is None:
        source = create_project(name=SOURCE, taxonomy=mafalda())
        add_member(project=source, user=admin, role="admin")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "gold.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in _records()), encoding="utf-8")
            import_mafalda_gold(path=path, project=source)
    target = Project.objects.filter(name=TARGET).first()
    if target is None:
        target = create_project(name=TARGET, taxonomy=mafalda())
        add_member(project=target, user=admin, role="admin")
    spans = [
        [text[text.index(opening) : text.index(".", text.index(opening)) + 1], sorted(names)]
        for text, entries in TEXTS
        for opening, names in entries
    ]
    return {
        "source": {"id": source.pk, "name": SOURCE},
        "target": {"id": target.pk, "name": TARGET},
        "spans": spans,
    }


if __name__ == "__main__":
    setup_django()
    print(json.dumps(build()))
