"""The span writes' input serializers (DRF's own fields, built per instance): the errors a
client gets for bad input, the data a valid one gives, and threads validating side by side
without one request seeing another's."""

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
