"""Writes on projects, their memberships and user accounts.

Every function is one transaction. Writes on one project's settings or members first lock
the project row (``select_for_update``), so concurrent changes serialise: two admins
removing each other never leave the project without an admin, and a taxonomy change
waits for a running import (imports lock the project row too).

Permissions are the caller's business (the API checks roles); these functions check the
data. Errors are ``django.core.exceptions.ValidationError`` with a ``{field: [message]}``
dict naming the field, the user or the project (a form's problems are named by their place,
``form.fields[2].kind``).

Item projects (``kind="items"``) carry a ``form`` (``annotations.items``), checked with
``parse_form``; a project's kind can change only while it has no document.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from annotations.items import PROJECT_KINDS, FormError, parse_form
from annotations.models import (
    Annotation,
    Assignment,
    Document,
    GoldStandard,
    Membership,
    Project,
    Span,
    Taxonomy,
)
from annotations.models.projects import TEMPLATE_MODES

UNSET: Any = object()  # "leave this field as it is"
EDITABLE = (
    "name",
    "description",
    "guidelines",
    "annotators_per_document",
    "justification_templates",
)


def _lock(project: Project) -> Project:
    return Project.objects.select_for_update().get(pk=project.pk)


def _clean_name(name: str, *, project: Project | None = None) -> str:
    name = " ".join(name.split())
    if not name:
        raise ValidationError({"name": ["a project needs a name"]})
    max_length = Project._meta.get_field("name").max_length
    if len(name) > max_length:
        raise ValidationError({"name": [f"at most {max_length} characters"]})
    taken = Project.objects.filter(name=name)
    if project is not None:
        taken = taken.exclude(pk=project.pk)
    if taken.exists():
        raise ValidationError({"name": [f"a project named '{name}' already exists"]})
    return name


def _clean_per_document(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError({"annotators_per_document": ["must be a whole number of 1 or more"]})
    return value


def _clean_kind(kind: str) -> str:
    if kind not in PROJECT_KINDS:
        raise ValidationError(
            {"kind": [f"unknown kind '{kind}'; one of {', '.join(PROJECT_KINDS)}"]}
        )
    return kind


def _clean_templates(mode: str) -> str:
    if mode not in TEMPLATE_MODES:
        raise ValidationError(
            {"justification_templates": [f"'{mode}' is not one of {', '.join(TEMPLATE_MODES)}"]}
        )
    return mode


def _clean_form(kind: str, form: Any) -> dict[str, Any]:
    """The form JSON, checked; ``ValidationError`` naming each bad place (``form.fields[2]``)."""
    form = form or {}
    try:
        parse_form(form)
    except FormError as error:
        raise ValidationError(
            {
                f"form.{place}" if place != "form" else "form": messages
                for place, messages in error.problems.items()
            }
        ) from error
    if kind != "items" and form:
        raise ValidationError({"form": ["only item projects (kind items) have a form"]})
    return dict(form)


def _save(project: Project, **kwargs: Any) -> None:
    try:
        with transaction.atomic():
            project.save(**kwargs)
    except IntegrityError as exc:  # a concurrent create or rename to the same name
        if Project.objects.filter(name=project.name).exclude(pk=project.pk).exists():
            raise ValidationError(
                {"name": [f"a project named '{project.name}' already exists"]}
            ) from exc
        raise


# --- projects --------------------------------------------------------------------------


@transaction.atomic
def create_project(
    *,
    name: str,
    taxonomy: Taxonomy,
    guidelines: str = "",
    description: str = "",
    annotators_per_document: int = 1,
    created_by: AbstractBaseUser | None = None,
    kind: str = "spans",
    form: dict[str, Any] | None = None,
    justification_templates: str = "optional",
) -> Project:
    """A new project; ``created_by`` (when given) becomes its admin member. An item project
    (``kind="items"``) has a ``form`` (see ``annotations.items``)."""
    kind = _clean_kind(kind)
    project = Project(
        kind=kind,
        form=_clean_form(kind, form),
        name=_clean_name(name),
        taxonomy=taxonomy,
        guidelines=guidelines,
        description=description,
        annotators_per_document=_clean_per_document(annotators_per_document),
        justification_templates=_clean_templates(justification_templates),
    )
    _save(project)
    if created_by is not None:
        Membership.objects.create(project=project, user=created_by, role=Membership.Role.ADMIN)
    return project


def has_annotation_data(project: Project) -> bool:
    """Whether any span or gold standard refers to the project's taxonomy labels."""
    return (
        Span.objects.filter(annotation__document__project=project).exists()
        or GoldStandard.objects.filter(project=project).exists()
    )


