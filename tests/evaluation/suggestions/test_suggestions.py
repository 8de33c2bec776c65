"""Suggestions: a finished run's labels offered to annotators, who accept (a span of their
own) or reject them; assisted and unassisted projects; the report per run and label; and a
suggestion is never an annotation (agreement inputs and exports see accepted spans only).

Own small data: a MAFALDA-taxonomy project with two texts (three sentences), two imported
runs that disagree, two annotators with both texts in their queues.
"""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from annotations.models import Annotation, Project, Sentence, Span
from annotations.services.annotations import start_annotation, submit_annotation
from annotations.services.exports import export_doccano
from evaluation.agreement.data import project_work
from evaluation.models import ModelRun, Suggestion, SuggestionDecision
from evaluation.suggestions.reports import suggestion_report
from evaluation.suggestions.services import (
    DecisionConflict,
    accept_sentence,
    create_suggestions,
    decide_suggestion,
)
from tests.support.suggestions import (
    BASE,
    TEXT_A,
    TEXT_B,
    World,
    build_world,
    client_for,
    make,
    suggestion,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(tmp_path)


# --- creation ---------------------------------------------------------------------------


def test_one_suggestion_per_unit_with_a_fallacy_and_running_twice_creates_nothing(
    world: World,
) -> None:
    report = create_suggestions(project=world.project, runs=[world.run1, world.run2])
    assert report.created == {world.run1.pk: 2, world.run2.pk: 1}
    # ⊥ ("no fallacy", "none") and unparseable outputs suggest nothing
    assert report.no_fallacy == {world.run1.pk: 1, world.run2.pk: 2}
    s1 = Sentence.objects.get(document=world.doc_a, index=0)
    first = suggestion(world, world.run1, world.doc_a)
    assert (first.start, first.end, first.labels) == (s1.start, s1.end, ["ad hominem"])
    assert suggestion(world, world.run1, world.doc_b).labels == ["slippery slope"]
    again = create_suggestions(project=world.project, runs=[world.run1, world.run2])
    assert again.total_created == 0
    assert again.existing == {world.run1.pk: 2, world.run2.pk: 1}
    assert Suggestion.objects.count() == 3


def test_an_unfinished_run_is_refused_by_name_and_nothing_is_created(world: World) -> None:
    ModelRun.objects.filter(pk=world.run2.pk).update(status=ModelRun.Status.RUNNING)
    world.run2.refresh_from_db()
    with pytest.raises(ValidationError) as refused:
        create_suggestions(project=world.project, runs=[world.run1, world.run2])
    message = " ".join(refused.value.message_dict["runs"])
    assert "run 'run-two'" in message and "running, not done" in message
    assert not Suggestion.objects.exists()
    response = client_for(world.admin).post(
        f"{BASE}/projects/{world.project.pk}/suggestions/",
        {"runs": [world.run1.pk, world.run2.pk]},
        format="json",
    )
    assert response.status_code == 400
    assert "run 'run-two'" in response.json()["runs"][0]
    assert not Suggestion.objects.exists()


def test_an_archived_project_gets_no_new_suggestions(world: World) -> None:
    Project.objects.filter(pk=world.project.pk).update(archived_at=timezone.now())
    world.project.refresh_from_db()
    with pytest.raises(ValidationError) as refused:
        create_suggestions(project=world.project, runs=[world.run1])
    assert "archived" in refused.value.message_dict["project"][0]
    assert not Suggestion.objects.exists()


def test_creation_through_the_api_is_for_project_admins(world: World) -> None:
    url = f"{BASE}/projects/{world.project.pk}/suggestions/"
    body = {"runs": [world.run1.pk]}
    assert client_for(world.reviewer).post(url, body, format="json").status_code == 403
    assert client_for(world.ann1).post(url, body, format="json").status_code == 404
    assert client_for(world.outsider).post(url, body, format="json").status_code == 404
    assert client_for(None).post(url, body, format="json").status_code == 403
    unknown = client_for(world.admin).post(url, {"runs": [999999]}, format="json")
    assert unknown.status_code == 400 and "999999" in unknown.json()["runs"][0]
    created = client_for(world.admin).post(url, body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["created"] == 2
    assert created.json()["runs"][0]["name"] == "run-one"
    again = client_for(world.admin).post(url, body, format="json")
    assert again.status_code == 201 and again.json()["created"] == 0


# --- assisted / unassisted ----------------------------------------------------------------


def test_an_unassisted_project_serves_no_suggestion_to_annotators(world: World) -> None:
    make(world, assisted=False)
    url = f"{BASE}/documents/{world.doc_a.pk}/suggestions/"
    mine = client_for(world.ann1).get(url)
    assert mine.status_code == 200
    assert mine.json() == {"assisted": False, "suggestions": []}
    target = suggestion(world, world.run1, world.doc_a)
    decision = client_for(world.ann1).post(
        f"{BASE}/suggestions/{target.pk}/decision/", {"decision": "accept"}, format="json"
    )
    assert decision.status_code == 404
    assert not Span.objects.exists() and not SuggestionDecision.objects.exists()
    # reviewers and admins see them either way
    assert len(client_for(world.reviewer).get(url).json()["suggestions"]) == 2
    # the admin turns assistance on; the annotator sees them, named by their run
    settings_url = f"{BASE}/projects/{world.project.pk}/suggestions/settings/"
    assert client_for(world.reviewer).put(settings_url, {"assisted": True}).status_code == 403
    assert client_for(world.ann1).get(settings_url).json() == {
        "assisted": False,
        "ordering": "position",
    }
    turned = client_for(world.admin).put(settings_url, {"assisted": True}, format="json")
    assert turned.status_code == 200
    assert turned.json() == {"assisted": True, "ordering": "position"}
    shown = client_for(world.ann1).get(url).json()
    assert shown["assisted"] is True
    assert {s["run"]["name"] for s in shown["suggestions"]} == {"run-one", "run-two"}
    assert all(s["decision"] is None for s in shown["suggestions"])


def test_document_suggestions_follow_the_document_404_rules(world: World) -> None:
    make(world)
    url = f"{BASE}/documents/{world.doc_a.pk}/suggestions/"
    assert client_for(world.outsider).get(url).status_code == 404
    assert client_for(None).get(url).status_code == 403
    assert client_for(world.ann1).get(f"{BASE}/documents/999999/suggestions/").status_code == 404


# --- decisions ----------------------------------------------------------------------------


def test_accept_makes_the_annotators_own_span_through_the_span_service(world: World) -> None:
    make(world)
    target = suggestion(world, world.run1, world.doc_a)
    client = client_for(world.ann1)
    url = f"{BASE}/suggestions/{target.pk}/decision/"
    accepted = client.post(url, {"decision": "accept"}, format="json")
    assert accepted.status_code == 201, accepted.content
    span = Span.objects.get()
    assert accepted.json()["span"] == span.pk
    assert (span.start, span.end, span.labels, span.details) == (
        target.start,
        target.end,
        ["ad hominem"],
        {},
    )
    annotation = span.annotation
    assert annotation.annotator == world.ann1 and annotation.document == world.doc_a
    assert annotation.revision == 2  # bumped like any span write
    # the annotation API shows it as the annotator's own span, editable
    spans = client.get(f"/api/documents/{world.doc_a.pk}/annotations/").json()[0]["spans"]
    assert [(s["id"], s["labels"]) for s in spans] == [(span.pk, ["ad hominem"])]
    # the same decision again: idempotent
    again = client.post(url, {"decision": "accept"}, format="json")
    assert again.status_code == 200 and again.json()["span"] == span.pk
    assert Span.objects.count() == 1 and SuggestionDecision.objects.count() == 1
    # the other decision: a conflict, with the stored one
    conflict = client.post(url, {"decision": "reject"}, format="json")
    assert conflict.status_code == 409
    assert conflict.json()["current"]["decision"] == "accept"
    mine = client.get(f"{BASE}/documents/{world.doc_a.pk}/suggestions/").json()["suggestions"]
    assert {(s["id"], s["decision"]) for s in mine} == {
        (target.pk, "accept"),
        (suggestion(world, world.run2, world.doc_a).pk, None),
    }


def test_reject_records_the_decision_only(world: World) -> None:
    make(world)
    target = suggestion(world, world.run1, world.doc_b)
    decided, created = decide_suggestion(suggestion=target, annotator=world.ann1, decision="reject")
    assert created and decided.span_id is None and decided.decided_at is not None
    assert not Span.objects.exists() and not Annotation.objects.exists()
    again, created = decide_suggestion(suggestion=target, annotator=world.ann1, decision="reject")
    assert not created and again.pk == decided.pk
    with pytest.raises(DecisionConflict):
        decide_suggestion(suggestion=target, annotator=world.ann1, decision="accept")
    # another annotator decides on their own
    other, created = decide_suggestion(suggestion=target, annotator=world.ann2, decision="accept")
    assert created and Span.objects.get(pk=other.span_id).annotation.annotator == world.ann2


def test_deciding_outside_the_queue_or_on_a_submitted_annotation(world: World) -> None:
    make(world)
    target = suggestion(world, world.run1, world.doc_a)
    for user in (world.reviewer, world.outsider):  # no document in their queue
        response = client_for(user).post(
            f"{BASE}/suggestions/{target.pk}/decision/", {"decision": "accept"}, format="json"
        )
        assert response.status_code == 404
    bad = client_for(world.ann1).post(
        f"{BASE}/suggestions/{target.pk}/decision/", {"decision": "maybe"}, format="json"
    )
    assert bad.status_code == 400 and "decision" in bad.json()
    annotation = start_annotation(document=world.doc_a, annotator=world.ann1)
    submit_annotation(annotation=annotation, by=world.ann1)
    read_only = client_for(world.ann1).post(
        f"{BASE}/suggestions/{target.pk}/decision/", {"decision": "accept"}, format="json"
    )
    assert read_only.status_code == 400
    assert not SuggestionDecision.objects.exists()


def test_accept_all_on_a_sentence_gives_one_span_for_identical_suggestions(world: World) -> None:
    make(world)
    client = client_for(world.ann1)
    url = f"{BASE}/documents/{world.doc_a.pk}/suggestions/accept-sentence/"
    response = client.post(url, {"unit_index": 0}, format="json")
    assert response.status_code == 200, response.content
    decisions = response.json()["decisions"]
    assert len(decisions) == 2  # both runs suggested "ad hominem" on S1
    assert len({d["span"] for d in decisions}) == 1
    assert Span.objects.count() == 1
    assert client.post(url, {"unit_index": 0}, format="json").json() == {"decisions": []}
    missing = client.post(url, {"unit_index": 7}, format="json")
    assert missing.status_code == 400 and "no sentence 7" in missing.json()["unit_index"][0]
    assert client_for(world.outsider).post(url, {"unit_index": 0}).status_code == 404
    with pytest.raises(Suggestion.DoesNotExist):
        accept_sentence(document=world.doc_a, unit_index=0, annotator=world.reviewer)


# --- report ---------------------------------------------------------------------------------


def test_report_per_run_and_label(world: World) -> None:
    make(world)
    a1 = suggestion(world, world.run1, world.doc_a)
    b1 = suggestion(world, world.run1, world.doc_b)
    decide_suggestion(suggestion=a1, annotator=world.ann1, decision="accept")
    decide_suggestion(suggestion=a1, annotator=world.ann2, decision="reject")
    decide_suggestion(suggestion=b1, annotator=world.ann1, decision="reject")
    rows = {(r["run_name"], r["label"]): r for r in suggestion_report(world.project)}
    assert rows[("run-one", "ad hominem")] | {} == {
        "run": world.run1.pk,
        "run_name": "run-one",
        "label": "ad hominem",
        "suggestions": 1,
        "accepted": 1,
        "rejected": 1,
        "acceptance_rate": 0.5,
    }
    assert rows[("run-one", "slippery slope")]["acceptance_rate"] == 0.0
    assert rows[("run-two", "ad hominem")]["acceptance_rate"] is None
    url = f"{BASE}/projects/{world.project.pk}/suggestions/report/"
    assert client_for(world.ann1).get(url).status_code == 404
    api = client_for(world.reviewer).get(url)
    assert api.status_code == 200 and len(api.json()["rows"]) == 3


# --- never an annotation --------------------------------------------------------------------


def test_only_accepted_suggestions_reach_agreement_inputs_and_exports(world: World) -> None:
    make(world)
    accepted = suggestion(world, world.run1, world.doc_a)
    rejected = suggestion(world, world.run1, world.doc_b)
    decide_suggestion(suggestion=accepted, annotator=world.ann1, decision="accept")
    decide_suggestion(suggestion=rejected, annotator=world.ann1, decision="reject")
    # ann2 decides nothing: every suggestion stays undecided for them
    for user in (world.ann1, world.ann2):
        for document in (world.doc_a, world.doc_b):
            annotation = start_annotation(document=document, annotator=user)
            submit_annotation(annotation=annotation, by=user)
    work = {d.id: d for d in project_work(world.project).documents}
    assert work[world.doc_a.pk].spans == {
        world.ann1.pk: [(accepted.start, accepted.end, ("ad hominem",))],
        world.ann2.pk: [],
    }
    assert work[world.doc_b.pk].spans == {world.ann1.pk: [], world.ann2.pk: []}
    for user, expected in ((world.ann1, {TEXT_A: 1, TEXT_B: 0}), (world.ann2, {TEXT_A: 0})):
        out = io.StringIO()
        export_doccano(project=world.project, annotator=user, out=out)
        records = {r["text"]: r["label"] for r in map(json.loads, out.getvalue().splitlines())}
        for text, count in expected.items():
            assert len(records[text]) == count, (user, text, records[text])
    # the spans are exactly the accepted suggestion: nothing else became an annotation
    assert list(Span.objects.values_list("annotation__annotator", "start", "end")) == [
        (world.ann1.pk, accepted.start, accepted.end)
    ]


# --- real concurrency (PostgreSQL) --------------------------------------------------------


def _race(world: World, target: Suggestion, decisions: list[str]) -> list[tuple[int, str]]:
    clients = [client_for(world.ann1) for _ in decisions]
    barrier = threading.Barrier(len(decisions))
    results: list[tuple[int, str]] = []

    def decide(i: int) -> None:
        try:
            barrier.wait()
            response = clients[i].post(
                f"{BASE}/suggestions/{target.pk}/decision/",
                {"decision": decisions[i]},
                format="json",
            )
            results.append((response.status_code, decisions[i]))
        finally:
            connection.close()

    threads = [threading.Thread(target=decide, args=(i,)) for i in range(len(decisions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


POSTGRES_ONLY = pytest.mark.skipif(
    settings.DATABASE_VENDOR != "postgresql",
    reason="needs PostgreSQL row locks",
)


@POSTGRES_ONLY
@pytest.mark.django_db(transaction=True)
def test_concurrent_identical_accepts_make_one_decision_and_one_span(world: World) -> None:
    make(world)
    target = suggestion(world, world.run1, world.doc_a)
    results = _race(world, target, ["accept", "accept"])
    assert sorted(code for code, _ in results) == [200, 201]
    assert SuggestionDecision.objects.count() == 1 and Span.objects.count() == 1


@POSTGRES_ONLY
@pytest.mark.django_db(transaction=True)
def test_concurrent_conflicting_decisions_one_wins_one_conflicts(world: World) -> None:
    make(world)
    target = suggestion(world, world.run1, world.doc_a)
    results = _race(world, target, ["accept", "reject"])
    assert sorted(code for code, _ in results) == [201, 409]
    winner = next(decision for code, decision in results if code == 201)
    stored = SuggestionDecision.objects.get()
    assert stored.decision == winner
    assert Span.objects.count() == (1 if winner == "accept" else 0)


def test_an_accepted_span_is_the_annotators_to_edit_or_delete(world: World) -> None:
    make(world)
    target = suggestion(world, world.run1, world.doc_a)
    decided, _ = decide_suggestion(suggestion=target, annotator=world.ann1, decision="accept")
    span = Span.objects.get(pk=decided.span_id)
    client = client_for(world.ann1)
    edited = client.patch(
        f"/api/spans/{span.pk}/",
        {"revision": span.revision, "labels": ["ad hominem", "no fallacy"]},
        format="json",
    )
    assert edited.status_code == 200, edited.content
    deleted = client.delete(f"/api/spans/{span.pk}/?revision={edited.json()['revision']}")
    assert deleted.status_code == 204, deleted.content
    # the decision stays recorded, naming the span it made
    assert SuggestionDecision.objects.get().span_id == span.pk
    assert not Span.objects.exists()
