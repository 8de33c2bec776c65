"""Prolog-checked generation of fallacy items (SmartyPat) and its rule versions.

- ``save_rule_version(type, source, project, user)``: a new ``PrologRule`` version owned
  by ``project`` (``None``: global), numbered past what the project sees; refused
  (``RuleVersionError`` naming swipl's message and line, nothing written) when the file does
  not parse (``parse_rule_file``), declares another type, or gives any swipl error or
  warning while loading (``check_rule_file``, swipl in its own sandboxed process, within
  the server-wide bound on checks: ``SlotsBusy`` at once when no slot is free).
- ``launch_generation(...)``: uses the project's own newest rule file of the type and its
  own judge variant, else the global ones (``evaluation.ownership``); validates everything
  first (``LaunchError``, each problem naming its field, or the rule file's line; nothing
  created, nothing queued), then creates the job (and the project, with the SmartyPat form
  preset, when it does not exist) and queues it on the ``gpu`` queue
  (``evaluation.gpu_generate_fallacies``) once the transaction commits.
- ``run_job`` (``synthesis.generation``) is the worker's side; ``synthesis.prompts`` holds
  its prompts.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from fallacy_platform import dispatch

from annotations.items import FormError, parse_form
from annotations.models import Project
from evaluation import queued
from evaluation.backends import ModelSpec, SettingProblem
from evaluation.models import GenerationJob, PrologRule
from evaluation.ownership import latest_rule, resolve_variant, rules_for
from evaluation.prolog import OracleError, RuleFileError, parse_rule_file
from evaluation.runs.launch import LaunchError, spec_problems
from evaluation.synthesis.checks import check_rule_source

METHODS = ("prolog", "direct")
MAX_N = 200
JUDGE_TASK, JUDGE_VARIANT = "judge-fidelity", "fidelity"


class RuleVersionError(ValueError):
    """A rule file refused; ``line`` is swipl's (or the parser's) line, 0 when unknown."""

    def __init__(self, message: str, *, line: int = 0) -> None:
        self.line = line
        super().__init__(message)


# --------------------------------------------------------------------------- rule versions


def rule_problems(
    source: str, *, field: str = "source", user: AbstractBaseUser | None = None
) -> list[SettingProblem]:
    """What is wrong with a rule file: the parser's line, then every swipl message (the
    check within the server-wide bound: ``SlotsBusy`` when no slot is free)."""
    try:
        parse_rule_file(source)
    except RuleFileError as error:
        return [SettingProblem(field, str(error))]
    try:
        messages = check_rule_source(source, user=user)
    except OracleError as error:
        return [SettingProblem(field, f"swipl could not check the file: {error}")]
    return [SettingProblem(field, f"line {m.line}: swipl {m.kind}: {m.text}") for m in messages]


def save_rule_version(
    *,
    type_name: str,
    source: str,
    project: Project | None = None,
    created_by: AbstractBaseUser | None = None,
) -> PrologRule:
    """A new version of ``type_name``'s rule file (see the module docstring)."""
    try:
        parsed = parse_rule_file(source)
    except RuleFileError as error:
        raise RuleVersionError(str(error), line=error.line) from error
    if parsed.type.casefold() != type_name.strip().casefold():
        raise RuleVersionError(
            f"the file declares type {parsed.type!r}, not {type_name!r} (%! type: line)"
        )
    try:
        messages = check_rule_source(source, user=created_by)
    except OracleError as error:  # the oracle could not answer (a limit, the process)
        raise RuleVersionError(f"swipl could not check the file: {error}") from error
    if messages:
        first = messages[0]
        raise RuleVersionError(
            "; ".join(f"line {m.line}: swipl {m.kind}: {m.text}" for m in messages),
            line=first.line,
        )
    with transaction.atomic():
        current = (
            rules_for(project)
            .select_for_update()
            .filter(type__iexact=parsed.type)
            .aggregate(top=Max("version"))["top"]
        )
        return PrologRule.objects.create(
            type=parsed.type,
            version=(current or 0) + 1,
            source=source,
            project=project,
            created_by=created_by,
        )


# ------------------------------------------------------------------------------- launching