@transaction.atomic
def update_project(
    *,
    project: Project,
    name: str = UNSET,
    description: str = UNSET,
    guidelines: str = UNSET,
    annotators_per_document: int = UNSET,
    taxonomy: Taxonomy = UNSET,
    archived: bool = UNSET,
    kind: str = UNSET,
    form: dict[str, Any] = UNSET,
    justification_templates: str = UNSET,
) -> Project:
    """Change a project's settings (only the fields given). The taxonomy can change only
    while the project has no span and no gold standard (their labels come from it), the
    kind only while it has no document. ``archived`` archives (hides) or unarchives the
    project."""
    project = _lock(project)
    changed = _set_kind_and_form(project, kind, form)
    if archived is not UNSET and archived != (project.archived_at is not None):
        project.archived_at = timezone.now() if archived else None
        changed.append("archived_at")
    if name is not UNSET:
        project.name = _clean_name(name, project=project)
        changed.append("name")
    if description is not UNSET:
        project.description = description
        changed.append("description")
    if guidelines is not UNSET:
        project.guidelines = guidelines
        changed.append("guidelines")
    if annotators_per_document is not UNSET:
        project.annotators_per_document = _clean_per_document(annotators_per_document)
        changed.append("annotators_per_document")
    if justification_templates is not UNSET:
        project.justification_templates = _clean_templates(justification_templates)
        changed.append("justification_templates")
    changed += _set_taxonomy(project, taxonomy)
    if changed:
        _save(project, update_fields=changed)
    return project


def _set_kind_and_form(project: Project, kind: str, form: dict[str, Any]) -> list[str]:
    """Set the kind (only while the project has no document) and the form, each unless
    ``UNSET``; leaving the items kind drops the form unless one is given. Returns the
    fields changed."""
    changed: list[str] = []
    if kind is not UNSET and _clean_kind(kind) != project.kind:
        if Document.objects.filter(project=project).exists():
            raise ValidationError(
                {
                    "kind": [
                        f"project '{project.name}' already has documents; its kind can no"
                        " longer change"
                    ]
                }
            )
        project.kind = kind
        changed.append("kind")
        if form is UNSET and kind != "items" and project.form:
            form = {}
    if form is not UNSET:
        project.form = _clean_form(project.kind, form)
        changed.append("form")
    return changed


def _set_taxonomy(project: Project, taxonomy: Taxonomy) -> list[str]:
    """Set the taxonomy unless ``UNSET`` or the same, only while the project has no span and
    no gold standard. Returns the fields changed."""
    if taxonomy is UNSET or taxonomy.pk == project.taxonomy_id:
        return []
    if has_annotation_data(project):
        raise ValidationError(
            {
                "taxonomy": [
                    f"project '{project.name}' already has spans or a gold standard;"
                    " its taxonomy can no longer change"
                ]
            }
        )
    project.taxonomy = taxonomy
    return ["taxonomy"]


# --- members ---------------------------------------------------------------------------


NOT_FOUND = "no user you share a project with has the username or e-mail '{}'; invite them instead"


def find_user(
    identifier: str, *, among: QuerySet | None = None, field: str = "user"
) -> AbstractBaseUser:
    """The user with this username or e-mail (case-insensitive) among ``among`` (default:
    every account); ``ValidationError`` on ``field`` when there is none there (the same
    answer whether or not an account outside ``among`` matches), or when an e-mail is
    shared by several accounts."""
    users = get_user_model().objects.all() if among is None else among
    login = identifier.strip()
    user = users.filter(username=login).first() or users.filter(username__iexact=login).first()
    if user is None and login:
        by_email = list(users.filter(email__iexact=login)[:2])
        if len(by_email) > 1:
            raise ValidationError(
                {field: [f"several users have the e-mail '{login}'; give the username"]}
            )
        user = by_email[0] if by_email else None
    if user is None:
        raise ValidationError({field: [NOT_FOUND.format(login)]})
    return user


