"""Human review of generated items, their published gold versions, and the report across
jobs (Prolog-checked generation).

- ``review_item(item, decision, text, by)``: accept (optionally with an edited sentence),
  reject, or set back to pending; who and when are stored on the ``GeneratedItem``.
- ``publish_release(project, note, by)``: the accepted items publish as a gold version.
  Item projects keep their answer key in ``Document.metadata["gold"]`` (read by item runs,
  the item leaderboard and the exports) and have no gold versions of their own, so a
  release is a new item project (same form, taxonomy and members) holding every item
  accepted so far (the reviewer's sentence when edited), gold = the intended type; a
  ``GenerationRelease`` row numbers it. The working project is left as it is.
- ``generation_report(jobs)``: per fallacy type and method, across jobs: mean judge score
  and the share of scores 0/1/2/3 (SmartyPat's Table 5 / Figure 3), facts proposed / valid /
  rejected (by reason), solutions, items, and the reviewers' acceptance rate.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotations.models import Membership, Project
from evaluation.models import GeneratedItem, GenerationJob, GenerationRelease

DECISIONS = {"accept": "accepted", "reject": "rejected", "pending": "pending"}
MAX_TEXT = 2000


class ReviewError(ValueError):
    """A review refused; ``field`` names the request field."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


class NothingToRelease(ValueError):
    """No accepted item to publish."""


def item_text(item: GeneratedItem) -> str:
    """The item's sentence as it will be published (the reviewer's edit, if any)."""
    return item.edited_text or item.document.text


def review_item(
    item: GeneratedItem, *, decision: str, text: str | None = None, by: Any = None
) -> GeneratedItem:
    if decision not in DECISIONS:
        raise ReviewError("decision", f"{decision!r} is not one of {', '.join(DECISIONS)}")
    edited = item.edited_text
    if text is not None:
        text = text.strip()
        if not text:
            raise ReviewError("text", "the sentence cannot be empty")
        if len(text) > MAX_TEXT:
            raise ReviewError("text", f"at most {MAX_TEXT} characters")
        if decision != "accept":
            raise ReviewError("text", "an edited sentence is accepted with it (decision accept)")
        edited = "" if text == item.document.text else text
    item.review = DECISIONS[decision]
    item.edited_text = edited
    item.reviewed_by = by if getattr(by, "is_authenticated", False) else None
    item.reviewed_at = timezone.now() if decision != "pending" else None
    item.save(update_fields=["review", "edited_text", "reviewed_by", "reviewed_at"])
    return item


def _release_name(project: Project, version: int) -> str:
    suffix = f" · generated gold v{version}"
    base = project.name[: 120 - len(suffix) - 4] + suffix
    name, number = base, 2
    while Project.objects.filter(name=name).exists():
        name, number = f"{base} ({number})", number + 1
    return name


def _release_metadata(
    item: GeneratedItem, types_field: str | None, detection_field: str | None
) -> dict[str, Any]:
    """A released item's metadata: its gold (the item's own, else the intended type in the
    types field and True in the detection field) and its generation, with the review."""
    metadata = dict(item.document.metadata or {})
    gold = metadata.get("gold") or {}
    if not gold:
        gold = {types_field: [item.job.rule.type]} if types_field else {}
        if detection_field:
            gold[detection_field] = True
    return {
        "format": "generated",
        "gold": gold,
        "generation": {
            **(metadata.get("generation") or {}),
            "item": item.pk,
            "review": {
                "by": item.reviewed_by.username if item.reviewed_by else None,
                "at": item.reviewed_at.isoformat() if item.reviewed_at else None,
                "edited": bool(item.edited_text),
                "original": item.document.text,
            },
        },
    }


@transaction.atomic
def publish_release(*, project: Project, note: str = "", by: Any = None) -> GenerationRelease:
    from annotations.services.documents import NewDocument, add_documents
    from annotations.services.projects import create_project
    from evaluation.synthesis.services import ranked_fields

    Project.objects.select_for_update().filter(pk=project.pk).first()
    items = list(
        GeneratedItem.objects.filter(job__project=project, review="accepted")
        .select_related("document", "job__rule", "reviewed_by")
        .order_by("job_id", "position")
    )
    if not items:
        raise NothingToRelease(f"project {project.name!r} has no accepted generated item")
    version = (
        GenerationRelease.objects.filter(project=project).aggregate(top=Max("version"))["top"] or 0
    ) + 1
    user = by if getattr(by, "is_authenticated", False) else None
    gold_project = create_project(
        name=_release_name(project, version),
        taxonomy=project.taxonomy,
        kind="items",
        form=project.form,
        created_by=user,
        description=f"Generated items of {project.name!r} accepted by reviewers "
        f"(release v{version}); gold: the intended type.",
    )
    for member in Membership.objects.filter(project=project).exclude(user=user):
        Membership.objects.get_or_create(
            project=gold_project, user_id=member.user_id, defaults={"role": member.role}
        )
    types_field, detection_field = ranked_fields(project)
    texts: dict[str, NewDocument] = {}
    for item in items:
        text = item_text(item)
        if text in texts:
            continue
        texts[text] = NewDocument(
            text=text,
            source=f"generation release v{version} of {project.name}",
            metadata=_release_metadata(item, types_field, detection_field),
        )
    add_documents(project=gold_project, texts=list(texts.values()))
    return GenerationRelease.objects.create(
        project=project,
        version=version,
        gold_project=gold_project,
        items=len(texts),
        note=note,
        created_by=user,
    )


