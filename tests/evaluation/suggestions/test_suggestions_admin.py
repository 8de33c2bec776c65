"""Suggestions, the admin side: the queue ordering option (documents where the suggesting
runs disagree first: the annotators' next document and their list's default order, read
from a score stored when suggestions are made), and the report's time per document with
and without suggestions shown.

Data: the world of ``tests.support.suggestions``: text A (S1: both runs "ad hominem"; S2:
run-one unparseable, run-two "no fallacy": they agree, neither suggests) and text B
(run-one "slippery slope", run-two "none": they disagree), both in a1's and a2's queues.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotations.models import Annotation
from annotations.services.annotations import start_annotation, submit_annotation
from evaluation.models import DocumentDisagreement, SuggestionSettings, SuggestionShown
from evaluation.suggestions.reports import TIMING_MEASURE, suggestion_timing
from evaluation.suggestions.services import create_suggestions, set_assisted, set_ordering
from tests.support.suggestions import BASE, World, build_world, client_for, make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(tmp_path)


def scores(world: World) -> dict[int, tuple[int, int]]:
    return {
        d.document_id: (d.score, d.runs)
        for d in DocumentDisagreement.objects.filter(document__project=world.project)
    }


def next_document(world: World, user) -> int | None:  # type: ignore[no-untyped-def]
    response = client_for(user).get(f"/api/projects/{world.project.pk}/next-document/")
    assert response.status_code == 200
    return response.json()["document"]


def listed(world: World, user, **params) -> list[int]:  # type: ignore[no-untyped-def]
    response = client_for(user).get(f"/api/projects/{world.project.pk}/documents/", params)
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


# --- the stored disagreement ----------------------------------------------------------------


def test_disagreement_is_stored_per_document_when_suggestions_are_made(world: World) -> None:
    create_suggestions(project=world.project, runs=[world.run1])
    assert scores(world) == {}  # one run never disagrees with itself
    # a later call with the other run compares it with the runs made into suggestions before
    create_suggestions(project=world.project, runs=[world.run2])
    # text B: run-one suggests slippery slope, run-two nothing; text A: they agree
    assert scores(world) == {world.doc_b.pk: (1, 2)}
    runs = SuggestionSettings.objects.get(project=world.project).runs.all()
    assert set(runs) == {world.run1, world.run2}
    create_suggestions(project=world.project, runs=[world.run1, world.run2])  # idempotent
    assert scores(world) == {world.doc_b.pk: (1, 2)}


def test_different_label_sets_on_one_sentence_disagree(world: World) -> None:
    make(world)
    # run-two's suggestion on S1 of text A now names another type than run-one's
    world.run2.suggestions.filter(document=world.doc_a).update(labels=["straw man"])
    from evaluation.suggestions.services import update_disagreement

    update_disagreement(world.project)
    assert scores(world) == {world.doc_a.pk: (1, 2), world.doc_b.pk: (1, 2)}


# --- the queue ------------------------------------------------------------------------------


def test_the_queue_puts_documents_where_runs_disagree_first(world: World) -> None:
    make(world)
    # project order by default: text A first
    assert next_document(world, world.ann1) == world.doc_a.pk
    assert listed(world, world.ann1) == [world.doc_a.pk, world.doc_b.pk]
    set_ordering(project=world.project, ordering="disagreement", by=world.admin)
    assert next_document(world, world.ann1) == world.doc_b.pk
    assert listed(world, world.ann1) == [world.doc_b.pk, world.doc_a.pk]
    # an explicit order still wins; staff lists keep the project order by default
    assert listed(world, world.ann1, ordering="position") == [world.doc_a.pk, world.doc_b.pk]
    assert listed(world, world.ann1, ordering="-disagreement") == [world.doc_a.pk, world.doc_b.pk]
    assert listed(world, world.admin) == [world.doc_a.pk, world.doc_b.pk]
    assert listed(world, world.admin, ordering="disagreement") == [world.doc_b.pk, world.doc_a.pk]
    # once text B is submitted, text A is next
    submit_annotation(
        annotation=start_annotation(document=world.doc_b, annotator=world.ann1), by=world.ann1
    )
    assert next_document(world, world.ann1) == world.doc_a.pk
    assert next_document(world, world.ann2) == world.doc_b.pk


def test_previous_and_next_document_follow_the_disagreement_queue(world: World) -> None:
    make(world)
    set_ordering(project=world.project, ordering="disagreement", by=world.admin)

    def around(user, doc) -> tuple:  # type: ignore[no-untyped-def]
        body = client_for(user).get(f"/api/documents/{doc.pk}/neighbours/").json()
        return tuple(body[k] and body[k]["id"] for k in ("previous", "next"))

    # text B (the runs disagree) comes first for annotators, submitted or not
    assert around(world.ann1, world.doc_b) == (None, world.doc_a.pk)
    assert around(world.ann1, world.doc_a) == (world.doc_b.pk, None)
    submit_annotation(
        annotation=start_annotation(document=world.doc_b, annotator=world.ann1), by=world.ann1
    )
    assert around(world.ann1, world.doc_a) == (world.doc_b.pk, None)
    # staff read the project in project order
    assert around(world.admin, world.doc_a) == (None, world.doc_b.pk)


def test_ordering_the_queue_reads_the_stored_score_not_the_suggestions(world: World) -> None:
    make(world)
    set_ordering(project=world.project, ordering="disagreement")
    with CaptureQueriesContext(connection) as queries:
        assert next_document(world, world.ann1) == world.doc_b.pk
        assert listed(world, world.ann1)[0] == world.doc_b.pk
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert "evaluation_documentdisagreement" in sql
    assert '"evaluation_suggestion"' not in sql and "evaluation_runoutput" not in sql


def test_ordering_setting_through_the_api(world: World) -> None:
    url = f"{BASE}/projects/{world.project.pk}/suggestions/settings/"
    assert client_for(world.ann1).get(url).json() == {"assisted": False, "ordering": "position"}
    body = {"ordering": "disagreement"}
    assert client_for(world.reviewer).put(url, body, format="json").status_code == 403
    assert client_for(world.outsider).put(url, body, format="json").status_code == 404
    bad = client_for(world.admin).put(url, {"ordering": "random"}, format="json")
    assert bad.status_code == 400 and "ordering" in bad.json()
    unchanged = client_for(world.admin).put(url, {}, format="json")
    assert unchanged.status_code == 200
    assert unchanged.json() == {"assisted": False, "ordering": "position"}
    changed = client_for(world.admin).put(url, body, format="json")
    assert changed.status_code == 200
    assert changed.json() == {"assisted": False, "ordering": "disagreement"}
    both = client_for(world.admin).put(
        url, {"assisted": True, "ordering": "position"}, format="json"
    )
    assert both.json() == {"assisted": True, "ordering": "position"}
    # turning assistance off keeps the order
    set_ordering(project=world.project, ordering="disagreement")
    set_assisted(project=world.project, assisted=False)
    assert client_for(world.ann2).get(url).json() == {
        "assisted": False,
        "ordering": "disagreement",
    }


# --- time per document with and without suggestions ---------------------------------------


def _timed(world: World, user, document, seconds: int, start) -> Annotation:  # type: ignore[no-untyped-def]
    annotation = start_annotation(document=document, annotator=user)
    submit_annotation(annotation=annotation, by=user)
    Annotation.objects.filter(pk=annotation.pk).update(
        created_at=start, submitted_at=start + timedelta(seconds=seconds)
    )
    return annotation


def test_report_time_per_document_with_and_without_suggestions(world: World) -> None:
    make(world)  # assisted
    t0 = timezone.now() - timedelta(hours=1)
    # a1 is served the suggestions of text A (recorded); the reviewer and an unassigned
    # view are not recorded
    url_a = f"{BASE}/documents/{world.doc_a.pk}/suggestions/"
    assert len(client_for(world.ann1).get(url_a).json()["suggestions"]) == 2
    client_for(world.reviewer).get(url_a)
    assert list(SuggestionShown.objects.values_list("document", "annotator")) == [
        (world.doc_a.pk, world.ann1.pk)
    ]
    SuggestionShown.objects.update(shown_at=t0 + timedelta(seconds=5))
    _timed(world, world.ann1, world.doc_a, 100, t0)  # with suggestions
    _timed(world, world.ann1, world.doc_b, 40, t0)  # without: never served
    _timed(world, world.ann2, world.doc_a, 60, t0)  # without: served only after submitting
    client_for(world.ann2).get(url_a)
    timing = suggestion_timing(world.project)
    assert timing["measure"] == TIMING_MEASURE
    assert timing["with_suggestions"] == {
        "annotations": 1,
        "mean_seconds": 100.0,
        "median_seconds": 100.0,
    }
    assert timing["without_suggestions"] == {
        "annotations": 2,
        "mean_seconds": 50.0,
        "median_seconds": 50.0,
    }
    assert [(r["run_name"], r["annotations"], r["mean_seconds"]) for r in timing["runs"]] == [
        ("run-one", 1, 100.0),
        ("run-two", 1, 100.0),
    ]
    # an in-progress annotation is not measured
    start_annotation(document=world.doc_b, annotator=world.ann2)
    assert suggestion_timing(world.project)["without_suggestions"]["annotations"] == 2
    report = client_for(world.reviewer).get(
        f"{BASE}/projects/{world.project.pk}/suggestions/report/"
    )
    assert report.status_code == 200
    assert report.json()["timing"]["with_suggestions"]["mean_seconds"] == 100.0
    assert "first saved change" in report.json()["timing"]["measure"]


def test_an_unassisted_project_records_no_suggestion_shown(world: World) -> None:
    make(world, assisted=False)
    client_for(world.ann1).get(f"{BASE}/documents/{world.doc_a.pk}/suggestions/")
    assert not SuggestionShown.objects.exists()
    timing = suggestion_timing(world.project)
    assert timing["with_suggestions"] == {
        "annotations": 0,
        "mean_seconds": None,
        "median_seconds": None,
    }
    assert timing["runs"] == []
