"""Every API route, every method, as every role: allowed or refused as ``route_roles.TABLE``
declares (the actions' rules of ``annotations.selectors.policy``, the reads' of
``annotations.selectors.access``).

The routes come from Django's URL resolver (everything under ``api/``), the methods from each
view's handlers, so a new route or method missing from the table fails the test. Each call
runs on one seeded world (``build_world``): project P1 with an annotator, a reviewer and an
admin; P2's admin (``other_admin``, a stranger to P1); a superuser without membership; an
anonymous visitor. Every path parameter names one of P1's objects (``PARAMETERS``). Each call
is rolled back, so none sees another's writes. Refused is 401, 403 or 404; allowed is any
other answer but a server error (a 400 for a body that is not valid is allowed: the rules let
the call through).
"""

from __future__ import annotations

import pprint
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.parsers import JSONParser
from rest_framework.test import APIClient

from annotations.models import (
    Annotation,
    Assignment,
    Document,
    GoldStandard,
    ImportJob,
    Membership,
    Project,
    Span,
)
from annotations.selectors import policy
from evaluation.models import (
    GeneratedItem,
    GenerationJob,
    ModelRun,
    PrologRule,
    PromptVariant,
    Suggestion,
    SuggestionSettings,
)
from tests.platform.route_roles import ROLES, TABLE, Case
from tests.support.factories import make_document, make_taxonomy
from tests.support.item_results import FORM

pytestmark = pytest.mark.django_db

REFUSED = (401, 403, 404)
METHODS = ("get", "post", "put", "patch", "delete")


# --- the world -----------------------------------------------------------------------------


@dataclass
class World:
    users: dict[str, Any]  # role -> user (None: anonymous)
    ids: dict[str, Any]  # what the path parameters and the table's bodies name


def build_world() -> World:
    taxonomy = make_taxonomy()
    p1 = Project.objects.create(name="P1", taxonomy=taxonomy)
    p2 = Project.objects.create(name="P2", taxonomy=taxonomy)
    users: dict[str, Any] = {"anonymous": None}
    for role in ("annotator", "reviewer", "admin", "other_admin"):
        users[role] = User.objects.create_user(role, email=f"{role}@example.org")
    users["superuser"] = User.objects.create_superuser("root", email="root@example.org")
    second = User.objects.create_user("annotator2")
    for role in ("annotator", "reviewer", "admin"):
        Membership.objects.create(project=p1, user=users[role], role=role)
    membership = Membership.objects.create(project=p1, user=second, role="annotator")
    Membership.objects.create(project=p2, user=users["other_admin"], role="admin")
    document = make_document(p1, 0, "d1")
    make_document(p2, 0, "p2-d1")
    for user in (users["annotator"], second):
        Assignment.objects.create(document=document, annotator=user)
    mine = Annotation.objects.create(document=document, annotator=users["annotator"])
    span = Span.objects.create(annotation=mine, start=0, end=11, labels=["ad hominem"])
    Annotation.objects.create(document=document, annotator=second, status="submitted")
    items, item_document = _item_project(taxonomy, users)
    gold = GoldStandard.objects.create(
        project=p1, version=1, status="published", published_at=timezone.now()
    )
    job = ImportJob.objects.create(project=p1, format="text", file_name="t.txt")
    run = ModelRun.objects.create(project=p1, name="run", gold_standard=gold)
    rule = PrologRule.objects.create(type="world", source="fallacy(x).", project=p1)
    generation = GenerationJob.objects.create(project=p1, rule=rule, backend="fake")
    item = GeneratedItem.objects.create(job=generation, document=document, position=0)
    variant = PromptVariant.objects.create(name="v", template="t", project=p1)
    SuggestionSettings.objects.create(project=p1, assisted=True)
    suggestion = Suggestion.objects.create(
        run=run, document=document, unit_index=0, start=0, end=29, labels=["ad hominem"]
    )
    ids = {
        "project": p1.pk,
        "item_project": items.pk,
        "item_document": item_document.pk,
        "document": document.pk,
        "annotation": mine.pk,
        "span": span.pk,
        "import": job.pk,
        "membership": membership.pk,
        "gold": gold.pk,
        "gold_version": gold.version,
        "run": run.pk,
        "rule": rule.pk,
        "generation_job": generation.pk,
        "generated_item": item.pk,
        "variant": variant.pk,
        "suggestion": suggestion.pk,
        "annotator": users["annotator"].pk,
        "annotator2": second.pk,
        **_invitation(p1, users["admin"]),
    }
    return World(users, ids)


def _item_project(taxonomy: Any, users: dict[str, Any]) -> tuple[Project, Document]:
    """P1's twin of the item kind (the same members), with an item assigned to the
    annotator, who has started a response."""
    project = Project.objects.create(name="P1 items", taxonomy=taxonomy, kind="items", form=FORM)
    for role in ("annotator", "reviewer", "admin"):
        Membership.objects.create(project=project, user=users[role], role=role)
    item = Document.objects.create(
        project=project, text="Everyone knows it.", position=0, metadata={"gold": {}}
    )
    Assignment.objects.create(document=item, annotator=users["annotator"])
    Annotation.objects.create(document=item, annotator=users["annotator"], response={})
    return project, item


def _invitation(project: Project, admin: User) -> dict[str, Any]:
    from annotations.services.invitations import create_invitation

    invitation, token = create_invitation(project=project, role="annotator", created_by=admin)
    return {"invitation": invitation.pk, "token": token}