def _share(scores: list[float]) -> dict[str, float]:
    counts = Counter(int(s) for s in scores if float(s).is_integer())
    return {str(k): (counts[k] / len(scores) if scores else 0.0) for k in range(4)}


def generation_report(jobs: Iterable[GenerationJob]) -> list[dict[str, Any]]:
    """One row per (type, method) over the finished jobs given (see the module docstring)."""
    jobs = [job for job in jobs if job.status == GenerationJob.Status.DONE]
    groups: dict[tuple[str, str], list[GenerationJob]] = defaultdict(list)
    for job in jobs:
        groups[(job.rule.type, job.method)].append(job)
    items_by_job: dict[int, list[GeneratedItem]] = defaultdict(list)
    for item in GeneratedItem.objects.filter(job__in=[j.pk for j in jobs]).only(
        "job", "scores", "review", "edited_text"
    ):
        items_by_job[item.job_id].append(item)
    rows = []
    for (type_name, method), group in sorted(groups.items()):
        items = [item for job in group for item in items_by_job[job.pk]]
        scores = [float(s) for item in items for s in (item.scores or []) if s is not None]
        unparseable = sum(1 for item in items for s in (item.scores or []) if s is None)
        reviews = Counter(item.review for item in items)
        edited = sum(1 for item in items if item.review == "accepted" and item.edited_text)
        decided = reviews["accepted"] + reviews["rejected"]
        by_reason: Counter[str] = Counter()
        for job in group:
            by_reason.update(job.rejections or {})
        prolog = method == GenerationJob.Method.PROLOG
        rows.append(
            {
                "type": type_name,
                "method": method,
                "jobs": len(group),
                "models": sorted({f"{job.backend}:{job.model_name}" for job in group}),
                "facts": {
                    "proposed": sum(job.proposed for job in group) if prolog else None,
                    "valid": sum(job.valid for job in group) if prolog else None,
                    "rejected": sum(job.rejected for job in group) if prolog else None,
                    "by_reason": dict(sorted(by_reason.items())),
                },
                "satisfying": sum(job.satisfying for job in group) if prolog else None,
                "items": len(items),
                "judge": {
                    "judgements": len(scores) + unparseable,
                    "unparseable": unparseable,
                    "mean": statistics.fmean(scores) if scores else None,
                    "share": _share(scores),
                },
                "review": {
                    "pending": reviews["pending"],
                    "accepted": reviews["accepted"],
                    "edited": edited,
                    "rejected": reviews["rejected"],
                    "acceptance_rate": reviews["accepted"] / decided if decided else None,
                },
            }
        )
    return rows


def report_table(rows: list[dict[str, Any]]) -> str:
    """The report as a plain-text table (``generate_fallacies --report --format table``)."""

    def num(value: Any, pattern: str = "{}") -> str:
        return "-" if value is None else pattern.format(value)

    header = (
        "type",
        "method",
        "jobs",
        "proposed",
        "valid",
        "rejected",
        "solutions",
        "items",
        "mean",
        "0",
        "1",
        "2",
        "3",
        "accepted",
    )
    lines = [header]
    for row in rows:
        share = row["judge"]["share"]
        lines.append(
            (
                row["type"],
                row["method"],
                str(row["jobs"]),
                num(row["facts"]["proposed"]),
                num(row["facts"]["valid"]),
                num(row["facts"]["rejected"]),
                num(row["satisfying"]),
                str(row["items"]),
                num(row["judge"]["mean"], "{:.2f}"),
                *(f"{share[str(k)]:.0%}" for k in range(4)),
                num(row["review"]["acceptance_rate"], "{:.0%}"),
            )
        )
    if len(lines) == 1:
        return "no finished generation job"
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )
