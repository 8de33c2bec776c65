"""Bad input the API must refuse with a 400 naming the place, changing nothing (never a 500):
strings PostgreSQL cannot store (NUL, a lone surrogate) anywhere in a JSON body, JSON nested
too deep, a NUL in a query parameter, and upload files that are empty, one byte or hold no
CSV header (``fallacy_platform/inputs.py``, ``annotations/importing/formats/csv.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotations.importing.formats.storable import MAX_DEPTH, json_problem
from annotations.models import Document, GoldStandard, ImportJob, Project, Span, Taxonomy
from tests.support.factories import BOUNDS, World, make_world

pytestmark = pytest.mark.django_db

S1 = BOUNDS[1]
# Sent as JSON text: json.dumps escapes them (\u0000, \ud800), as a hostile client would.
BAD_TEXTS = {"NUL": "a\u0000b", "surrogate": "\ud800x"}


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def root() -> User:
    return User.objects.get_or_create(
        username="root", defaults={"is_staff": True, "is_superuser": True}
    )[0]


def send(client: APIClient, method: str, url: str, body: Any) -> Any:
    raw = body if isinstance(body, str) else json.dumps(body)
    return getattr(client, method)(url, data=raw, content_type="application/json")


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def state() -> tuple[int, ...]:
    return (
        Span.objects.count(),
        Project.objects.count(),
        Taxonomy.objects.count(),
        Document.objects.count(),
        GoldStandard.objects.count(),
        ImportJob.objects.count(),
    )


@pytest.mark.parametrize("kind", BAD_TEXTS)
def test_a_bad_string_in_a_span_explanation_is_a_400_naming_it(world: World, kind: str) -> None:
    client = client_for(world.ann1)
    before = state()
    body = {
        "start": S1[0],
        "end": S1[1],
        "labels": ["ad hominem"],
        "details": {"ad hominem": {"slots": {}, "explanation": BAD_TEXTS[kind]}},
    }
    response = send(client, "post", f"/api/annotations/{world.a1.pk}/spans/", body)
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["details.ad hominem.explanation"]
    assert state() == before

    body["details"] = {"ad hominem": {"slots": {}, "explanation": "fine"}}
    created = send(client, "post", f"/api/annotations/{world.a1.pk}/spans/", body)
    assert created.status_code == 201, created.content
    span = created.json()
    patch = {
        "revision": span["revision"],
        "details": {"ad hominem": {"slots": {"E": BAD_TEXTS[kind]}, "explanation": ""}},
    }
    response = send(client, "patch", f"/api/spans/{span['id']}/", patch)
    assert response.status_code == 400
    assert list(response.json()) == ["details.ad hominem.slots.E"]
    assert Span.objects.get(pk=span["id"]).details == {
        "ad hominem": {"slots": {}, "explanation": "fine"}
    }


@pytest.mark.parametrize("kind", BAD_TEXTS)
def test_a_bad_string_in_a_key_or_a_top_level_field_is_a_400(world: World, kind: str) -> None:
    admin = client_for(root())
    before = state()
    bad_key = {"name": "K", "kind": "items", "form": {"fields": [{BAD_TEXTS[kind]: 1}]}}
    response = send(admin, "post", "/api/projects/", bad_key)
    assert response.status_code == 400
    shown = {"NUL": "a\\x00b", "surrogate": "\\ud800x"}[kind]
    assert list(response.json()) == [f"form.fields[0].{shown}"]
    response = send(admin, "post", "/api/projects/", {"name": BAD_TEXTS[kind]})
    assert response.status_code == 400 and list(response.json()) == ["name"]
    assert state() == before


WRITES = [
    ("post", "/api/annotations/{a1}/spans/"),
    ("patch", "/api/projects/{p1}/"),
    ("post", "/api/projects/"),
    ("post", "/api/taxonomies/"),
    ("post", "/api/evaluation/score/"),
]


@pytest.mark.parametrize(("method", "url"), WRITES)
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 100_000])
def test_json_nested_too_deep_is_a_400(world: World, method: str, url: str, depth: int) -> None:
    client = client_for(root())
    before = state()
    target = url.format(a1=world.a1.pk, p1=world.p1.pk)
    for body in (nested(depth), '{"details": ' + nested(depth) + "}"):
        response = send(client, method, target, body)
        assert response.status_code == 400, (target, depth, response.content[:200])
        assert "nested deeper" in json.dumps(response.json())
    assert state() == before


def test_json_within_the_depth_limit_is_checked_not_refused() -> None:
    depth = MAX_DEPTH
    assert json_problem(json.loads(nested(depth))) is None
    assert json_problem(json.loads(nested(depth + 1))) is not None
    assert json_problem({"a": [1, {"b": "x\x00"}]}) == (
        "a[1].b",
        "Null characters are not allowed.",
    )


@pytest.mark.parametrize(
    ("url", "parameter"),
    [
        ("/api/evaluation/prolog-rules/", "type"),
        ("/api/evaluation/variants/", "task"),
        ("/api/evaluation/runs/", "status"),
        ("/api/projects/", "search"),
    ],
)
def test_a_nul_in_a_query_parameter_is_a_400_naming_it(
    world: World, url: str, parameter: str
) -> None:
    client = client_for(root())
    response = client.get(f"{url}?{parameter}=%00")
    assert response.status_code == 400
    assert response.json() == {parameter: ["Null characters are not allowed."]}
    assert client.get(f"{url}?{parameter}=a%00b&limit=1").status_code == 400


# --- uploads --------------------------------------------------------------------------------


def uploads(world: World) -> list[tuple[str, dict[str, Any]]]:
    p1 = world.p1.pk
    return [
        (f"/api/projects/{p1}/imports/inspect/", {}),
        (f"/api/projects/{p1}/imports/", {"format": "csv"}),
        ("/api/taxonomies/", {}),
        ("/api/datasets/import/", {"format": "mafalda", "project": p1}),
    ]


@pytest.mark.parametrize("name", ["f.csv", "f.tsv", "f.txt", "f.jsonl", "f.yaml"])
def test_an_empty_upload_is_a_400_naming_the_file(world: World, name: str) -> None:
    client = client_for(world.admin)
    before = state()
    for url, fields in uploads(world):
        response = client.post(
            url, {**fields, "file": SimpleUploadedFile(name, b"")}, format="multipart"
        )
        assert response.status_code == 400, (url, response.content)
        assert "file" in response.json(), (url, response.content)
    assert state() == before


@pytest.mark.parametrize("content", [b"|", b",", b"\t", b'"', b"\xff", b"\x00"])
def test_a_one_byte_csv_is_a_400_naming_the_file(world: World, content: bytes) -> None:
    client = client_for(world.admin)
    before = state()
    response = client.post(
        f"/api/projects/{world.p1.pk}/imports/inspect/",
        {"file": SimpleUploadedFile("one.csv", content)},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["file"]
    for url, fields in uploads(world)[2:]:  # the synchronous imports
        response = client.post(
            url, {**fields, "file": SimpleUploadedFile("one.json", content)}, format="multipart"
        )
        assert response.status_code == 400, (url, response.content)
        assert "file" in json.dumps(response.json()) or "one.json" in json.dumps(response.json())
    assert state() == before


# --- what the schema says, the validation says ----------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "/api/evaluation/leaderboard/?gold_standard={g1}&profile=",
        "/api/evaluation/leaderboard/?gold_standard={g1}&format=",
        "/api/evaluation/leaderboard/?gold_standard={g1}&format=csv&format=json",
        "/api/evaluation/agreement/?gold_standard={g1}&average=",
        "/api/evaluation/runs/{run}/requests/?search=",
        "/api/evaluation/projects/{items}/item-leaderboard/?format=",
    ],
)
def test_an_empty_or_repeated_query_parameter_is_a_400_naming_it(world: World, query: str) -> None:
    from evaluation.models import ModelRun

    items = Project.objects.create(name="Items", taxonomy=world.taxonomy, kind="items")
    run = ModelRun.objects.create(
        project=world.p1, gold_standard=world.g1, name="r", model_name="m"
    )
    url = query.format(g1=world.g1.pk, run=run.pk, items=items.pk)
    response = client_for(root()).get(url)
    assert response.status_code == 400, response.content
    name = url.split("&")[-1].split("?")[-1].split("=")[0]
    assert name in response.json()


def test_a_boolean_in_a_json_body_is_true_or_false(world: World) -> None:
    client = client_for(world.admin)
    url = f"/api/evaluation/projects/{world.p1.pk}/suggestions/settings/"
    for value in (0, 1, "true", None):
        response = send(client, "put", url, {"assisted": value})
        assert response.status_code == 400 and list(response.json()) == ["assisted"], value
    response = send(client, "put", url, {"assisted": True})
    assert response.status_code == 200 and response.json()["assisted"] is True
    patch = send(client_for(root()), "patch", f"/api/projects/{world.p1.pk}/", {"archived": 1})
    assert patch.status_code == 400 and list(patch.json()) == ["archived"]


def test_project_kind_is_an_enum_in_the_schema_and_anything_else_is_refused(world: World) -> None:
    client = client_for(root())
    schema = client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    kind = components["ProjectCreateRequest"]["properties"]["kind"]["allOf"][0]["$ref"]
    assert components[kind.rsplit("/", 1)[1]]["enum"] == ["spans", "items"]
    response = send(client, "post", "/api/projects/", {"name": "K", "kind": "0"})
    assert response.status_code == 400 and list(response.json()) == ["kind"]


@pytest.mark.parametrize("url", ["/api/evaluation/prolog-rules/", "/api/evaluation/variants/"])
def test_a_project_filter_takes_any_64_bit_id_and_refuses_the_rest(world: World, url: str) -> None:
    client = client_for(root())
    assert client.get(url, {"project": str(-(2**63))}).status_code == 404
    assert client.get(url, {"project": "0"}).status_code == 404
    assert client.get(url, {"project": world.p1.pk}).status_code == 200
    for bad in ("", "x", str(2**63), "1.5"):
        response = client.get(url, {"project": bad})
        assert response.status_code == 400 and list(response.json()) == ["project"], bad
    repeated = client.get(f"{url}?project={world.p1.pk}&project={world.p1.pk}")
    assert repeated.status_code == 400 and list(repeated.json()) == ["project"]


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        ("texts.txt", b"A text.\n\nA second\x00 text.\n", "texts.txt:3"),
        ("texts.csv", b"text\nA\x00B\n", "texts.csv:2"),
        ("texts.jsonl", b'{"text": "fine"}\n{"text": "a\\u0000b"}\n', "texts.jsonl:2: text"),
        ("texts.jsonl", b'{"text": "\\ud800x"}\n', "texts.jsonl:1: text"),
        ("texts.jsonl", b'{"text": "x", "meta": ' + nested(100).encode() + b"}\n", "texts.jsonl:1"),
    ],
)
def test_text_no_database_stores_in_an_uploaded_file_is_refused_at_its_line(
    world: World, name: str, content: bytes, where: str
) -> None:
    client = client_for(world.admin)
    before = state()
    response = client.post(
        "/api/datasets/import/",
        {"format": "text", "project": world.p1.pk, "file": SimpleUploadedFile(name, content)},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert response.json()["detail"].startswith(where), response.json()
    assert state() == before


@pytest.mark.parametrize("bad", ["a\\u0000b", "\\ud800x"])
@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_a_taxonomy_file_with_unstorable_text_is_a_400_naming_the_place(
    world: World, bad: str, suffix: str
) -> None:
    body = (
        '{"name": "t", "version": "1", "title": "T",'
        f' "types": [{{"name": "x", "definition": "d{bad}"}}]}}'
    )
    before = state()
    response = client_for(root()).post(
        "/api/taxonomies/",
        {"file": SimpleUploadedFile(f"t{suffix}", body.encode())},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    [problem] = response.json()["file"]
    assert problem.startswith("types[0].definition: ")
    assert state() == before


@pytest.mark.parametrize("bad", ["a\\u0000b", "\\ud800x"])
def test_a_column_mapping_with_unstorable_text_is_a_400_naming_it(world: World, bad: str) -> None:
    client = client_for(root())
    created = send(client, "post", "/api/projects/", {"name": "I", "form_preset": "smartypat"})
    before = state()
    response = client.post(
        f"/api/projects/{created.json()['id']}/imports/",
        {
            "file": SimpleUploadedFile("i.csv", b"post\nA text.\n"),
            "format": "items",
            "columns": '{"text": "post", "id": "' + bad + '"}',
        },
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert "columns.id" in json.dumps(response.json())
    assert state() == before
