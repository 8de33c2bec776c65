"""Who a Label Studio export's annotators become on the platform.

A *source annotator* is named by its Label Studio user id (``completed_by: 1``, the Export
button) and, in a snapshot export, its e-mail too (``completed_by: {"id": 1, "email": ...}``).
Its *key* is the id (``"1"``), or the e-mail (lower case) when the file gives no id
(read from the file by ``formats.label_studio_sources``).

The user holding its work, per project (``LabelStudioAnnotator`` rows remember it, so the
Export button's file and a snapshot, in either order, land on the same user):

1. the user's choice for its key (or its e-mail): ``member`` (an existing member: any
   account for an operator's import), ``invite`` (an invitation to that e-mail; an inactive
   placeholder account holds the work until the invitation is accepted, when the work moves
   to the accepting account: ``services.placeholders``), ``drop`` (its work is skipped);
2. else the project's row for its id, else for its e-mail;
3. else (a file our export wrote names the platform username in the task's meta) the
   account of that username (the Import tab: only a member's);
   else a member whose e-mail is its e-mail, or whose username is its e-mail or
   ``ls-user-<id>`` (an operator's import: any account with that e-mail, else the account
   named ``ls-user-<id>``, created when new, or the e-mail when known);
4. else (the Import tab) a new inactive placeholder account ``ls-user-<id>`` (a suffix when
   taken) without e-mail or password: an e-mail written in an uploaded file never selects
   nor claims an account outside the project.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from annotations.importing.formats.label_studio import Completion
from annotations.importing.formats.label_studio_sources import (
    SourceAnnotator,
    clean_email,
    source_key,
)
from annotations.models import Invitation, LabelStudioAnnotator, Membership, Project
from annotations.services import invitations
from annotations.services.projects import find_user

ACTIONS = ("auto", "member", "invite", "drop")
FIELD = "annotators"
MAX_CHOICES = 1000


@dataclass(frozen=True)
class AnnotatorChoice:
    action: str = "auto"
    user: str = ""  # member: username or e-mail
    email: str = ""  # invite: where the invitation goes
    invitation: int | None = None  # invite: the invitation, once created

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action}
        data.update({k: v for k, v in (("user", self.user), ("email", self.email)) if v})
        if self.invitation is not None:
            data["invitation"] = self.invitation
        return data


def _invalid(message: str) -> ValidationError:
    return ValidationError({FIELD: [message]})


def _choice(key: str, value: Any) -> AnnotatorChoice:
    if isinstance(value, str):  # "drop", "member:alice", "invite:a@b.org"
        action, _, target = value.partition(":")
        value = {"action": action, "user" if action == "member" else "email": target}
    if not isinstance(value, dict):
        raise _invalid(f"{key}: expected an object with an action")
    action = value.get("action", "auto")
    if action not in ACTIONS:
        raise _invalid(f"{key}: unknown action {action!r}; one of {', '.join(ACTIONS)}")
    user, email = value.get("user") or "", value.get("email") or ""
    invitation = value.get("invitation")
    if not isinstance(user, str) or not isinstance(email, str):
        raise _invalid(f"{key}: user and email are strings")
    if invitation is not None and (not isinstance(invitation, int) or isinstance(invitation, bool)):
        raise _invalid(f"{key}: invitation is an id")
    if action == "member" and not user.strip():
        raise _invalid(f"{key}: a member choice names the member (username or e-mail)")
    if action == "invite" and not email.strip():
        raise _invalid(f"{key}: an invitation needs an e-mail address")
    return AnnotatorChoice(action, user.strip(), email.strip(), invitation)


def parse_choices(raw: Mapping[str, Any] | str | None) -> dict[str, AnnotatorChoice]:
    """``{key: {"action": ..., "user"|"email": ...}}`` (or ``"member:NAME"``,
    ``"invite:EMAIL"``, ``"drop"``), as JSON text or a mapping; ``ValidationError`` on
    ``annotators`` naming the key."""
    if raw in (None, ""):
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as error:
            raise _invalid(f"not JSON: {error}") from error
    if not isinstance(raw, Mapping):
        raise _invalid("expected an object mapping each annotator's key to a choice")
    if len(raw) > MAX_CHOICES:
        raise _invalid(f"at most {MAX_CHOICES} annotators")
    return {str(key).strip().casefold(): _choice(str(key), value) for key, value in raw.items()}


def dropped_keys(raw: Mapping[str, Any] | str | None) -> set[str]:
    """The keys a job's ``annotators`` option drops (already checked when the job was made)."""
    return {key for key, choice in parse_choices(raw).items() if choice.action == "drop"}


def is_dropped(completion: Completion, dropped: set[str]) -> bool:
    email = clean_email(completion.email).casefold()
    return source_key(completion) in dropped or bool(email and email in dropped)


def prepare_choices(
    *,
    project: Project,
    choices: dict[str, AnnotatorChoice],
    created_by: AbstractBaseUser | None,
    members_only: bool,
) -> tuple[dict[str, AnnotatorChoice], list[tuple[Invitation, str]]]:
    """The choices checked (each member exists: among the project's members when
    ``members_only``) and each invitation created; returns them with the invitations and
    their tokens (shown once). Call inside the caller's transaction."""
    among = project_members(project) if members_only else None
    ready: dict[str, AnnotatorChoice] = {}
    created: list[tuple[Invitation, str]] = []
    for key, choice in choices.items():
        if choice.action == "member":
            try:
                find_user(choice.user, among=among, field=FIELD)
            except ValidationError as error:
                raise _invalid(f"{key}: {' '.join(error.messages)}") from error
        if choice.action == "invite" and choice.invitation is None:
            try:
                invitation, token = invitations.create_invitation(
                    project=project,
                    role=Membership.Role.ANNOTATOR,
                    created_by=created_by,
                    email=choice.email,
                )
            except ValidationError as error:
                raise _invalid(f"{key}: {' '.join(error.messages)}") from error
            created.append((invitation, token))
            choice = AnnotatorChoice("invite", email=choice.email, invitation=invitation.pk)
        ready[key] = choice
    return ready, created


