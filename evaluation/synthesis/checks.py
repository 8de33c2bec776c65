"""Rule-file checks under a server-wide bound.

``check_rule_source(source, user=)`` runs ``check_rule_file`` (swipl in a process of its own,
up to ``LOAD_TIME_LIMIT_S + STARTUP_S`` of wall-clock time) only while it holds a free slot:
at most ``settings.RULE_CHECKS_MAX_CONCURRENT`` checks at once on the whole server, and one
at a time per user. Without a free slot it raises ``SlotsBusy`` at once (the API's 429 with
``Retry-After``), so saves never queue up on the web threads that other requests need.
"""

from __future__ import annotations

from contextlib import ExitStack

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from fallacy_platform.slots import hold

from evaluation.prolog import PrologMessage, check_rule_file
from evaluation.prolog.oneshot import STARTUP_S
from evaluation.prolog.oracle import LOAD_TIME_LIMIT_S

RETRY_AFTER_S = 5
# How long a slot outlives a web process that died holding it (Redis; a file's lock goes
# with its process): well past a check's wall-clock limit.
EXPIRY_S = 4 * (LOAD_TIME_LIMIT_S + STARTUP_S)


def check_rule_source(source: str, *, user: AbstractBaseUser | None = None) -> list[PrologMessage]:
    """``check_rule_file(source)`` within the bound (see the module docstring)."""
    with ExitStack() as slots:
        if user is not None and user.pk is not None:
            slots.enter_context(
                hold(
                    f"rule-check-user-{user.pk}",
                    limit=1,
                    expiry_s=EXPIRY_S,
                    busy="Your previous rule-file check is still running; retry when it ends.",
                    retry_after_s=RETRY_AFTER_S,
                )
            )
        slots.enter_context(
            hold(
                "rule-check",
                limit=settings.RULE_CHECKS_MAX_CONCURRENT,
                expiry_s=EXPIRY_S,
                busy=f"The server is checking {settings.RULE_CHECKS_MAX_CONCURRENT} rule "
                "file(s) already; retry shortly.",
                retry_after_s=RETRY_AFTER_S,
            )
        )
        return check_rule_file(source)
