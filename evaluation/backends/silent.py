"""``silent``: the MAFALDA silent baseline, which never answers (an empty output)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from evaluation.backends.base import Backend, GenerationRequest, GenerationResult, ModelSpec

BATCH = 256


class SilentBackend(Backend):
    name = "silent"

    @classmethod
    def fingerprint(cls, spec: ModelSpec) -> str:
        return "silent:1"

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[list[GenerationResult]]:
        for start in range(0, len(requests), BATCH):
            yield [GenerationResult(request.key, "") for request in requests[start : start + BATCH]]
