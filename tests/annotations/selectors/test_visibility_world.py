"""Every read path returns exactly what the one definition of visibility allows.

A randomised world (fixed seed; ``tests/support/visibility_world.py``) of three projects (one
archived) with every kind of user: a superuser without membership, a superuser who is an
annotator member of one project, admins, reviewers, annotators, a non-member and an
anonymous visitor; documents assigned to some annotators and to none; submitted and
in-progress annotations (with a span each), some on documents no longer assigned to their
author; draft and published gold versions; a run, a generation job, suggestions (one
project assisted) and prompt variants per project.

``Oracle`` states the documented rules (``annotations.selectors.access`` and
``evaluation.access`` docstrings) in plain Python over the world's facts; ``observe`` asks
every read path: the ORM querysets, the hand-written SQL reads (the span write's read,
opening a document, the project page, the document page, the project-and-role read) and
the APIs over them (item responses included). The flip test turns each switch of
``access.Rules`` and checks that every path the rule governs changes with it, as the oracle
says, and that together the switches reach every path: the SQL paths take their visibility
from the definition.
"""

from __future__ import annotations

import pprint
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotations.models import (
    Annotation,
    Document,
    Span,
)
from annotations.selectors import access
from annotations.selectors.opening import document_opened, project_with_role
from annotations.selectors.project_page import project_page
from annotations.services.span_sql import read_for_span_write
from evaluation import access as evaluation_access
from tests.support.visibility_world import (
    ADMIN,
    REVIEWER,
    SUBMITTED,
    World,
    build_world,
)

pytestmark = pytest.mark.django_db


# --- the rules, from the documentation -----------------------------------------------------


@dataclass(frozen=True)
class Flags:
    superusers_see_everything: bool = True
    annotators_see_unassigned_documents: bool = False
    annotators_see_others_submitted: bool = False


class Oracle:
    def __init__(self, world: World, flags: Flags) -> None:
        self.w, self.f = world, flags

    def all_seeing(self, u: int | None) -> bool:
        return u in self.w.superusers and self.f.superusers_see_everything

    def role(self, u: int | None, p: int) -> str | None:
        role = self.w.roles.get((u, p))
        return ADMIN if role is None and self.all_seeing(u) else role

    def staff(self, u: int | None, p: int) -> bool:
        return self.role(u, p) in (ADMIN, REVIEWER)

    def project_data(self, u: int | None, p: int) -> bool:
        """Gold, runs, generation jobs and their items: staff, and superusers everywhere."""
        return self.all_seeing(u) or self.staff(u, p)

    def project(self, u: int | None, p: int) -> bool:
        return u is not None and self.role(u, p) is not None

    def as_annotator(self, u: int | None, d: int) -> bool:
        """A member sees the document as an annotator does."""
        member = (u, self.w.documents[d]) in self.w.roles
        return member and ((u, d) in self.w.assigned or self.f.annotators_see_unassigned_documents)

    def document(self, u: int | None, d: int) -> bool:
        p = self.w.documents[d]
        return self.all_seeing(u) or self.staff(u, p) or self.as_annotator(u, d)

    def annotation(self, u: int | None, a: int) -> bool:
        d, author, status = self.w.annotations[a]
        p = self.w.documents[d]
        if self.all_seeing(u) or self.staff(u, p):
            return True
        if (u, p) not in self.w.roles:
            return False
        others = self.f.annotators_see_others_submitted and status == SUBMITTED
        return author == u or (others and self.as_annotator(u, d))

    def listed(self, u: int | None, d: int) -> frozenset[int]:
        """A visible document's annotation list: everyone's for staff, else their own (and
        others' submitted ones by the rules)."""
        mine = [a for a, (doc, _, _) in self.w.annotations.items() if doc == d]
        if self.staff(u, self.w.documents[d]):
            return frozenset(mine)
        others = self.f.annotators_see_others_submitted
        return frozenset(
            a
            for a in mine
            if self.w.annotations[a][1] == u or (others and self.w.annotations[a][2] == SUBMITTED)
        )

    def document_list(self, u: int | None, p: int) -> frozenset[int] | None:
        if not self.project(u, p):
            return None
        docs = [d for d, project in self.w.documents.items() if project == p]
        if self.staff(u, p):
            return frozenset(docs)
        return frozenset(d for d in docs if self.as_annotator(u, d))

    def staff_anywhere(self, u: int | None) -> bool:
        return self.all_seeing(u) or any(self.staff(u, p) for p in self.w.projects)

    def variant(self, u: int | None, v: int) -> bool:
        """The variants API: staff somewhere read the global rows and their projects'."""
        p = self.w.variants[v]
        if not self.staff_anywhere(u):
            return False
        return p is None or self.all_seeing(u) or self.staff(u, p)


# --- expected and observed -----------------------------------------------------------------

