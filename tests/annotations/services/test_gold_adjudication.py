"""Adjudication: proposals, the gold draft, revisions and conflicts, a document's history,
and an archived project's gold. Publishing and exports of a version:
test_gold_publishing.py; the adjudication queue: test_adjudication_queue.py."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.utils import timezone

from annotations.adjudication import AnnotatorSpan, proposals
from annotations.labels import NO_FALLACY
from annotations.models import ADJUDICATION, GoldDocument, GoldSpan, GoldStandard, Span
from annotations.services.gold import GoldConflict, save_document_gold
from tests.support.adjudication import S0, adjudication_world, client, url
from tests.support.factories import World, make_world


@pytest.fixture
def world(db: None) -> World:
    return adjudication_world()


def test_proposals_unite_labels_and_propose_no_fallacy_where_someone_was_silent() -> None:
    bounds = [(0, 10), (11, 20), (21, 30)]
    spans = [
        AnnotatorSpan(1, 0, 10, ("ad hominem",)),
        AnnotatorSpan(2, 3, 15, ("slippery slope",)),
        AnnotatorSpan(1, 21, 30, ("ad populum",)),
        AnnotatorSpan(2, 21, 30, ("ad populum",)),
    ]
    first, second = proposals(bounds, spans, [1, 2])
    assert (first["start"], first["end"]) == (0, 20)  # snapped outward to sentences
    assert first["labels"] == ["ad hominem", "slippery slope"]
    assert first["proposed_by"] == {"ad hominem": [1], "slippery slope": [2]}
    assert not first["unanimous"]
    assert second["labels"] == ["ad populum"] and second["unanimous"]
    silent = proposals(bounds, [AnnotatorSpan(1, 21, 30, ("ad populum",))], [1, 2])[0]
    assert silent["labels"] == ["ad populum", NO_FALLACY]
    assert silent["proposed_by"][NO_FALLACY] == [2]


def test_the_adjudication_page_data(world: World) -> None:
    data = client(world.reviewer).get(url(world)).json()
    assert [a["username"] for a in data["annotators"]] == ["ann1", "ann2"]
    assert data["document"]["sentences"][0] == list(S0)
    assert data["draft"] is None and data["gold"]["revision"] == 0
    types = [t["name"] for c in data["labels"]["categories"] for t in c["types"]]
    assert "ad hominem" in types  # the taxonomy, as the annotation page gets it
    first = data["proposals"][0]
    assert first["labels"] == ["ad hominem", "slippery slope"]
    assert first["proposed_by"] == {
        "ad hominem": [world.ann1.pk],
        "slippery slope": [world.ann2.pk],
    }
    # ann2 said nothing on the third sentence: no fallacy is proposed there, by ann2
    third = data["proposals"][1]
    assert third["labels"] == [NO_FALLACY, "slippery slope"]
    assert third["proposed_by"][NO_FALLACY] == [world.ann2.pk]


def test_saving_creates_the_draft_snaps_and_validates(world: World) -> None:
    reviewer = client(world.reviewer)
    bad = reviewer.put(
        url(world),
        {
            "revision": 0,
            "spans": [
                {"start": 0, "end": 5, "labels": ["not a fallacy type"]},
                {"start": 2, "end": 4, "labels": [NO_FALLACY]},
            ],
        },
        format="json",
    )
    assert bad.status_code == 400
    assert set(bad.json()) == {"spans[0].labels", "spans[1].labels"}
    assert not GoldStandard.objects.filter(source=ADJUDICATION).exists()  # nothing written
    saved = reviewer.put(
        url(world),
        {
            "revision": 0,
            "spans": [
                {
                    "start": S0[0] + 3,
                    "end": S0[1] - 2,
                    "labels": ["Ad Hominem", "slippery slope", "none"],
                    "details": {"ad hominem": {"slots": {"E": "Smith"}, "explanation": "why"}},
                    "proposed_by": {"ad hominem": [world.ann1.pk]},
                }
            ],
        },
        format="json",
    )
    assert saved.status_code == 200, saved.content
    gold = saved.json()
    assert gold["revision"] == 1 and gold["adjudicated"]
    (span,) = gold["spans"]
    assert (span["start"], span["end"]) == S0  # whole sentence
    assert span["labels"] == ["ad hominem", NO_FALLACY, "slippery slope"]
    assert span["details"]["ad hominem"]["slots"] == {"E": "Smith"}
    assert span["proposed_by"] == {"ad hominem": [world.ann1.pk]}
    draft = GoldStandard.objects.get(project=world.p1, source=ADJUDICATION)
    assert draft.status == "draft" and draft.version == 2  # after the world's version 1


def test_a_stale_save_is_a_conflict_with_the_current_state_and_loses_nothing(world) -> None:
    first, second = client(world.reviewer), client(world.admin)
    span = {"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}
    assert first.put(url(world), {"revision": 0, "spans": [span]}, format="json").status_code == 200
    stale = second.put(
        url(world),
        {"revision": 0, "spans": [{**span, "labels": ["slippery slope"]}]},
        format="json",
    )
    assert stale.status_code == 409
    assert stale.json()["current"]["revision"] == 1
    assert stale.json()["current"]["spans"][0]["labels"] == ["ad hominem"]
    # re-applied on top of the current revision
    again = second.put(
        url(world),
        {"revision": 1, "spans": [{**span, "labels": ["ad hominem", "slippery slope"]}]},
        format="json",
    )
    assert again.status_code == 200 and again.json()["revision"] == 2
    labels = GoldSpan.objects.filter(document=world.d1, gold_standard__source=ADJUDICATION)
    assert [s.labels for s in labels] == [["ad hominem", "slippery slope"]]


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_first_saves_never_both_win() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    world = make_world()
    results: list[str] = []
    barrier = threading.Barrier(2)

    def save(labels: list[str], user) -> None:
        from django.db import connection as thread_connection

        barrier.wait()
        try:
            save_document_gold(
                document=world.d1,
                revision=0,
                spans=[{"start": S0[0], "end": S0[1], "labels": labels}],
                by=user,
            )
            results.append("saved")
        except GoldConflict:
            results.append("conflict")
        finally:
            thread_connection.close()

    threads = [
        threading.Thread(target=save, args=(["ad hominem"], world.reviewer)),
        threading.Thread(target=save, args=(["slippery slope"], world.admin)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict", "saved"]
    assert GoldStandard.objects.filter(project=world.p1, source=ADJUDICATION).count() == 1
    assert (
        GoldDocument.objects.get(document=world.d1, gold_standard__source=ADJUDICATION).revision
        == 1
    )


def test_history_records_who_changed_annotations_and_the_gold(world) -> None:
    reviewer = client(world.reviewer)
    span = Span.objects.filter(annotation=world.a1).first()
    span.labels = ["ad hominem", NO_FALLACY]
    span.save()
    reviewer.put(
        url(world),
        {"revision": 0, "spans": [{"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}]},
        format="json",
    )
    reviewer.put(
        url(world),
        {"revision": 1, "spans": [{"start": S0[0], "end": S0[1], "labels": ["slippery slope"]}]},
        format="json",
    )
    history = reviewer.get(f"/api/documents/{world.d1.pk}/history/").json()["results"]
    gold_changes = [e for e in history if e["kind"] == "gold_span" and e["action"] == "changed"]
    assert gold_changes and gold_changes[0]["user"] == "reviewer"
    assert {
        "field": "labels",
        "before": ["ad hominem"],
        "after": ["slippery slope"],
    } in gold_changes[0]["changes"]
    assert gold_changes[0]["owner"].startswith("gold v2")
    span_changes = [e for e in history if e["kind"] == "span" and e["action"] == "changed"]
    assert span_changes[0]["owner"] == "annotator ann1"
    assert [e["at"] for e in history] == sorted((e["at"] for e in history), reverse=True)
    assert client(world.ann1).get(f"/api/documents/{world.d1.pk}/history/").status_code == 404


def test_spans_in_one_sentence_give_one_proposal_even_without_overlapping() -> None:
    # ann 1 and ann 2 marked different words of the first sentence: both labelled it
    bounds = [(0, 30), (31, 60)]
    spans = [AnnotatorSpan(1, 0, 5, ("ad hominem",)), AnnotatorSpan(2, 10, 20, ("slippery slope",))]
    (only,) = proposals(bounds, spans, [1, 2])
    assert (only["start"], only["end"]) == (0, 30)
    assert only["proposed_by"] == {"ad hominem": [1], "slippery slope": [2]}  # no ⊥: nobody silent


def test_an_archived_projects_gold_is_read_only(world) -> None:
    reviewer = client(world.reviewer)
    span = {"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}
    assert (
        reviewer.put(url(world), {"revision": 0, "spans": [span]}, format="json").status_code == 200
    )
    world.p1.archived_at = timezone.now()
    world.p1.save()
    refused = reviewer.put(url(world), {"revision": 1, "spans": []}, format="json")
    assert refused.status_code == 400 and "archived" in refused.json()["project"][0]
    publish = reviewer.post(f"/api/projects/{world.p1.pk}/gold/publish/", {"note": "n"}, "json")
    assert publish.status_code == 400 and "archived" in publish.json()["detail"]
    assert GoldSpan.objects.filter(gold_standard__source=ADJUDICATION).count() == 1