# Which of the world's objects a path parameter names: (the segment before it, its name).
PARAMETERS = {
    ("projects", "pk"): "project",
    ("documents", "pk"): "document",
    ("annotations", "pk"): "annotation",
    ("spans", "pk"): "span",
    ("imports", "pk"): "import",
    ("members", "membership_id"): "membership",
    ("gold", "version"): "gold_version",
    ("runs", "pk"): "run",
    ("variants", "pk"): "variant",
    ("prolog-rules", "pk"): "rule",
    ("generation-jobs", "pk"): "generation_job",
    ("generation-items", "pk"): "generated_item",
    ("suggestions", "pk"): "suggestion",
    ("invitations", "invitation_id"): "invitation",
    ("invitations", "token"): "token",
}


# --- the routes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    pattern: str  # as the resolver spells it: api/projects/<int:pk>/
    view: Any  # the view class

    def methods(self) -> list[str]:
        return [m.upper() for m in METHODS if hasattr(self.view, m)]

    def multipart(self) -> bool:
        parsers = getattr(self.view, "parser_classes", None) or []
        return not any(issubclass(p, JSONParser) for p in parsers)


def api_routes() -> list[Route]:
    """Every route under ``api/`` of Django's URL resolver."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[Route]:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                view = getattr(entry.callback, "view_class", None) or getattr(
                    entry.callback, "cls", None
                )
                yield Route(prefix + str(entry.pattern), view)

    return [r for r in walk(get_resolver().url_patterns, "") if r.pattern.startswith("api/")]


def operations() -> dict[str, Route]:
    """``"METHOD pattern"`` -> its route, for every route and method."""
    return {f"{method} {r.pattern}": r for r in api_routes() for method in r.methods()}


def url_of(pattern: str, ids: dict[str, Any]) -> str:
    def fill(match: re.Match) -> str:
        before = pattern[: match.start()].rstrip("/").rsplit("/", 1)[-1]
        key = PARAMETERS.get((before, match.group(1)))
        assert key is not None, f"{pattern}: declare in PARAMETERS what <{match.group(1)}> names"
        return str(ids[key])

    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", fill, pattern)


# --- calling ---------------------------------------------------------------------------------


def _format(value: Any, ids: dict[str, Any]) -> Any:
    """The table's bodies and queries name the world's objects as ``{project}`` etc."""
    if isinstance(value, str):
        return value.format(**ids)
    if isinstance(value, dict):
        return {k: _format(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_format(v, ids) for v in value]
    return value


def call(world: World, role: str, method: str, route: Route, case: Case) -> int:
    """The status of one call, its writes rolled back."""
    client = APIClient(raise_request_exception=False)  # a server error is a 500 here
    user = world.users[role]
    if user is not None:
        client.force_authenticate(user)
    ids = {**world.ids, "me": user.pk if user else 0}
    ids |= {name: world.ids[key] for name, key in case.params.items()}
    url = url_of(route.pattern, ids) + _format(case.query, ids)
    body = _format(case.body or {}, ids)
    kwargs: dict[str, Any] = {}
    if method != "GET":
        kwargs = {"data": body, "format": "multipart" if route.multipart() else "json"}
    with transaction.atomic():
        response = getattr(client, method.lower())(url, **kwargs)
        transaction.set_rollback(True)
    return response.status_code


def observe(world: World, keys: list[str]) -> tuple[dict[str, Any], list[str]]:
    """For each table key: the roles allowed, and the calls that answered a server error."""
    routes = operations()
    found: dict[str, Any] = {}
    errors = []
    for key in keys:
        method = key.split(" ", 1)[0]
        cases = TABLE[key] if isinstance(TABLE[key], tuple) else (TABLE[key],)
        for n, case in enumerate(cases):
            allowed = set()
            for role in ROLES:
                status = call(world, role, method, routes[key], case)
                if status >= 500:
                    errors.append(f"{key} #{n} as {role}: {status}")
                elif status not in REFUSED:
                    allowed.add(role)
            found[f"{key} #{n}"] = frozenset(allowed)
    return found, errors


def differences(found: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, allowed in found.items():
        key, n = name.rsplit(" #", 1)
        cases = TABLE[key] if isinstance(TABLE[key], tuple) else (TABLE[key],)
        wanted = cases[int(n)].allowed
        if allowed != wanted:
            out[name] = {
                "also allowed": sorted(allowed - wanted),
                "refused": sorted(wanted - allowed),
            }
    return out


# --- the tests -------------------------------------------------------------------------------


def test_every_api_route_and_method_is_declared() -> None:
    declared, found = set(TABLE), set(operations())
    assert not found - declared, f"declare in route_roles.TABLE: {sorted(found - declared)}"
    assert not declared - found, f"no such route any more: {sorted(declared - found)}"


def test_every_route_allows_exactly_the_declared_roles() -> None:
    world = build_world()
    found, errors = observe(world, sorted(TABLE))
    assert (errors, differences(found)) == ([], {}), pprint.pformat((errors, differences(found)))


def test_a_flipped_rule_fails_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules are read at call time from ``policy.ACTIONS``: exporting others'
    annotations made admins-only refuses the reviewer there, and the table says so."""
    world = build_world()
    key = "GET api/datasets/export/"
    found, _ = observe(world, [key])
    assert not differences(found)
    monkeypatch.setitem(policy.ACTIONS, "export_annotations", policy.ADMINS)
    found, _ = observe(world, [key])
    flipped = differences(found)
    assert flipped == {
        f"{key} #0": {"also allowed": [], "refused": ["reviewer"]}
    }  # the reviewer's export of another annotator's annotations, and nothing else
