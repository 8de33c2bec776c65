"""ReusedFieldsMixin: input serializers whose fields are built once per thread validate
exactly as DRF's per-instance fields do, without one thread's request seeing another's."""

from __future__ import annotations

import threading
import uuid

import pytest
from fallacy_platform.reused_fields import ReusedFieldsMixin
from rest_framework import serializers

from annotations.api.serializers import SpanCreateSerializer, SpanPatchSerializer


class PlainCreate(serializers.Serializer):
    """SpanCreateSerializer's fields, copied per instance as DRF does."""


PlainCreate._declared_fields = SpanCreateSerializer._declared_fields


BAD_INPUTS = [
    {"start": -1, "labels": "ad hominem"},
    {"start": "x", "end": 0, "labels": [], "client_id": "not-a-uuid"},
    {"start": 0, "end": 5, "labels": ["a"], "details": []},
]


@pytest.mark.parametrize("data", BAD_INPUTS)
def test_errors_are_drfs_own(data):
    reused, plain = SpanCreateSerializer(data=data), PlainCreate(data=data)
    assert not reused.is_valid() and not plain.is_valid()
    assert reused.errors == plain.errors


def test_valid_data_and_repeated_use_in_one_thread():
    first = SpanCreateSerializer(data={"start": 0, "end": 9, "labels": ["a", "b"]})
    assert first.is_valid(), first.errors
    second = SpanCreateSerializer(data={"start": "x", "end": 9, "labels": ["a"]})
    assert not second.is_valid()
    third = SpanCreateSerializer(data={"start": 3, "end": 12, "labels": ["c"]})
    assert third.is_valid(), third.errors
    assert third.validated_data == {"start": 3, "end": 12, "labels": ["c"]}
    assert first.validated_data == {"start": 0, "end": 9, "labels": ["a", "b"]}
    # the same field objects, bound to the newest instance
    assert third.fields["start"] is first.fields["start"]
    assert third.fields["start"].parent is third


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


def test_nested_serializers_are_refused_by_name():
    class Inner(serializers.Serializer):
        x = serializers.IntegerField()

    class Outer(ReusedFieldsMixin, serializers.Serializer):
        inner = Inner()

    with pytest.raises(TypeError, match=r"Outer\.inner"):
        Outer(data={"inner": {"x": 1}}).is_valid()
