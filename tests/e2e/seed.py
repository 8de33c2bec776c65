"""Data for the browser tests and the page-load benchmark, written through the services.

Run as a script against the database the environment selects (FALLACY_DATA_DIR or
DATABASE_URL), after ``manage.py migrate``::

    python tests/e2e/seed.py            # demo data (``load_demo`` when present) + long doc
    python tests/e2e/seed.py --bench    # only what the benchmark needs

Prints a JSON object with the ids the callers need.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO_PASSWORD = "fallacy-demo"
LONG_PROJECT = "Long-document benchmark"
LONG_USER = "bench-annotator"

GUIDELINES = """# How to annotate

Read the whole text first. Then mark every **argument that commits a fallacy**.

## Spans

- A span is a run of **whole sentences**: select the sentences that hold the argument.
- Give the span **all labels that fit** as alternatives; tick *no fallacy is also
  acceptable* when a careful reader could also see no fallacy there.
- Two different fallacies on the same sentences are **two spans**.

## Justification

1. Fill the template slots (E, P, C …) with words from the text.
2. Explain in one or two sentences why the label fits.

A text without any fallacy is submitted with no spans.
"""

DEMO_TEXTS = [
    (
        "demo-1",
        "My opponent wants to raise taxes on small businesses. But he has been divorced "
        "twice, so why should anyone trust his judgement on money? Everyone in this town "
        "knows the answer. Either we cut taxes now or our town will be a ghost town by "
        "next year.",
    ),
    (
        "demo-2",
        "Scientists at a famous university say this supplement works. I saw a celebrity "
        "recommend it on television too. It must be effective. Sales have doubled since "
        "March, which proves it.",
    ),
    (
        "demo-3",
        "We should invest in public libraries. They lend books for free. They also offer "
        "quiet study rooms and internet access to people who cannot afford it at home.",
    ),
]


def setup_django() -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    import django

    django.setup()


def has_load_demo() -> bool:
    return (ROOT / "annotations" / "management" / "commands" / "load_demo.py").exists()


def user(username: str, *, staff: bool = False):
    from django.contrib.auth import get_user_model

    User = get_user_model()
    u, created = User.objects.get_or_create(username=username, defaults={"is_staff": staff})
    if created:
        u.set_password(DEMO_PASSWORD)
        u.save()
    return u


def mafalda():
    from annotations.models import Taxonomy
    from annotations.services.taxonomy import install_preset

    return Taxonomy.objects.filter(name="mafalda").order_by("-id").first() or install_preset(
        name="mafalda"
    )


def ensure_demo() -> None:
    """``load_demo`` when another part of the platform provides it, else a small stand-in."""
    from annotations.models import Project
    from annotations.services.documents import NewDocument, add_documents, assign_documents
    from annotations.services.projects import add_member, create_project

    if has_load_demo():
        from django.core.management import call_command

        call_command("load_demo")
        return
    if Project.objects.filter(name="Demo project").exists():
        return
    admin = user("demo-admin", staff=True)
    reviewer = user("demo-reviewer")
    annotators = [user("demo-annotator"), user("demo-annotator2")]
    project = create_project(
        name="Demo project",
        taxonomy=mafalda(),
        guidelines=GUIDELINES,
        description="A few short political and advertising texts.",
    )
    add_member(project=project, user=admin, role="admin")
    add_member(project=project, user=reviewer, role="reviewer")
    add_documents(
        project=project, texts=[NewDocument(text=t, external_id=e) for e, t in DEMO_TEXTS]
    )
    for a in annotators:
        add_member(project=project, user=a, role="annotator")
        assign_documents(project=project, annotator=a)


WORDS = (
    "the council argued that every critic of the plan simply hates progress while "
    "experts from abroad insist our roads are safe because nobody has complained "
    "so far and if we allow one exception soon everyone will demand special treatment "
    "which shows that the proposal is either perfect or a disaster for the whole region"
).split()


def long_text(n_sentences: int = 50, target: int = 5000) -> tuple[str, list[tuple[int, int]]]:
    """About ``target`` characters in ``n_sentences`` sentences, paragraphs of five."""
    rng = random.Random(42)
    per = target // n_sentences
    parts: list[str] = []
    ranges: list[tuple[int, int]] = []
    pos = 0
    for i in range(n_sentences):
        words: list[str] = []
        while len(" ".join(words)) < per - 8:
            words.append(rng.choice(WORDS))
        sentence = " ".join(words).capitalize()
        sentence = (sentence + " " + rng.choice(WORDS))[: per - 1].rstrip() + "."
        sep = "" if i == 0 else ("\n\n" if i % 5 == 0 else " ")
        parts.append(sep + sentence)
        pos += len(sep)
        ranges.append((pos, pos + len(sentence)))
        pos += len(sentence)
    return "".join(parts), ranges


def ensure_long_document(n_spans: int = 50) -> dict:
    """A ~5,000-character document with ``n_spans`` overlapping spans, for one annotator."""
    from annotations.models import Annotation, Document, Project, TaxonomyNode
    from annotations.services.annotations import create_or_get_span, start_annotation
    from annotations.services.documents import NewDocument, add_documents, assign_documents
    from annotations.services.projects import add_member, create_project

    annotator = user(LONG_USER)
    project = Project.objects.filter(name=LONG_PROJECT).first()
    if project is None:
        project = create_project(
            name=LONG_PROJECT,
            taxonomy=mafalda(),
            guidelines=GUIDELINES,
            description="One long text with many overlapping spans (page-load benchmark).",
        )
        add_member(project=project, user=annotator, role="annotator")
        text, ranges = long_text()
        add_documents(
            project=project,
            texts=[NewDocument(text=text, external_id="long-5000", sentences=ranges)],
        )
        assign_documents(project=project, annotator=annotator)
    document = Document.objects.get(project=project, external_id="long-5000")
    annotation = start_annotation(document=document, annotator=annotator)
    if not annotation.spans.exists():
        rng = random.Random(7)
        types = list(
            TaxonomyNode.objects.filter(taxonomy=project.taxonomy, level=2).values_list(
                "name", "slots"
            )
        )
        sentences = list(document.sentences.order_by("index").values_list("start", "end"))
        for _ in range(n_spans):
            first = rng.randrange(len(sentences))
            last = min(len(sentences) - 1, first + rng.choice([0, 0, 1, 1, 2, 3]))
            chosen = rng.sample(types, rng.choice([1, 1, 2, 3]))
            labels = [name for name, _slots in chosen]
            details = {
                name: {
                    "slots": {s: f"{s.lower()} value" for s in slots[:1]},
                    "explanation": "Seeded for the benchmark.",
                }
                for name, slots in chosen[:1]
            }
            if rng.random() < 0.3:
                labels.append("no fallacy")
            create_or_get_span(
                annotation=annotation,
                start=sentences[first][0],
                end=sentences[last][1],
                labels=labels,
                details=details,
            )
    annotation = Annotation.objects.get(pk=annotation.pk)
    return {
        "project": project.pk,
        "document": document.pk,
        "annotation": annotation.pk,
        "chars": len(document.text),
        "sentences": document.sentences.count(),
        "spans": annotation.spans.count(),
        "username": LONG_USER,
        "password": DEMO_PASSWORD,
    }


def main(argv: list[str]) -> None:
    setup_django()
    out: dict = {"load_demo": has_load_demo()}
    if "--bench" not in argv:
        ensure_demo()
    out["long"] = ensure_long_document()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
