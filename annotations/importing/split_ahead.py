"""Sentence splitting one batch ahead, in a second process, while the caller writes.

A plain-text import alternates splitting a batch of texts (~40% of its CPU time) and
writing it; on two cores the two can overlap. ``split_ahead`` yields each batch with the
ranges of its texts (``split_sentences``, the same function, so the same sentences): the
first batch is split here, while a worker process starts; every later one by the worker
while the caller writes the one before. One batch only, or no way to start a worker (a
daemonic process, such as a prefork Celery child; a platform without ``forkserver``):
everything is split here, as before.

The worker comes from a ``forkserver`` (a clean process that imports this module once),
never a fork of the caller, whose threads (gunicorn's, Celery's) may hold locks. Plain
Python, no Django.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import chain
from typing import TypeVar

from annotations.importing.sentences import Range, split_sentences

T = TypeVar("T")
log = logging.getLogger(__name__)


def split_texts(texts: list[str]) -> list[list[Range]]:
    """The worker's task: every text's sentence ranges."""
    return [split_sentences(text) for text in texts]


def _pool() -> ProcessPoolExecutor | None:
    if multiprocessing.current_process().daemon:
        return None  # daemonic processes may not have children
    try:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        return ProcessPoolExecutor(max_workers=1, mp_context=context)
    except (ValueError, OSError) as exc:  # no forkserver here, or no process to be had
        log.info("splitting in process: %s", exc)
        return None


def split_ahead(
    batches: Iterable[list[T]], text: Callable[[T], str]
) -> Iterator[tuple[list[T], list[list[Range]]]]:
    """``(batch, ranges of each item's text)`` for every batch, in order."""

    def texts(batch: list[T]) -> list[str]:
        return [text(item) for item in batch]

    items = iter(batches)
    first = next(items, None)
    if first is None:
        return
    second = next(items, None)
    pool = None if second is None else _pool()
    if pool is None:
        for batch in chain([first], [] if second is None else [second], items):
            yield batch, split_texts(texts(batch))
        return

    def submit(batch: list[T]) -> Future | None:
        try:
            return pool.submit(split_texts, texts(batch))
        except BrokenProcessPool:
            return None

    def done(future: Future | None, batch: list[T]) -> list[list[Range]]:
        try:
            if future is not None:
                return future.result()
        except BrokenProcessPool:  # the worker died (killed, out of memory): split here
            log.warning("sentence splitting worker lost; splitting in process")
        return split_texts(texts(batch))

    with pool:
        pending = submit(second)
        yield first, split_texts(texts(first))
        current = second
        for batch in items:
            following = submit(batch)
            yield current, done(pending, current)
            current, pending = batch, following
        yield current, done(pending, current)