def ranked_fields(project: Project) -> tuple[str | None, str | None]:
    """The names of the project's ranked (types) and detection fields."""
    try:
        form = parse_form(project.form)
    except FormError:
        return None, None
    ranked = [f.name for f in form.of_kind("ranked")]
    detection = [f.name for f in form.of_kind("detection")]
    return (ranked[0] if ranked else None), (detection[0] if detection else None)


def _project_problems(project_name: str, project: Project | None) -> list[SettingProblem]:
    """What refuses the named project: no name, or an existing project that is not an item
    project with a ranked field (a new name is fine: the project is made)."""
    if not (project_name or "").strip():
        return [SettingProblem("project", "a project name is required")]
    if project is None:
        return []
    if project.kind != "items":
        return [SettingProblem("project", f"{project.name!r} is a {project.kind} project")]
    if ranked_fields(project)[0] is None:
        return [
            SettingProblem(
                "project", f"{project.name!r} has no ranked field (use the smartypat form)"
            )
        ]
    return []


def launch_generation(
    *,
    project_name: str,
    type_name: str,
    model: ModelSpec,
    n: int = 20,
    method: str = "prolog",
    created_by: AbstractBaseUser | None = None,
    enqueue: bool = True,
) -> GenerationJob:
    problems: list[SettingProblem] = []
    project = Project.objects.filter(name=project_name).first()
    rule = latest_rule(project, type_name or "")
    if rule is None:
        known = ", ".join(sorted(set(rules_for(project).values_list("type", flat=True))))
        problems.append(SettingProblem("type", f"no rule file for {type_name!r} (types: {known})"))
    else:
        field = f"rule {rule.type!r} v{rule.version}"
        problems.extend(rule_problems(rule.source, field=field, user=created_by))
    if method not in METHODS:
        problems.append(SettingProblem("method", f"{method!r} is not one of {', '.join(METHODS)}"))
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        problems.append(SettingProblem("n", f"a whole number from 1 to {MAX_N}, not {n!r}"))
    stand_in = project or Project(name=project_name)  # the project made for a new name
    problems.extend(spec_problems(model, "model", launched_by=created_by, project=stand_in))
    problems.extend(_project_problems(project_name, project))
    judge = resolve_variant(project, JUDGE_TASK, JUDGE_VARIANT)
    if judge is None:
        problems.append(SettingProblem("judge", f"no stored {JUDGE_TASK} variant {JUDGE_VARIANT}"))
    if problems:
        raise LaunchError(problems)
    made_project = project is None
    with transaction.atomic():
        if project is None:
            project = _smartypat_project(project_name, created_by)
        job = GenerationJob.objects.create(
            project=project,
            rule=rule,
            method=method,
            backend=model.backend,
            model_name=model.model,
            backend_settings=dict(model.settings),
            judge_variant=judge,
            n=n,
            created_by=created_by,
        )
        if enqueue:
            made = project.pk if made_project else None
            transaction.on_commit(lambda: _enqueue(job.pk, made_project=made))
    return job


def _smartypat_project(name: str, created_by: AbstractBaseUser | None) -> Project:
    from annotations.form_presets import get_form_preset
    from annotations.services.projects import create_project
    from annotations.services.taxonomy import install_preset

    preset = get_form_preset("smartypat")
    return create_project(
        name=name,
        taxonomy=install_preset(name=preset.taxonomy),
        kind="items",
        form=preset.form,
        created_by=created_by,
        description="Items generated by Prolog-checked generation, for review.",
    )


def _enqueue(job_id: int, *, made_project: int | None) -> None:
    """Queue the job; when the broker refuses it, the job and the project made for it are
    deleted again (nothing waits for work that will not run) and ``QueueUnavailable`` is
    raised (the API's 503)."""

    def withdraw(reason: str) -> None:
        GenerationJob.objects.filter(pk=job_id, status=GenerationJob.Status.QUEUED).delete()
        if made_project is not None:
            jobs = GenerationJob.objects.values("project")
            Project.objects.filter(pk=made_project).exclude(pk__in=jobs).delete()

    dispatch.send(queued.gpu_generate_fallacies.s(job_id), undo=withdraw)