def _check_role(role: str) -> None:
    if role not in Membership.Role.values:
        raise ValidationError(
            {
                "role": [
                    f"unknown role '{role}'; expected one of {', '.join(Membership.Role.values)}"
                ]
            }
        )


def _refuse_last_admin(membership: Membership, doing: str) -> None:
    if membership.role != Membership.Role.ADMIN:
        return
    others = Membership.objects.filter(
        project_id=membership.project_id, role=Membership.Role.ADMIN
    ).exclude(pk=membership.pk)
    if not others.exists():
        raise ValidationError(
            {
                "user": [
                    f"{membership.user.get_username()} is the last admin of project"
                    f" '{membership.project.name}'; make someone else admin before {doing}"
                ]
            }
        )


@transaction.atomic
def add_member(*, project: Project, user: AbstractBaseUser | str, role: str) -> Membership:
    """Make ``user`` (a user, or a username or e-mail) a member with ``role``; an existing
    member gets the new role (refused when that demotes the project's last admin)."""
    _check_role(role)
    if isinstance(user, str):
        user = find_user(user)
    _lock(project)
    membership = Membership.objects.filter(project=project, user=user).first()
    if membership is None:
        return Membership.objects.create(project=project, user=user, role=role)
    return _change_role(membership, role)


def _change_role(membership: Membership, role: str) -> Membership:
    if membership.role != role:
        if role != Membership.Role.ADMIN:
            _refuse_last_admin(membership, "changing their role")
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def change_role(*, membership: Membership, role: str) -> Membership:
    """A member's new role; the project's last admin keeps theirs."""
    _check_role(role)
    _lock(membership.project)
    return _change_role(
        Membership.objects.select_related("user", "project").get(pk=membership.pk), role
    )


@transaction.atomic
def remove_member(*, membership: Membership) -> int:
    """Remove a member. Their annotations stay (attributed to them); their assignments
    without an annotation by them are removed (returns how many). The last admin stays."""
    _lock(membership.project)
    membership = Membership.objects.select_related("user", "project").get(pk=membership.pk)
    _refuse_last_admin(membership, "removing them")
    annotated = Annotation.objects.filter(
        document=OuterRef("document"), annotator=OuterRef("annotator")
    )
    removed, _ = (
        Assignment.objects.filter(
            annotator_id=membership.user_id, document__project_id=membership.project_id
        )
        .exclude(Exists(annotated))
        .delete()
    )
    membership.delete()
    return removed


# --- user accounts ---------------------------------------------------------------------


@transaction.atomic
def create_user(*, username: str, password: str, email: str = "") -> AbstractBaseUser:
    """A new (non-staff) account; the username and e-mail are unique case-insensitively and
    the password must pass the project's Django password validators."""
    model = get_user_model()
    username, email = username.strip(), email.strip()
    errors: dict[str, list[str]] = {}
    if not username:
        errors["username"] = ["a username is required"]
    else:
        try:
            model.username_validator(username)
        except ValidationError as exc:
            errors["username"] = list(exc.messages)
        if model.objects.filter(username__iexact=username).exists():
            errors["username"] = [f"the username '{username}' is taken"]
    if email:
        try:
            validate_email(email)
        except ValidationError:
            errors["email"] = [f"'{email}' is not an e-mail address"]
        else:
            if model.objects.filter(email__iexact=email).exists():
                errors["email"] = [f"another account has the e-mail '{email}'"]
    try:
        validate_password(password, user=model(username=username, email=email))
    except ValidationError as exc:
        errors["password"] = list(exc.messages)
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            return model.objects.create_user(username=username, email=email, password=password)
    except IntegrityError as exc:  # created concurrently
        raise ValidationError({"username": [f"the username '{username}' is taken"]}) from exc
