"""An import's errors name the uploaded file and the place inside it, never the server's
paths: an uploaded dataset folder is unpacked into a temporary folder, and a reader's
message quotes the file it opened there."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from fallacy_platform.errors import api_exception_handler
from fallacy_platform.server_paths import without_server_paths
from rest_framework.exceptions import ValidationError
from rest_framework.test import APIClient

from annotations.models import ImportJob, Membership
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from tests.support.hostile import hf_zip

pytestmark = pytest.mark.django_db
User = get_user_model()
PARQUET = "data/test-00000-of-00001.parquet"


def test_an_unpacking_error_names_the_member_without_the_temporary_folder():
    """A member ``hf/data`` that is a file where the archive also has a folder ``hf/data/``:
    writing it fails in the temporary folder, whose path the system's message quotes."""
    project = create_project(name="Paths", taxonomy=install_preset(name="mafalda"))
    admin = User.objects.create_user("paths-admin")
    Membership.objects.create(project=project, user=admin, role=Membership.Role.ADMIN)
    client = APIClient()
    client.force_authenticate(admin)
    archive = hf_zip(b"PAR1", extra={"hf/data": b"a file where a folder is"})
    response = client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": SimpleUploadedFile("folder.zip", archive), "format": "hf"},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    job = response.json()
    assert job["status"] == "failed"
    shown = json.dumps(job["errors"])
    assert "Is a directory: 'data'" in shown  # what went wrong, and where in the folder
    for server in ("hf-import-", "bounded-", "/tmp/", str(settings.BASE_DIR)):
        assert server not in shown, (server, shown)
    stored = json.dumps(ImportJob.objects.get(pk=job["id"]).errors)
    assert "hf-import-" not in stored and "/tmp/" not in stored


def test_server_paths_leave_the_place_inside_the_upload():
    inside = f"/tmp/bounded-ab12cd34/tmp/hf-import-x9_y8z7w/{PARQUET}"
    message = f"{PARQUET}: not a readable Parquet file: Could not open '{inside}': magic bytes"
    assert without_server_paths(message) == (
        f"{PARQUET}: not a readable Parquet file: Could not open '{PARQUET}': magic bytes"
    )
    assert without_server_paths("/tmp/hf-import-abcd1234: not a folder") == (
        "(a temporary folder): not a folder"
    )
    module = f"{settings.BASE_DIR}/annotations/importing/hf.py"
    assert without_server_paths(f'File "{module}", line 3') == 'File "(a server path)", line 3'
    assert without_server_paths("and/or 1/2 of /srv") == "and/or 1/2 of /srv"


def test_a_400_carries_no_server_path():
    """Every API 400 (imports read inside a request too) goes through the handler."""
    inside = f"/tmp/bounded-ab12cd34/tmp/hf-import-x9_y8z7w/{PARQUET}"
    error = ValidationError({"file": [f"{PARQUET}: cannot open '{inside}'"]})
    response = api_exception_handler(error, {})
    assert response.status_code == 400
    assert response.data == {"file": [f"{PARQUET}: cannot open '{PARQUET}'"]}
    assert response.data["file"][0].code == "invalid"
