"""The Label Studio project whose exports the Label Studio tests import: four texts, a
labeling config of ours, annotations by two Label Studio users (parts of sentences, whole
sentences, several labels on one region) and one prediction; and what importing its export
must give (spans snapped to sentences, the snapping report's figures).

``make_label_studio_project`` builds it in a running Label Studio (tests.support.label_studio);
tests/support/fixtures/label_studio/ holds that server's two exports of it.
"""

from __future__ import annotations

from typing import Any

from annotations.labels import NO_FALLACY
from tests.support.label_studio import LabelStudio

T1 = (
    "Vaccines are dangerous. My neighbour got sick after his shot. "
    "Everyone knows the government lies about everything. So we should ban them."
)
T2 = "You can't trust Smith on climate. He was divorced twice! His claims about the ice are false."
T3 = "If we allow same-day delivery, soon nobody will leave the house. Then all shops will close."
T4 = (
    "My opponent wants to raise taxes. He is a socialist, so his plan is wrong. "
    "We must choose: lower taxes or ruin."
)
MODEL_VERSION = "fallacy-bert-v1"


def result(text: str, quote: str, labels: list[str], region_id: str) -> dict[str, Any]:
    start = text.index(quote)
    value = {"start": start, "end": start + len(quote), "text": quote, "labels": labels}
    return {
        "id": region_id, "from_name": "label", "to_name": "text", "type": "labels",
        "origin": "manual", "value": value,
    }  # fmt: skip


#: Per text: (annotator: "admin" or "bob", quote, labels); the quotes are parts of sentences
#: (snapped to the sentence) or whole sentences (kept).
LABELLED = {
    T1: [
        ("admin", "got sick after his shot", ["false causality"]),
        ("admin", "Everyone knows the government", ["ad populum", "appeal to (false) authority"]),
        ("bob", "My neighbour got sick after his shot.", ["hasty generalization"]),
    ],
    T2: [
        ("admin", "He was divorced twice!", ["ad hominem"]),
        ("bob", "divorced twice", ["ad hominem", NO_FALLACY]),
    ],
    T3: [("bob", "soon nobody will leave the house", ["slippery slope"])],
    T4: [("admin", "He is a socialist", ["ad hominem"])],
}
PREDICTED = {T1: ("after his shot", ["false causality"])}


def make_label_studio_project(label_studio: LabelStudio, config: str) -> int:
    """A Label Studio project with our labeling config, the four texts, annotations by its
    admin and by a second user (made through its API) and one prediction."""
    bob = label_studio.create_user("bob@example.org", "Bob")
    users = {"admin": label_studio.whoami()["id"], "bob": bob["id"]}
    project = label_studio.create_project("From Label Studio", config)
    label_studio.import_tasks(project, [{"data": {"text": text}} for text in LABELLED])
    ids = {t["data"]["text"]: t["id"] for t in label_studio.tasks(project)}
    for text, labelled in LABELLED.items():
        for who in ("admin", "bob"):
            mine = [(quote, labels) for user, quote, labels in labelled if user == who]
            if not mine:
                continue
            made = [result(text, q, labels, f"{who}{i}") for i, (q, labels) in enumerate(mine)]
            body = {"result": made, "completed_by": users[who], "lead_time": 12.5}
            label_studio.call("POST", f"/api/tasks/{ids[text]}/annotations/", json=body)
    for text, (quote, labels) in PREDICTED.items():
        body = {
            "task": ids[text], "model_version": MODEL_VERSION, "score": 0.8,
            "result": [result(text, quote, labels, "p0")],
        }  # fmt: skip
        label_studio.call("POST", "/api/predictions/", json=body)
    return project


def sentence_of(text: str, quote: str) -> tuple[int, int]:
    """The sentence (ending at '.', '!' or '?') that holds ``quote``."""
    start = text.index(quote)
    begin = max(text.rfind(mark, 0, start) for mark in ".!?")
    begin = 0 if begin < 0 else begin + 2
    ends = [e for e in (text.find(mark, start) for mark in ".!?") if e >= 0]
    return begin, min(ends) + 1


def expected_spans() -> dict[tuple[str, str], set[tuple[int, int, tuple[str, ...]]]]:
    """(annotator, text) -> the spans after snapping to sentences."""
    found: dict[tuple[str, str], set[tuple[int, int, tuple[str, ...]]]] = {}
    for text, labelled in LABELLED.items():
        for who, quote, labels in labelled:
            span = (*sentence_of(text, quote), tuple(sorted(labels)))
            found.setdefault((who, text), set()).add(span)
    return found


def snapping(*, with_prediction: bool) -> tuple[int, int, int]:
    """(regions moved by snapping, characters added, regions), the prediction's too."""
    quotes = [(text, quote) for text, labelled in LABELLED.items() for _, quote, _ in labelled]
    if with_prediction:
        quotes += [(text, quote) for text, (quote, _) in PREDICTED.items()]
    moved = chars = 0
    for text, quote in quotes:
        start, end = sentence_of(text, quote)
        added = (end - start) - len(quote)
        moved, chars = moved + bool(added), chars + added
    return moved, chars, len(quotes)


def imported_spans(project: Any) -> dict[tuple[str, str], set[tuple]]:
    """(username, text) -> the spans of that annotator's annotation, of ``project``."""
    from annotations.models import Annotation

    found: dict[tuple[str, str], set[tuple]] = {}
    for annotation in Annotation.objects.filter(document__project=project).select_related(
        "annotator", "document"
    ):
        key = (annotation.annotator.get_username(), annotation.document.text)
        found[key] = {(s.start, s.end, tuple(s.labels)) for s in annotation.spans.all()}
    return found


def by_content(spans: dict[tuple[str, str], set[tuple]]) -> dict[str, list]:
    """Per text, the annotators' span sets, whoever holds them."""
    found: dict[str, list] = {}
    for (_, text), content in spans.items():
        found.setdefault(text, []).append(sorted(content))
    return {text: sorted(sets) for text, sets in found.items()}


def explained(project: Any) -> dict[tuple, dict]:
    """(username, text, start, *labels) -> the details of each span of ``project`` that has
    them (explanations)."""
    from annotations.models import Span

    spans = Span.objects.filter(annotation__document__project=project).exclude(details={})
    return {
        (
            s.annotation.annotator.get_username(),
            s.annotation.document.text,
            s.start,
            *sorted(s.labels),
        ): s.details
        for s in spans.select_related("annotation__annotator", "annotation__document")
    }
