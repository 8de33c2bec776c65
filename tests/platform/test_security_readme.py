"""The README's Security section lists each limit an operator sets, with its setting and its
default, and the default it states is the one ``settings.py`` applies (a changed default
fails here until the README says so)."""

from __future__ import annotations

import os
import re

import pytest
from django.conf import settings
from fallacy_platform.bounded import LIMIT_SETTINGS

from tests.support.processes import ROOT

UNITS = {"": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
#: Numeric limits: the environment variable and the Django setting it sets.
NUMERIC = {
    **{name: name for name in LIMIT_SETTINGS},
    "IMPORT_INPROCESS_MAX_BYTES": "IMPORT_INPROCESS_MAX_BYTES",
    "RULE_CHECKS_MAX_CONCURRENT": "RULE_CHECKS_MAX_CONCURRENT",
    "CLIENT_HEADER_TIMEOUT": "CLIENT_HEADER_TIMEOUT",
    "CLIENT_BODY_TIMEOUT": "CLIENT_BODY_TIMEOUT",
    "INVITATION_MAX_AGE_DAYS": "INVITATION_MAX_AGE_DAYS",
    "UPLOAD_MAX_BYTES": "UPLOAD_MAX_BYTES",
    "REQUEST_MAX_BYTES": "DATA_UPLOAD_MAX_MEMORY_SIZE",
}
#: Settings whose default is a choice, not a number.
CHOICES = (
    "MODEL_REGISTRY",
    "MODEL_HUB_ALLOWED",
    "MODEL_SERVER_ALLOWED_URLS",
    "MODEL_SERVER_ALLOW_LOOPBACK",
)


def security_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("\n## Security\n", 1)[1].split("\n## ", 1)[0]


def stated_default(name: str) -> str:
    """The words after "default" in the text that follows `name` (up to the next setting)."""
    found = re.search(rf"`{name}`[^`]*?\(?default:? ([^)`;]*)", security_section())
    assert found, f"README's Security section: `{name}` with its default"
    return found[1]


@pytest.mark.parametrize("name", sorted(NUMERIC))
def test_each_numeric_limit_is_listed_with_the_default_settings_applies(name: str) -> None:
    if name in os.environ:
        pytest.skip(f"{name} is set in this environment")
    number = re.match(r"([0-9][0-9,.]*)(?: (KiB|MiB|GiB))?", stated_default(name))
    assert number, f"{name}: no number in {stated_default(name)!r}"
    value = float(number[1].replace(",", "")) * UNITS[number[2] or ""]
    assert value == getattr(settings, NUMERIC[name]), name


@pytest.mark.parametrize("name", CHOICES)
def test_each_model_server_and_registry_setting_states_its_default(name: str) -> None:
    assert stated_default(name).strip(), name
