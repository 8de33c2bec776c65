"""Adjudication: proposals, the gold draft, revisions and conflicts, publishing and diffs,
exports of a version, and a document's history."""

from __future__ import annotations

import io
import json
import threading

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.adjudication import AnnotatorSpan, proposals
from annotations.labels import NO_FALLACY
from annotations.models import (
    ADJUDICATION,
    Annotation,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Span,
)
from annotations.services.gold import GoldConflict, publish_draft, save_document_gold
from tests.support.factories import BOUNDS, World, make_world

S0, S1, S2 = BOUNDS[0], BOUNDS[1], BOUNDS[2]


@pytest.fixture
def world(db: None) -> World:
    world = make_world()
    Span.objects.create(annotation=world.a1, start=S0[0], end=S0[1], labels=["ad hominem"])
    Span.objects.create(annotation=world.a2, start=S0[0], end=S1[1], labels=["slippery slope"])
    Span.objects.create(annotation=world.a1, start=S2[0], end=S2[1], labels=["slippery slope"])
    Annotation.objects.filter(pk__in=[world.a1.pk, world.a2.pk]).update(
        status="submitted", submitted_at=timezone.now()
    )
    return world


def client(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def url(world: World) -> str:
    return f"/api/documents/{world.d1.pk}/adjudication/"


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


def test_publish_numbers_records_and_diffs_then_a_new_draft_starts_from_it(world) -> None:
    reviewer = client(world.reviewer)
    span = {"start": S0[0], "end": S0[1], "labels": ["ad hominem", "slippery slope"]}
    reviewer.put(url(world), {"revision": 0, "spans": [span]}, format="json")
    assert (
        reviewer.post(
            f"/api/projects/{world.p1.pk}/gold/publish/", {"note": ""}, format="json"
        ).status_code
        == 400
    )  # a note is required
    published = reviewer.post(
        f"/api/projects/{world.p1.pk}/gold/publish/", {"note": "first round"}, format="json"
    )
    assert published.status_code == 201
    body = published.json()
    assert (body["version"], body["status"], body["note"]) == (2, "published", "first round")
    assert body["published_by"] == "reviewer"
    assert body["diff"]["previous"] is None
    assert body["diff"]["summary"]["added"] == 1
    assert body["diff"]["added"][0]["labels"] == ["ad hominem", "slippery slope"]
    assert body["diff"]["added"][0]["text"].startswith("Politicians")

    # the next save starts a new draft from version 2: the document is at revision 1 there
    state = reviewer.get(url(world)).json()
    assert state["draft"] is None and state["gold"]["revision"] == 1
    changed = {**span, "labels": ["ad hominem"]}
    added = {"start": S2[0], "end": S2[1], "labels": ["slippery slope", NO_FALLACY]}
    assert (
        reviewer.put(
            url(world), {"revision": 1, "spans": [changed, added]}, format="json"
        ).status_code
        == 200
    )
    version3 = publish_draft(project=world.p1, note="second round", by=world.admin)
    assert version3.version == 3 and version3.based_on.version == 2
    assert version3.diff["summary"] == {
        "added": 1,
        "removed": 0,
        "changed": 1,
        "documents_added": 0,
        "documents_removed": 0,
    }
    assert version3.diff["changed"][0]["before"] == ["ad hominem", "slippery slope"]
    overview = reviewer.get(f"/api/projects/{world.p1.pk}/gold/").json()
    assert overview["draft"] is None
    assert [v["version"] for v in overview["versions"]] == [3, 2]
    assert overview["versions"][0]["summary"]["changed"] == 1
    page = reviewer.get(f"/api/projects/{world.p1.pk}/gold/3/").json()
    assert page["diff"]["previous"] == 2


def test_a_version_exports_its_alternatives_over_rest_and_from_the_command(world, tmp_path):
    reviewer = client(world.reviewer)
    span = {"start": S0[0], "end": S0[1], "labels": ["ad hominem", "slippery slope", NO_FALLACY]}
    reviewer.put(url(world), {"revision": 0, "spans": [span]}, format="json")
    reviewer.post(f"/api/projects/{world.p1.pk}/gold/publish/", {"note": "n"}, format="json")
    assert reviewer.get(f"/api/projects/{world.p1.pk}/gold/1/export/").status_code == 404  # draft
    response = reviewer.get(f"/api/projects/{world.p1.pk}/gold/2/export/")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    (record,) = [json.loads(line) for line in response.content.decode().splitlines()]
    labels = sorted(label for start, end, label in record["labels"] if (start, end) == S0)
    assert labels == ["ad hominem", "nothing", "slippery slope"]
    path = tmp_path / "v2.jsonl"
    call_command(
        "export_dataset",
        "--project",
        "P1",
        "--format",
        "mafalda",
        "--version",
        "2",
        "--out",
        str(path),
        stdout=io.StringIO(),
    )
    assert json.loads(path.read_text().splitlines()[0])["labels"] == record["labels"]
    with pytest.raises(CommandError, match="version 1 is a draft"):
        call_command(
            "export_dataset",
            "--project",
            "P1",
            "--format",
            "mafalda",
            "--version",
            "1",
            "--out",
            str(path),
            stdout=io.StringIO(),
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


def test_a_page_loaded_before_a_publication_saves_on_the_next_draft(world) -> None:
    reviewer = client(world.reviewer)
    span = {"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}
    reviewer.put(url(world), {"revision": 0, "spans": [span]}, format="json")
    reviewer.put(
        url(world),
        {"revision": 1, "spans": [span, {**span, "start": S2[0], "end": S2[1]}]},
        format="json",
    )
    loaded = reviewer.get(url(world)).json()["gold"]
    assert loaded["revision"] == 2
    publish_draft(project=world.p1, note="v2", by=world.reviewer)
    assert reviewer.get(url(world)).json()["gold"]["revision"] == 2  # the copy keeps it
    saved = reviewer.put(url(world), {"revision": 2, "spans": [span]}, format="json")
    assert saved.status_code == 200 and saved.json()["revision"] == 3
    draft = GoldStandard.objects.get(project=world.p1, source=ADJUDICATION, status="draft")
    assert draft.version == 3 and draft.based_on.version == 2
    assert (
        GoldSpan.objects.filter(gold_standard__version=2, gold_standard__project=world.p1).count()
        == 2
    )


def test_the_queue_sorts_by_highest_disagreement_then_position(world) -> None:
    from evaluation.agreement import jobs as agreement_jobs
    from evaluation.models import AgreementResult

    # d2: both annotators agree; d3: they disagree everywhere; d1 (the world's): partly.
    # The scorer refuses two documents with the same text: same sentences, other words.
    Document.objects.filter(pk=world.d2.pk).update(text=world.d2.text.replace("Smith", "Jones"))
    Document.objects.filter(pk=world.d3.pk).update(text=world.d3.text.replace("taxes", "roads"))
    for doc, spans in [
        (world.d2, {world.ann1: [(S0, ["ad hominem"])], world.ann2: [(S0, ["ad hominem"])]}),
        (
            world.d3,
            {world.ann1: [(S0, ["ad hominem"])], world.ann2: [(S1, ["slippery slope"])]},
        ),
    ]:
        for user, ranges in spans.items():
            annotation = Annotation.objects.create(
                document=doc, annotator=user, status="submitted", submitted_at=timezone.now()
            )
            for (start, end), labels in ranges:
                Span.objects.create(annotation=annotation, start=start, end=end, labels=labels)
    reviewer = client(world.reviewer)
    queue_url = f"/api/projects/{world.p1.pk}/adjudication/"
    before = reviewer.get(queue_url).json()
    assert before["agreement"] == {"status": "computing"}  # started, by position meanwhile
    assert [r["document"]["id"] for r in before["results"]] == [
        world.d1.pk,
        world.d2.pk,
        world.d3.pk,
    ]
    assert before["count"] == 3 and before["results"][0]["annotators"] == 2
    assert before["results"][0]["document"]["length"] == len(world.d1.text)
    result = AgreementResult.objects.get(project=world.p1)
    assert agreement_jobs.compute(result.pk) == "done"
    after = reviewer.get(queue_url).json()
    assert after["agreement"] == {"status": "done"}
    rows = after["results"]
    keys = agreement_jobs.document_sort_keys(world.p1)
    assert [r["sort_key"] for r in rows] == [keys[r["document"]["id"]] for r in rows]
    assert [r["sort_key"] for r in rows] == sorted((r["sort_key"] for r in rows), reverse=True)
    # the annotators differ on three of d1's four sentences, on two of d3's; d2 (full
    # agreement) comes last with none
    assert [(r["document"]["id"], r["sort_key"]) for r in rows] == [
        (world.d1.pk, 0.75),
        (world.d3.pk, 0.5),
        (world.d2.pk, 0.0),
    ]
    assert not any(r["adjudicated"] for r in rows)
    reviewer.put(
        url(world),
        {"revision": 0, "spans": [{"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}]},
        format="json",
    )
    page = reviewer.get(queue_url, {"page": 1, "page_size": 1}).json()
    assert page["count"] == 3 and len(page["results"]) == 1
    adjudicated = {
        r["document"]["id"]: r["adjudicated"] for r in reviewer.get(queue_url).json()["results"]
    }
    assert adjudicated == {world.d1.pk: True, world.d2.pk: False, world.d3.pk: False}
    assert reviewer.get(queue_url, {"page_size": 0}).status_code == 400


def _in_thread(target, *args) -> threading.Thread:
    def run() -> None:
        from django.db import connection as thread_connection

        try:
            target(*args)
        finally:
            thread_connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_a_publication_waits_for_a_save_in_progress_and_a_waiting_save_moves_on() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    from django.db import transaction

    world = make_world()
    one = {"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}
    two = {"start": S2[0], "end": S2[1], "labels": ["slippery slope"]}
    save_document_gold(document=world.d1, revision=0, spans=[one], by=world.reviewer)
    saving, release = threading.Event(), threading.Event()

    def slow_save() -> None:
        with transaction.atomic():
            save_document_gold(document=world.d1, revision=1, spans=[one, two], by=world.admin)
            saving.set()
            release.wait(10)

    saver = _in_thread(slow_save)
    assert saving.wait(10)
    published: list[GoldStandard] = []
    publisher = _in_thread(
        lambda: published.append(publish_draft(project=world.p1, note="n", by=world.reviewer))
    )
    publisher.join(0.5)
    assert publisher.is_alive()  # waits for the save's lock
    release.set()
    saver.join()
    publisher.join()
    (version,) = published
    assert version.diff["summary"]["added"] == 2  # the diff saw the save
    assert GoldSpan.objects.filter(gold_standard=version).count() == 2

    # now the other way round: a save waiting on a publication goes to the next draft
    save_document_gold(document=world.d1, revision=2, spans=[one], by=world.reviewer)
    publishing, release = threading.Event(), threading.Event()

    def slow_publish() -> None:
        with transaction.atomic():
            publish_draft(project=world.p1, note="n", by=world.reviewer)
            publishing.set()
            release.wait(10)

    results: list[GoldDocument] = []
    publisher = _in_thread(slow_publish)
    assert publishing.wait(10)
    saver = _in_thread(
        lambda: results.append(
            save_document_gold(document=world.d1, revision=3, spans=[two], by=world.admin)
        )
    )
    saver.join(0.5)
    assert saver.is_alive()
    release.set()
    publisher.join()
    saver.join()
    (entry,) = results
    draft = GoldStandard.objects.get(pk=entry.gold_standard_id)
    assert (draft.status, draft.version, draft.based_on.version) == ("draft", 4, 3)
    assert [
        s.labels
        for s in GoldSpan.objects.filter(gold_standard__version=3, gold_standard__project=world.p1)
    ] == [["ad hominem"]]
    assert [s.labels for s in GoldSpan.objects.filter(gold_standard=draft)] == [["slippery slope"]]


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