def project_members(project: Project) -> QuerySet:
    return get_user_model().objects.filter(memberships__project=project)


@dataclass
class AnnotatorResolver:
    """The user holding each source annotator's work in ``project`` (see the module
    docstring); ``None``: dropped. Writes the project's rows and placeholders."""

    project: Project
    choices: dict[str, AnnotatorChoice] = field(default_factory=dict)
    members_only: bool = False
    placeholders: list[str] = field(default_factory=list)  # usernames created here
    invited: list[str] = field(default_factory=list)  # e-mails whose work waits

    def user_for(self, source: SourceAnnotator) -> AbstractBaseUser | None:
        choice = self.choices.get(source.key) or self.choices.get(source.email.casefold())
        choice = choice or AnnotatorChoice()
        if choice.action == "drop":
            return None
        row = self._row(source)
        invitation = None
        if choice.action == "member":
            among = project_members(self.project) if self.members_only else None
            user = find_user(choice.user, among=among, field=FIELD)
        elif choice.action == "invite":
            invitation = Invitation.objects.get(pk=choice.invitation, project=self.project)
            user = invitation.accepted_by or self._invited(row, invitation, source)
        elif row is not None:
            user = row.user
            invitation = row.invitation
        else:
            user = self._matched(source) or self._placeholder(source)
        self._remember(row, source, user, invitation)
        return user

    def _row(self, source: SourceAnnotator) -> LabelStudioAnnotator | None:
        rows = LabelStudioAnnotator.objects.filter(project=self.project).select_related("user")
        if source.source_id:
            found = rows.filter(source_id=source.source_id).first()
            if found is not None:
                return found
        if source.email:
            return rows.filter(email__iexact=source.email).order_by("pk").first()
        return None

    def _remember(
        self,
        row: LabelStudioAnnotator | None,
        source: SourceAnnotator,
        user: AbstractBaseUser,
        invitation: Invitation | None,
    ) -> None:
        if row is not None and row.source_id not in ("", source.source_id):
            row = None  # the same e-mail under another Label Studio id: a row of its own
        if row is None:
            row = LabelStudioAnnotator(project=self.project)
        row.source_id = source.source_id or row.source_id
        row.email = source.email or row.email
        row.user = user
        row.invitation = invitation if invitation and invitation.accepted_at is None else None
        row.save()

    def _matched(self, source: SourceAnnotator) -> AbstractBaseUser | None:
        users = get_user_model().objects
        generated = f"ls-user-{source.source_id}" if source.source_id else ""
        if source.username:  # our own export names the platform account
            pool = project_members(self.project) if self.members_only else users
            found = pool.filter(username=source.username).first()
            if found is not None:
                return found
        if self.members_only:
            members = project_members(self.project).order_by("pk")
            names = [name for name in (source.email, generated) if name]
            return (
                source.email and members.filter(email__iexact=source.email).first()
            ) or members.filter(username__in=names).first()
        if source.email:
            found = users.filter(email__iexact=source.email).order_by("pk").first()
            if found is not None:
                return found
            user, _ = users.get_or_create(
                username=source.email[:150], defaults={"email": source.email}
            )
            return user
        user, _ = users.get_or_create(username=generated)
        return user

    def _placeholder(self, source: SourceAnnotator) -> AbstractBaseUser:
        """A new inactive account without e-mail or password, holding the work."""
        base = f"ls-user-{source.source_id}" if source.source_id else f"ls-{source.email}"
        base = base[:120]
        users = get_user_model().objects
        name, number = base, 1
        while users.filter(username__iexact=name).exists():
            number += 1
            name = f"{base}-{number}"
        user = users.model(username=name, is_active=False)
        user.set_unusable_password()
        user.save()
        self.placeholders.append(name)
        return user

    def _invited(
        self, row: LabelStudioAnnotator | None, invitation: Invitation, source: SourceAnnotator
    ) -> AbstractBaseUser:
        self.invited.append(invitation.email)
        if row is not None and row.invitation_id == invitation.pk:
            return row.user
        return self._placeholder(source)


def default_holders(
    project: Project, sources: list[SourceAnnotator], *, members_only: bool = True
) -> dict[str, dict[str, Any]]:
    """What an import without choices would do with each source annotator (reads only):
    ``{"how": "remembered"|"member"|"new", "user": username or None}`` by key."""
    resolver = AnnotatorResolver(project, members_only=members_only)
    holders: dict[str, dict[str, Any]] = {}
    for source in sources:
        row = resolver._row(source)
        if row is not None:
            pending = row.invitation_id is not None
            holders[source.key] = {
                "how": "invited" if pending else "remembered",
                "user": row.user.get_username(),
            }
            continue
        found = resolver._matched(source) if members_only else None
        holders[source.key] = {
            "how": "member" if found is not None else "new",
            "user": found.get_username() if found is not None else None,
        }
    return holders
