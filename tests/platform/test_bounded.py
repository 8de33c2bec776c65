"""The bounded child (``fallacy_platform.bounded``) names the limit a file reached, also
when the limit is reached after the parsing: a result too large to hand back within
``IMPORT_MEMORY_BYTES`` and a child that runs past ``IMPORT_SECONDS``."""

from __future__ import annotations

import pytest
from django.test import override_settings
from fallacy_platform.bounded import LimitExceeded, run_bounded

MIB = 1024 * 1024
TARGETS = "tests.support.bounded_targets"


def test_a_result_too_large_to_hand_back_is_the_memory_limit() -> None:
    with override_settings(IMPORT_MEMORY_BYTES=512 * MIB):
        assert len(run_bounded(f"{TARGETS}:zeros", 16 * MIB)) == 16 * MIB
        with pytest.raises(LimitExceeded) as refused:
            run_bounded(f"{TARGETS}:zeros", 300 * MIB)
    assert "IMPORT_MEMORY_BYTES" in str(refused.value)


def test_a_child_past_the_time_limit_is_the_time_limit() -> None:
    with override_settings(IMPORT_SECONDS=1), pytest.raises(LimitExceeded) as refused:
        run_bounded(f"{TARGETS}:sleep", 30)
    assert "IMPORT_SECONDS" in str(refused.value)
