"""Splitting one batch ahead in a worker process gives exactly the in-process sentences, in
order, for any number of batches, and falls back to splitting in process where no worker
can be had."""

from __future__ import annotations

import multiprocessing

import pytest

from annotations.importing import split_ahead as module
from annotations.importing.sentences import split_sentences
from annotations.importing.split_ahead import split_ahead

TEXTS = [
    f'Text {i}. Dr. Smith said "we will win. Always." Then he left!\nPOST: and {i} more?'
    for i in range(23)
]


def batches(size: int) -> list[list[dict]]:
    items = [{"id": i, "text": t} for i, t in enumerate(TEXTS)]
    return [items[k : k + size] for k in range(0, len(items), size)]


@pytest.mark.parametrize("size", [100, 23, 10, 1])
def test_every_batch_comes_back_in_order_with_its_own_sentences(size: int) -> None:
    out = list(split_ahead(iter(batches(size)), lambda item: item["text"]))
    assert [batch for batch, _ in out] == batches(size)
    for batch, ranges in out:
        assert ranges == [split_sentences(item["text"]) for item in batch]


def test_nothing_to_split() -> None:
    assert list(split_ahead(iter([]), str)) == []


def test_a_worker_is_used_for_several_batches_and_none_for_one(monkeypatch) -> None:
    started = []
    real = module._pool

    def counting_pool():
        pool = real()
        started.append(pool is not None)
        return pool

    monkeypatch.setattr(module, "_pool", counting_pool)
    list(split_ahead(iter(batches(10)), lambda item: item["text"]))
    assert started == [True]
    list(split_ahead(iter(batches(100)), lambda item: item["text"]))
    assert started == [True]  # one batch: split here, no worker started


def test_a_daemonic_process_splits_in_process(monkeypatch) -> None:
    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True, raising=False)
    assert module._pool() is None
    out = list(split_ahead(iter(batches(5)), lambda item: item["text"]))
    assert [r for _, ranges in out for r in ranges] == [split_sentences(t) for t in TEXTS]