Facts = dict[str, frozenset]


def expected(w: World, flags: Flags) -> Facts:
    o = Oracle(w, flags)
    out: dict[str, set] = {}
    for name, user in w.users.items():
        u = user.pk

        def add(path: str, facts: Any, name: str = name) -> None:
            out.setdefault(path, set()).update((name, fact) for fact in facts)

        projects = [p for p in w.projects if o.project(u, p)]
        add("orm projects", projects)
        add("sql project page", [(p, w.projects[p]) for p in projects])
        add("api project list", [(p, w.projects[p]) for p in projects])
        add("sql project and role", [(p, o.role(u, p)) for p in projects])
        add("orm documents", [d for d in w.documents if o.document(u, d)])
        add("api document detail", [d for d in w.documents if o.document(u, d)])
        add("orm annotations", [a for a in w.annotations if o.annotation(u, a)])
        add("sql span read", [a for a in w.annotations if o.annotation(u, a)])
        add("sql span read by span", [s for s, a in w.spans.items() if o.annotation(u, a)])
        for d in w.documents:
            if o.document(u, d):
                listed = [(d, a) for a in o.listed(u, d)]
                add("orm listed annotations", listed)
                add("api document annotations", listed)
                add("sql opening", [(d, None), *listed])
                p = w.documents[d]
                if p in w.assisted or o.staff(u, p):
                    add("api suggestions", [s for s, doc in w.suggestions.items() if doc == d])
        add(
            "api item responses",
            [a for a in _responses(w) if o.document(u, w.annotations[a][0]) and o.annotation(u, a)],
        )
        for p in w.projects:
            found = o.document_list(u, p)
            if found is not None:
                add("sql document page", [(p, d) for d in [None, *found]])
        add("orm gold", [g for g, p in w.gold.items() if o.project_data(u, p)])
        add("api gold page", [p for p in w.projects if o.staff(u, p)])
        add("orm runs", [r for r, p in w.runs.items() if o.project_data(u, p)])
        add("api runs", [r for r, p in w.runs.items() if o.project_data(u, p)])
        add("orm generation jobs", [j for j, p in w.jobs.items() if o.project_data(u, p)])
        add("api generation jobs", [j for j, p in w.jobs.items() if o.project_data(u, p)])
        add("orm generated items", [i for i, p in w.items.items() if o.project_data(u, p)])
        add("api variants", [v for v in w.variants if o.variant(u, v)])
    return {path: frozenset(facts) for path, facts in out.items()}


def _client(user: Any) -> APIClient:
    client = APIClient()
    if user.is_authenticated:
        client.force_authenticate(user)
    return client


def _rows(response: Any) -> list[dict[str, Any]]:
    if response.status_code != 200:
        return []
    body = response.json()
    return body["results"] if isinstance(body, dict) else body


def _may(read: Callable[[], Any]) -> bool:
    try:
        read()
    except (Annotation.DoesNotExist, Span.DoesNotExist):
        return False
    return True


Add = Callable[..., None]  # add(path, facts): records (user's name, fact) under the path


def _observe_projects(w: World, user: Any, client: APIClient, add: Add) -> None:
    """The projects ``user`` sees: the queryset, the SQL project page and role read, the API."""
    add("orm projects", access.projects_for(user).values_list("pk", flat=True))
    if user.is_authenticated:
        for archived in (False, True):
            rows, _ = project_page(user, archived=archived, offset=0, limit=50)
            add("sql project page", [(row["id"], archived) for row in rows])
        for p in w.projects:
            found = project_with_role(user, p)
            if found.visible:
                add("sql project and role", [(p, found.role)])
    for archived in (0, 1):
        rows = _rows(client.get(f"/api/projects/?archived={archived}&limit=50"))
        add("api project list", [(row["id"], bool(archived)) for row in rows])


def _observe_documents(w: World, user: Any, client: APIClient, add: Add) -> None:
    """The documents and annotations ``user`` sees, on every path that reads them."""
    documents = access.documents_for(user).values_list("pk", flat=True)
    add("orm documents", documents)
    annotations = access.annotations_for(user).values_list("pk", flat=True)
    add("orm annotations", annotations)
    add("sql span read", [a for a in w.annotations if _may(_span_read(user, annotation=a))])
    add("sql span read by span", [s for s in w.spans if _may(_span_read(user, span_id=s))])
    for d in w.documents:
        if client.get(f"/api/documents/{d}/").status_code == 200:
            add("api document detail", [d])
        document = Document.objects.filter(pk=d, pk__in=access.documents_for(user)).first()
        if document is not None:
            listed = access.listed_annotations(user, document).values_list("pk", flat=True)
            add("orm listed annotations", [(d, a) for a in listed])
        response = client.get(f"/api/documents/{d}/annotations/")
        add("api document annotations", [(d, row["id"]) for row in _rows(response)])
        opened = document_opened(user, d) if user.is_authenticated else None
        if opened is not None:
            add("sql opening", [(d, None), *[(d, a["id"]) for a in opened["annotations"]]])
        rows = client.get(f"/api/evaluation/documents/{d}/suggestions/")
        if rows.status_code == 200:
            add("api suggestions", [s["id"] for s in rows.json()["suggestions"]])
    for a in _responses(w):
        d, author, _ = w.annotations[a]
        response = client.get(f"/api/documents/{d}/response/?annotator={author}")
        if response.status_code == 200 and response.json()["annotation"] is not None:
            add("api item responses", [response.json()["annotation"]["id"]])


