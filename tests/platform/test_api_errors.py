"""What the fuzzer found, pinned: bad query values are 400s naming the parameter, numbers beyond
the database's range are 404/400 (not 500), unknown API URLs answer JSON, and the schema
documents the error answers."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

HUGE = 2**64 + 7  # beyond every database integer


@pytest.fixture
def admin(django_user_model) -> APIClient:
    user = django_user_model.objects.create_superuser("root", password="root-password-1")
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.django_db
def test_huge_limit_is_not_a_server_error(admin: APIClient) -> None:
    """The 500 the fuzzer found: a limit past the database's LIMIT range."""
    response = admin.get("/api/projects/?limit=13000000000000000000000")
    assert response.status_code == 400 and "limit" in response.json()
    response = admin.get("/api/projects/?limit=5000000")  # above max_limit: lowered to it
    assert response.status_code == 200 and response.json()["results"] == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, parameter",
    [
        ("limit=abc", "limit"),
        ("limit=0", "limit"),
        ("limit=1.3e22", "limit"),
        ("offset=-1", "offset"),
        (f"offset={HUGE}", "offset"),
        ("archived=null", "archived"),
    ],
)
def test_bad_query_values_are_400_naming_the_parameter(
    admin: APIClient, query: str, parameter: str
) -> None:
    response = admin.get(f"/api/projects/?{query}")
    assert response.status_code == 400, response.content
    assert parameter in response.json()


@pytest.mark.django_db
def test_flags_and_empty_choices(admin: APIClient) -> None:
    assert admin.get("/api/projects/?archived=true").status_code == 200
    assert admin.get("/api/projects/?archived=0").status_code == 200
    response = admin.get("/api/evaluation/runs/?status=")
    assert response.status_code == 400 and "status" in response.json()


@pytest.mark.django_db
def test_ids_beyond_the_database_range_are_404(admin: APIClient) -> None:
    for url in (f"/api/spans/{HUGE}/", f"/api/projects/{HUGE}/", f"/api/documents/{HUGE}/"):
        response = admin.get(url)
        assert response.status_code == 404, (url, response.content)
        assert "detail" in response.json()


@pytest.mark.django_db
def test_unknown_api_urls_answer_json(admin: APIClient) -> None:
    response = admin.get("/api/annotations/null,null/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"detail": "Not found."}


def test_schema_documents_error_answers_and_integer_bounds() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    span = schema["paths"]["/api/spans/{id}/"]
    assert {"400", "403", "404", "409"} <= set(span["patch"]["responses"])
    assert {"403", "404"} <= set(span["get"]["responses"])
    for parameter in span["delete"]["parameters"]:
        assert parameter["schema"]["maximum"] == 2**63 - 1
    assert "application/json" in span["patch"]["requestBody"]["content"]
    assert "multipart/form-data" not in span["patch"]["requestBody"]["content"]
    limit = next(
        p for p in schema["paths"]["/api/projects/"]["get"]["parameters"] if p["name"] == "limit"
    )
    assert limit["schema"]["minimum"] == 1


@pytest.mark.django_db(transaction=True)
def test_a_database_that_cannot_be_reached_is_a_503_with_retry_after(admin: APIClient) -> None:
    """A database restart is a 503 the clients retry (bench/load_annotate.py), not a 500."""
    from django.db import connection

    from tests.support.processes import free_port

    saved = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = "/nonexistent-folder/db.sqlite3"
    else:
        connection.settings_dict["PORT"] = str(free_port())  # nothing listens there
    try:
        response = admin.get("/api/projects/")
    finally:
        connection.close()
        connection.settings_dict.update(saved)
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == "5"
    assert "retry" in response.json()["detail"]
