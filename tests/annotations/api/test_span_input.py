"""The span writes' input: DRF's serializers (the errors a client gets for bad input, the data a
valid one gives, threads validating side by side without one request seeing another's), and
the hand-read input of ``annotations.api.span_input`` giving exactly what they give."""

from __future__ import annotations

import threading
import uuid

import pytest

from annotations.api.serializers import (
    SpanCreateSerializer,
    SpanDeleteQuerySerializer,
    SpanPatchSerializer,
)

BAD_INPUTS = [
    (
        {"start": -1, "labels": "ad hominem"},
        {
            "start": ["Ensure this value is greater than or equal to 0."],
            "end": ["This field is required."],
            "labels": ['Expected a list of items but got type "str".'],
        },
    ),
    (
        {"start": "x", "end": 0, "labels": [], "client_id": "not-a-uuid"},
        {
            "start": ["A valid integer is required."],
            "end": ["Ensure this value is greater than or equal to 1."],
            "client_id": ["Must be a valid UUID."],
        },
    ),
    (
        {"start": 0, "end": 5, "labels": ["a"], "details": []},
        {"details": ['Expected a dictionary of items but got type "list".']},
    ),
]


@pytest.mark.parametrize(("data", "expected"), BAD_INPUTS)
def test_errors_name_each_bad_field(data, expected):
    serializer = SpanCreateSerializer(data=data)
    assert not serializer.is_valid()
    assert serializer.errors == expected


def test_valid_data_and_repeated_use_in_one_thread():
    first = SpanCreateSerializer(data={"start": 0, "end": 9, "labels": ["a", "b"]})
    assert first.is_valid(), first.errors
    second = SpanCreateSerializer(data={"start": "x", "end": 9, "labels": ["a"]})
    assert not second.is_valid()
    third = SpanCreateSerializer(data={"start": 3, "end": 12, "labels": ["c"]})
    assert third.is_valid(), third.errors
    assert third.validated_data == {"start": 3, "end": 12, "labels": ["c"]}
    assert first.validated_data == {"start": 0, "end": 9, "labels": ["a", "b"]}
    assert third.fields["start"].parent is third and first.fields["start"].parent is first


def test_patch_and_delete_need_the_revision_seen():
    patch = SpanPatchSerializer(data={})
    assert not patch.is_valid()
    assert patch.errors == {"revision": ["This field is required."]}
    patch = SpanPatchSerializer(data={"revision": 0, "start": -1, "labels": "x"})
    assert not patch.is_valid()
    assert set(patch.errors) == {"revision", "start", "labels"}
    patch = SpanPatchSerializer(data={"revision": "3", "end": 4})
    assert patch.is_valid() and patch.validated_data == {"revision": 3, "end": 4}
    delete = SpanDeleteQuerySerializer(data={})
    assert not delete.is_valid() and set(delete.errors) == {"revision"}
    delete = SpanDeleteQuerySerializer(data={"revision": "2"})
    assert delete.is_valid() and delete.validated_data == {"revision": 2}


def test_threads_validate_side_by_side_without_crosstalk():
    failures: list[str] = []
    objects: dict[int, int] = {}
    barrier = threading.Barrier(4)

    def work(k: int) -> None:
        barrier.wait()
        for i in range(300):
            client_id = uuid.uuid4()
            data = {"start": k, "end": k + i + 1, "labels": [f"label-{k}"], "client_id": client_id}
            if i % 3 == 0:
                data["start"] = "bad"
            s = SpanCreateSerializer(data=data)
            if i % 3 == 0:
                if s.is_valid() or set(s.errors) != {"start"}:
                    failures.append(f"thread {k}, try {i}: {s.errors}")
            elif not s.is_valid() or s.validated_data != {**data, "client_id": client_id}:
                failures.append(f"thread {k}, try {i}: {s.errors or s.validated_data}")
            p = SpanPatchSerializer(data={"revision": i + 1})
            if not p.is_valid() or p.validated_data != {"revision": i + 1}:
                failures.append(f"thread {k}, patch {i}: {p.errors}")
        objects[k] = id(s.fields["labels"])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(set(objects.values())) == 4  # each thread its own fields


# --- the hand-read input (annotations.api.span_input) against DRF's serializers -----------

