"""``random``: the MAFALDA random baseline, a uniform draw over each request's labels.

Seeded per request (the run's seed and the request key), so a resumed or repeated run
draws the same labels.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from evaluation.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    ModelSpec,
)

BATCH = 256


class RandomBackend(Backend):
    name = "random"

    @classmethod
    def fingerprint(cls, spec: ModelSpec) -> str:
        return "random:1"

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[list[GenerationResult]]:
        for start in range(0, len(requests), BATCH):
            yield [
                GenerationResult(
                    request.key,
                    random.Random(f"{self.params.seed}:{request.key}").choice(request.labels)
                    if request.labels
                    else "",
                )
                for request in requests[start : start + BATCH]
            ]
