"""The project setting for justification templates (required / optional / off): set through
the project API, and a required setting refuses to submit a span with an empty slot (400
naming each span; nothing changed), while optional and off submit as before."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotations.justification import SpanSlots, describe, empty_slots, sentence_range
from annotations.models import Annotation, Project
from tests.support.factories import BOUNDS, World, make_world

pytestmark = pytest.mark.django_db

S0, S1, S2, S3 = BOUNDS
SLOTS = {"ad hominem": ["E", "P", "A"], "slippery slope": ["A", "B"], "hasty generalization": []}


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_empty_slots_lists_each_label_with_a_blank_slot_in_span_order() -> None:
    spans = [
        SpanSlots(
            7, 40, 60, ["slippery slope"], {"slippery slope": {"slots": {"A": "x", "B": " "}}}
        ),
        SpanSlots(3, 0, 20, ["ad hominem", "no fallacy"], {}),
        SpanSlots(9, 0, 10, ["hasty generalization"], {}),  # a type without slots
        SpanSlots(
            5, 25, 30, ["ad hominem"], {"ad hominem": {"slots": {"E": "a", "P": "b", "A": "c"}}}
        ),
    ]
    found = empty_slots(spans, SLOTS)
    assert [(e.span, e.label, e.slots) for e in found] == [
        (3, "ad hominem", ("E", "P", "A")),
        (7, "slippery slope", ("B",)),
    ]
    bounds = [(0, 10), (11, 30), (31, 60)]
    assert sentence_range(0, 20, bounds) == "sentences 1–2"
    assert sentence_range(40, 60, bounds) == "sentence 3"
    assert describe(found[1], bounds) == "span 7 (sentence 3), slippery slope: fill the slot B"


def test_admin_sets_the_mode_and_a_bad_value_is_a_400_naming_the_field(world: World) -> None:
    admin = client_for(world.admin)
    url = f"/api/projects/{world.p1.pk}/"
    assert admin.get(url).json()["justification_templates"] == "optional"  # the default
    bad = admin.patch(url, {"justification_templates": "sometimes"}, format="json")
    assert bad.status_code == 400 and "justification_templates" in bad.json()
    assert Project.objects.get(pk=world.p1.pk).justification_templates == "optional"
    ok = admin.patch(url, {"justification_templates": "required"}, format="json")
    assert ok.status_code == 200 and ok.json()["justification_templates"] == "required"
    refused = client_for(world.reviewer).patch(
        url, {"justification_templates": "off"}, format="json"
    )
    assert refused.status_code == 403
    assert Project.objects.get(pk=world.p1.pk).justification_templates == "required"


def test_required_templates_refuse_empty_slots_naming_the_spans(world: World) -> None:
    Project.objects.filter(pk=world.p1.pk).update(justification_templates="required")
    client = client_for(world.ann1)
    spans = f"/api/annotations/{world.a1.pk}/spans/"
    filled = {"ad hominem": {"slots": {"E": "Smith", "P": "taxes", "A": "liar"}}}
    first = client.post(
        spans,
        {"start": S0[0], "end": S1[1], "labels": ["ad hominem"], "details": filled},
        format="json",
    )
    second = client.post(
        spans,
        {
            "start": S2[0],
            "end": S2[1],
            "labels": ["slippery slope"],
            "details": {"slippery slope": {"slots": {"A": "this"}}},
        },
        format="json",
    )
    assert first.status_code == second.status_code == 201
    submit = f"/api/annotations/{world.a1.pk}/submit/"
    refused = client.post(submit, {}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {
        "spans": [
            f"span {second.json()['id']} (sentence 3), slippery slope: fill the slot B "
            "(templates are required)"
        ]
    }
    assert Annotation.objects.get(pk=world.a1.pk).status == "in_progress"
    fix = client.patch(
        f"/api/spans/{second.json()['id']}/",
        {"revision": 1, "details": {"slippery slope": {"slots": {"A": "this", "B": "chaos"}}}},
        format="json",
    )
    assert fix.status_code == 200
    assert client.post(submit, {}, format="json").json()["status"] == "submitted"


@pytest.mark.parametrize("mode", ["optional", "off"])
def test_optional_and_off_submit_with_empty_slots(world: World, mode: str) -> None:
    Project.objects.filter(pk=world.p1.pk).update(justification_templates=mode)
    client = client_for(world.ann1)
    span = {"start": S1[0], "end": S1[1], "labels": ["ad hominem"]}
    assert (
        client.post(f"/api/annotations/{world.a1.pk}/spans/", span, format="json").status_code
        == 201
    )
    submitted = client.post(f"/api/annotations/{world.a1.pk}/submit/", {}, format="json")
    assert submitted.status_code == 200 and submitted.json()["status"] == "submitted"
