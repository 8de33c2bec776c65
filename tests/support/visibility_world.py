"""The randomised world (fixed seed) of tests/annotations/selectors/test_visibility_world.py:
three projects (one archived) with every kind of user (a superuser without membership, a
superuser who is an annotator member of one project, admins, reviewers, annotators, a
non-member and an anonymous visitor); documents assigned to some annotators and to none;
submitted and in-progress annotations (with a span each), some on documents no longer
assigned to their author; draft and published gold versions; a run, a generation job,
suggestions (one project assisted) and prompt variants per project. ``World`` records the
facts the oracle reasons over."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.utils import timezone

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
from evaluation.benchmarks import VARIANT_KINDS
from evaluation.models import (
    GeneratedItem,
    GenerationJob,
    ModelRun,
    PrologRule,
    PromptVariant,
    Suggestion,
    SuggestionSettings,
)

SEED = 28
ADMIN, REVIEWER, ANNOTATOR = "admin", "reviewer", "annotator"
SUBMITTED, IN_PROGRESS = "submitted", "in_progress"


@dataclass
class World:
    users: dict[str, Any] = field(default_factory=dict)  # name -> user (anonymous included)
    superusers: set[int] = field(default_factory=set)
    roles: dict[tuple[int, int], str] = field(default_factory=dict)  # (user, project) -> role
    projects: dict[int, bool] = field(default_factory=dict)  # project -> archived
    documents: dict[int, int] = field(default_factory=dict)  # document -> project
    assigned: set[tuple[int, int]] = field(default_factory=set)  # (user, document)
    annotations: dict[int, tuple[int, int, str]] = field(default_factory=dict)  # doc, user, status
    spans: dict[int, int] = field(default_factory=dict)  # span -> annotation
    gold: dict[int, int] = field(default_factory=dict)  # gold version -> project
    runs: dict[int, int] = field(default_factory=dict)
    jobs: dict[int, int] = field(default_factory=dict)
    items: dict[int, int] = field(default_factory=dict)  # generated item -> project
    assisted: set[int] = field(default_factory=set)
    suggestions: dict[int, int] = field(default_factory=dict)  # suggestion -> document
    variants: dict[int, int | None] = field(default_factory=dict)  # variant -> project|global


def _add_users(w: World) -> list[User]:
    """Two superusers, six people, an outsider and an anonymous visitor; the six people."""
    for name in ("root", "root-annotator"):
        w.users[name] = User.objects.create_superuser(name)
        w.superusers.add(w.users[name].pk)
    people = [User.objects.create_user(f"u{i}") for i in range(6)]
    w.users |= {u.username: u for u in people}
    w.users["outsider"] = User.objects.create_user("outsider")
    w.users["anonymous"] = AnonymousUser()
    return people


def _add_members(
    w: World, rng: random.Random, project: Project, people: list[User], n: int
) -> list[tuple[Any, str | None]]:
    """Every role among the people, shuffled (one a non-member); root-annotator in P0."""
    shuffled = rng.sample(people, len(people))
    roles = [ADMIN, REVIEWER, ANNOTATOR, ANNOTATOR, ANNOTATOR, None]
    members = list(zip(shuffled, roles, strict=True))
    if n == 0:
        members.append((w.users["root-annotator"], ANNOTATOR))
    for user, role in members:
        if role is not None:
            Membership.objects.create(project=project, user=user, role=role)
            w.roles[(user.pk, project.pk)] = role
    return members


def _add_project_data(
    w: World, project: Project, n: int, rule: PrologRule, variant_kind: str
) -> tuple[ModelRun, GenerationJob]:
    """A run, a generation job, a prompt variant, a draft and a published gold version;
    P0 assisted. The run and the job."""
    run = ModelRun.objects.create(project=project, name=f"run {n}")
    w.runs[run.pk] = project.pk
    job = GenerationJob.objects.create(project=project, rule=rule, backend="fake")
    w.jobs[job.pk] = project.pk
    variant = PromptVariant.objects.create(
        name=f"v{n}", kind=variant_kind, template="t", project=project
    )
    w.variants[variant.pk] = project.pk
    if n == 0:
        SuggestionSettings.objects.create(project=project, assisted=True)
        w.assisted.add(project.pk)
    for version, status in ((1, "published"), (2, "draft")):
        gold = GoldStandard.objects.create(
            project=project,
            version=version,
            status=status,
            published_at=timezone.now() if status == "published" else None,
        )
        w.gold[gold.pk] = project.pk
    return run, job


def _add_document(
    w: World,
    rng: random.Random,
    project: Project,
    name: tuple[int, int],
    *,
    run: ModelRun,
    job: GenerationJob,
    members: list[tuple[Any, str | None]],
) -> None:
    """Document ``name`` = (project number, position) with a generated item and a
    suggestion, assigned to some annotators, annotated (one span each) by some members."""
    n, d = name
    document = Document.objects.create(
        project=project, name=f"P{n}-{d}", text=f"Text {n} {d}.", position=d
    )
    w.documents[document.pk] = project.pk
    item = GeneratedItem.objects.create(job=job, document=document, position=d)
    w.items[item.pk] = project.pk
    suggestion = Suggestion.objects.create(
        run=run, document=document, unit_index=0, start=0, end=4, labels=["x"]
    )
    w.suggestions[suggestion.pk] = document.pk
    annotators = [u for u, r in members if r == ANNOTATOR]
    for user in rng.sample(annotators, rng.randint(0, 2)):
        Assignment.objects.create(document=document, annotator=user)
        w.assigned.add((user.pk, document.pk))
    for user, role in members:
        if role is None or rng.random() < 0.4:
            continue
        status = rng.choice([SUBMITTED, IN_PROGRESS])
        annotation = Annotation.objects.create(document=document, annotator=user, status=status)
        w.annotations[annotation.pk] = (document.pk, user.pk, status)
        span = Span.objects.create(annotation=annotation, start=0, end=4, labels=["x"])
        w.spans[span.pk] = annotation.pk


def build_world(seed: int = SEED) -> World:
    """Three projects (P2 archived) with members, data and documents, drawn from ``seed``."""
    rng = random.Random(seed)
    w = World()
    taxonomy = Taxonomy.objects.create(name="world", version="1", title="World")
    people = _add_users(w)
    rule = PrologRule.objects.create(type="world", source="fallacy(x).")
    variant_kind = sorted(VARIANT_KINDS)[0]
    global_variant = PromptVariant.objects.create(name="g", kind=variant_kind, template="t")
    w.variants[global_variant.pk] = None
    for n in range(3):
        archived = n == 2
        project = Project.objects.create(
            name=f"P{n}", taxonomy=taxonomy, archived_at=timezone.now() if archived else None
        )
        w.projects[project.pk] = archived
        members = _add_members(w, rng, project, people, n)
        run, job = _add_project_data(w, project, n, rule, variant_kind)
        for d in range(2 if archived else 3):
            _add_document(w, rng, project, (n, d), run=run, job=job, members=members)
    return w
