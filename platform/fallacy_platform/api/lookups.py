"""The API's lookups of a project or document by id, with the rules of
``annotations.selectors.access`` (what is not visible is a 404, so existence does not leak)
and ``annotations.selectors.policy`` (an action the user's role does not allow, on something
they see, is a 403: ``require``)."""

from __future__ import annotations

from collections.abc import Callable

from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request

from annotations.models import Document, Project
from annotations.selectors.access import User, documents_for, is_staff_of, projects_for

Rule = Callable[[User | None, Project], bool]
NO_PROJECT = "No project with this id."
NO_DOCUMENT = "No document with this id."


def require(allowed: bool, refusal: str) -> None:
    """403 with ``refusal`` unless ``allowed`` (a ``policy.may_*`` answer)."""
    if not allowed:
        raise PermissionDenied(refusal)


def _visible_project(request: Request, pk: int) -> Project | None:
    return projects_for(request.user).select_related("taxonomy").filter(pk=pk).first()


def member_project(
    request: Request, pk: int, may: Rule | None = None, refusal: str = ""
) -> Project:
    """A project of the user's (404 otherwise); 403 with ``refusal`` unless ``may`` allows
    the user there."""
    project = _visible_project(request, pk)
    if project is None:
        raise NotFound(NO_PROJECT)
    if may is not None:
        require(may(request.user, project), refusal or "your role in the project does not allow it")
    return project


def project_where(request: Request, pk: int, rule: Rule) -> Project:
    """A project of the user's where ``rule`` allows them (404 otherwise: for the others
    what the rule guards does not exist)."""
    project = _visible_project(request, pk)
    if project is None or not rule(request.user, project):
        raise NotFound(NO_PROJECT)
    return project


def staff_project(request: Request, pk: int) -> Project:
    """A project the user reviews or administers (404 otherwise: its reviews, gold
    standards and evaluation do not exist for its annotators)."""
    return project_where(request, pk, is_staff_of)


def visible_document(request: Request, pk: int) -> Document:
    """A document the user sees (``access.documents_for``; 404 otherwise), with its
    project."""
    document = documents_for(request.user).select_related("project").filter(pk=pk).first()
    if document is None:
        raise NotFound(NO_DOCUMENT)
    return document


def staff_document(request: Request, pk: int) -> Document:
    """A document of a project the user reviews or administers (404 otherwise)."""
    document = documents_for(request.user).select_related("project__taxonomy").filter(pk=pk).first()
    if document is None or not is_staff_of(request.user, document.project_id):
        raise NotFound(NO_DOCUMENT)
    return document


def body_project_id(data: object, key: str = "project") -> int | None:
    """A request body's project id before the body is validated (so that roles are checked
    first: 404 / 403 before a 400); None when it is not an id."""
    raw = data.get(key) if hasattr(data, "get") else None
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) < 19:
        return int(raw)
    return None
