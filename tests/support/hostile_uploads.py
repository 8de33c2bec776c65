"""What the hostile-input tests (tests/annotations/importing/test_hostile_*.py) share: the
project they upload to, the rows an import may write, a command's refusal, and the memory
cap they set."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotations.models import Document, GoldStandard, Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset

MIB = 1024 * 1024
MEMORY = {"IMPORT_MEMORY_BYTES": 64 * MIB}
NEEDS_MEMORY = "reading the file needs too much memory (limit IMPORT_MEMORY_BYTES = 64 MiB)"


def hostile_admin() -> tuple[Any, Project]:
    """``hostile-admin`` and the span project ``Hostile`` they created."""
    user = get_user_model().objects.create_user("hostile-admin")
    project = create_project(
        name="Hostile", taxonomy=install_preset(name="mafalda"), created_by=user
    )
    return user, project


def import_counts() -> tuple[int, int]:
    """Documents and gold standards: what a refused import must leave as it was."""
    return Document.objects.count(), GoldStandard.objects.count()


def command_error(*args: str) -> str:
    """The message of the ``CommandError`` the management command must raise."""
    with pytest.raises(CommandError) as refused:
        call_command(*args, stdout=io.StringIO(), stderr=io.StringIO())
    return str(refused.value)