def _observe_project_data(w: World, user: Any, client: APIClient, add: Add) -> None:
    """The document page, gold, runs, generation jobs and items, and variants ``user`` sees."""
    for p in w.projects:
        response = client.get(f"/api/projects/{p}/documents/?limit=100")
        if response.status_code == 200:
            add("sql document page", [(p, None), *[(p, r["id"]) for r in _rows(response)]])
        if client.get(f"/api/projects/{p}/gold/").status_code == 200:
            add("api gold page", [p])
    add("orm gold", access.gold_standards_for(user).values_list("pk", flat=True))
    add("orm runs", evaluation_access.runs_for(user).values_list("pk", flat=True))
    add("api runs", [r["id"] for r in _rows(client.get("/api/evaluation/runs/?limit=100"))])
    jobs = evaluation_access.generation_jobs_for(user).values_list("pk", flat=True)
    add("orm generation jobs", jobs)
    response = client.get("/api/evaluation/generation-jobs/")
    add("api generation jobs", [j["id"] for j in _rows(response)])
    items = evaluation_access.generated_items_for(user).values_list("pk", flat=True)
    add("orm generated items", items)
    variants = [v["id"] for v in _rows(client.get("/api/evaluation/variants/"))]
    add("api variants", [v for v in variants if v in w.variants])  # not the built-ins


def observe(w: World) -> Facts:
    """What every read path gives each user: path -> (user's name, fact)."""
    out: dict[str, set] = {}
    for name, user in w.users.items():

        def add(path: str, facts: Any, name: str = name) -> None:
            out.setdefault(path, set()).update((name, fact) for fact in facts)

        client = _client(user)
        _observe_projects(w, user, client, add)
        _observe_documents(w, user, client, add)
        _observe_project_data(w, user, client, add)
    return {path: frozenset(facts) for path, facts in out.items()}


def _responses(w: World) -> list[int]:
    """The annotations read as item responses: those of the first document (a sample: an
    item's form is costly to render)."""
    first = min(w.documents)
    return [a for a, (d, _, _) in w.annotations.items() if d == first]


def _span_read(user: Any, **which: Any) -> Callable[[], Any]:
    return lambda: read_for_span_write(by=user, start=0, end=4, **which)


def _differences(found: Facts, wanted: Facts) -> dict[str, Any]:
    return {
        path: {
            "unexpected": sorted(found.get(path, set()) - wanted.get(path, set()), key=str)[:5],
            "missing": sorted(wanted.get(path, set()) - found.get(path, set()), key=str)[:5],
        }
        for path in set(found) | set(wanted)
        if found.get(path, frozenset()) != wanted.get(path, frozenset())
    }


# --- the tests -------------------------------------------------------------------------------


def test_the_flags_are_the_definitions_rules() -> None:
    """The oracle's switches are the definition's, with the same defaults."""
    assert {f.name: f.default for f in fields(Flags)} == {
        f.name: f.default for f in fields(access.Rules)
    }
    assert access.rules() == access.Rules()


def test_every_read_path_returns_what_the_rules_allow() -> None:
    world = build_world()
    wanted = expected(world, Flags())
    assert all(wanted.values()), [path for path, facts in wanted.items() if not facts]
    differences = _differences(observe(world), wanted)
    assert not differences, pprint.pformat(differences)


def test_every_read_path_follows_a_flipped_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each switch flipped in the definition alone: every path the oracle says it governs
    changes, exactly as the oracle says, and the switches together reach every path."""
    world = build_world()
    default = expected(world, Flags())
    reached: set[str] = set()
    for switch in fields(Flags):
        flags = replace(Flags(), **{switch.name: not switch.default})
        monkeypatch.setattr(access, "RULES", access.Rules(**vars(flags)))
        wanted = expected(world, flags)
        governed = {path for path in default if wanted.get(path) != default[path]}
        assert governed, switch.name  # the world holds a case the switch decides
        differences = _differences(observe(world), wanted)
        assert not differences, (switch.name, pprint.pformat(differences))
        reached |= governed
    monkeypatch.setattr(access, "RULES", access.Rules())
    assert sorted(set(default) - reached) == []