_VALUES: list = [
    0, 1, 7, -1, 2**63, 2**70, True, False, 3.0, 3.5, "3", " 4 ", "0", "x", "", " ", "1e3",
    None, [], {}, ["a"], {"a": 1},
]  # fmt: skip
_TEXTS: list = [
    "ad hominem", "  padded  ", "", "   ", "é", "a\x00b", "\ud800", 5, 2.5, None, True, ["x"], {},
]  # fmt: skip
_DETAILS: list = [
    {}, {"ad hominem": {"slots": {"X": "y"}}}, {"a": None}, {"a": 1, "b": [None]}, [], "x", None,
    {"a": {"explanation": ""}},
]  # fmt: skip
_CLIENT_IDS: list = [
    None, str(uuid.UUID(int=7)), str(uuid.UUID(int=9)).upper(), f"{{{uuid.UUID(int=3)}}}",
    uuid.UUID(int=5).hex, f"urn:uuid:{uuid.UUID(int=4)}", "", "not-a-uuid", 12, 2**129, [],
]  # fmt: skip


def _drf(serializer_class, data):
    serializer = serializer_class(data=data)
    if serializer.is_valid():
        return "valid", dict(serializer.validated_data)
    return "invalid", serializer.errors


def _ours(read, data):
    from rest_framework.exceptions import ValidationError

    try:
        return "valid", read(data)
    except ValidationError as error:
        return "invalid", error.detail


def _random_body(rng, fields: dict[str, list]) -> dict:
    body = {}
    for name, pool in fields.items():
        if rng.random() < 0.8:
            if name == "labels" and rng.random() < 0.7:
                body[name] = [rng.choice(_TEXTS) for _ in range(rng.randrange(4))]
            else:
                body[name] = rng.choice(pool)
    return body


def _bodies(fields: dict[str, list], valid: dict, count: int = 1500) -> list:
    import random

    rng = random.Random(20261127)
    bodies: list = [valid, [valid], "text", None, 3]
    for name, pool in fields.items():  # every value of every field, the others valid
        bodies += [{**valid, name: value} for value in pool]
        bodies.append({k: v for k, v in valid.items() if k != name})
    bodies += [_random_body(rng, fields) for _ in range(count)]
    return bodies


def test_hand_read_create_input_equals_drf():
    from annotations.api.span_input import span_create_input

    fields = {
        "start": _VALUES,
        "end": _VALUES,
        "labels": _VALUES + [_TEXTS],
        "details": _DETAILS,
        "client_id": _CLIENT_IDS,
    }
    valid = {"start": 0, "end": 9, "labels": ["a", " b "], "client_id": str(uuid.UUID(int=1))}
    outcomes = set()
    for body in _bodies(fields, valid):
        expected = _drf(SpanCreateSerializer, body)
        assert _ours(span_create_input, body) == expected, body
        outcomes.add(expected[0])
    assert outcomes == {"valid", "invalid"}


def test_hand_read_patch_input_equals_drf():
    from annotations.api.span_input import span_patch_input

    fields = {
        "revision": _VALUES,
        "start": _VALUES,
        "end": _VALUES,
        "labels": _VALUES,
        "details": _DETAILS,
    }
    valid = {"revision": 2, "labels": ["a"], "details": {"a": {"slots": {}}}}
    for body in _bodies(fields, valid):
        assert _ours(span_patch_input, body) == _drf(SpanPatchSerializer, body), body


def test_hand_read_delete_revision_equals_drf():
    from django.http import QueryDict

    from annotations.api.span_input import span_delete_revision

    queries = ["", "revision=", "revision=3", "revision=0", "revision=-2", "revision=+4",
               "revision=%204", "revision=3.0", "revision=x", "revision=1&revision=5",
               "revision=%D9%A3", "revision=" + "9" * 30, "other=1"]  # fmt: skip
    for text in queries:
        query = QueryDict(text)
        expected = _drf(SpanDeleteQuerySerializer, query)
        if expected[0] == "valid":
            expected = ("valid", expected[1]["revision"])
        assert _ours(span_delete_revision, query) == expected, text


def test_plain_json_input_never_builds_a_serializer(monkeypatch):
    import annotations.api.span_input as span_input

    def refuse(*args, **kwargs):
        raise AssertionError("a serializer was built for plain input")

    for name in ("SpanCreateSerializer", "SpanPatchSerializer", "SpanDeleteQuerySerializer"):
        monkeypatch.setattr(span_input, name, refuse)
    client_id = uuid.uuid4()
    created = span_input.span_create_input(
        {"start": 0, "end": 4, "labels": ["a"], "details": {"a": {}}, "client_id": str(client_id)}
    )
    assert created == {
        "start": 0, "end": 4, "labels": ["a"], "details": {"a": {}}, "client_id": client_id
    }  # fmt: skip
    assert span_input.span_patch_input({"revision": 3, "end": 9}) == {"revision": 3, "end": 9}
    assert span_input.span_delete_revision({"revision": "12"}) == 12
