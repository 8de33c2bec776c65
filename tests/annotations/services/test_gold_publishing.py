"""Publishing the gold draft: versions numbered, recorded and diffed against the previous
one, a new draft starting from the last version, a page loaded before a publication saving
on the next draft, publications and saves waiting on each other's locks; and the exports
of a published version over REST and from the command line."""

from __future__ import annotations

import io
import json
import threading

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from annotations.labels import NO_FALLACY
from annotations.models import ADJUDICATION, GoldDocument, GoldSpan, GoldStandard
from annotations.services.gold import publish_draft, save_document_gold
from tests.support.adjudication import S0, S2, adjudication_world, client, in_thread, url
from tests.support.factories import World, make_world

ONE = {"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}
TWO = {"start": S2[0], "end": S2[1], "labels": ["slippery slope"]}


@pytest.fixture
def world(db: None) -> World:
    return adjudication_world()


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


def _a_publication_waits_for_a_save_in_progress(world: World) -> None:
    """A save holds the document's lock: the publication waits, and its diff sees the save."""
    save_document_gold(document=world.d1, revision=0, spans=[ONE], by=world.reviewer)
    saving, release = threading.Event(), threading.Event()

    def slow_save() -> None:
        with transaction.atomic():
            save_document_gold(document=world.d1, revision=1, spans=[ONE, TWO], by=world.admin)
            saving.set()
            release.wait(10)

    saver = in_thread(slow_save)
    assert saving.wait(10)
    published: list[GoldStandard] = []
    publisher = in_thread(
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


def _a_save_waiting_on_a_publication_goes_to_the_next_draft(world: World) -> None:
    """A publication holds the lock: the waiting save lands on a new draft based on it."""
    save_document_gold(document=world.d1, revision=2, spans=[ONE], by=world.reviewer)
    publishing, release = threading.Event(), threading.Event()

    def slow_publish() -> None:
        with transaction.atomic():
            publish_draft(project=world.p1, note="n", by=world.reviewer)
            publishing.set()
            release.wait(10)

    results: list[GoldDocument] = []
    publisher = in_thread(slow_publish)
    assert publishing.wait(10)
    saver = in_thread(
        lambda: results.append(
            save_document_gold(document=world.d1, revision=3, spans=[TWO], by=world.admin)
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


@pytest.mark.django_db(transaction=True)
def test_a_publication_waits_for_a_save_in_progress_and_a_waiting_save_moves_on() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    world = make_world()
    _a_publication_waits_for_a_save_in_progress(world)
    # now the other way round: a save waiting on a publication goes to the next draft
    _a_save_waiting_on_a_publication_goes_to_the_next_draft(world)
