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
- ``run_job(job_id)``: the worker's side. Prolog method: (1) the model is asked for ``n``
  facts given the rule's predicates, clauses and examples; (2) ``parse_facts`` keeps the
  ground facts of the declared predicates (the rest rejected and counted by reason, never
  consulted); (3) ``satisfying`` keeps the query's distinct solutions; (4) the model writes
  one sentence per solution; (5) the fidelity judge (the stored ``judge-fidelity`` variant,
  its repeats, temperature 0) rates each; (6) each sentence becomes an item of the project,
  its gold the intended type. Direct method: one request for ``n`` sentences from the
  definition and the examples, then (5) and (6). Every request goes through the
  ``GenerationCache`` (same key as the runs': backend, model, weights, prompt, decoding),
  so an identical second job sends none.
"""

from __future__ import annotations

import logging
import re
import statistics
import time
from collections import Counter
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from fallacy_platform import dispatch
from fallacy_platform.liveness import Heartbeat

from annotations.items import FormError, parse_form
from annotations.models import Document, Project
from evaluation import queued
from evaluation.backends import (
    GenerationParams,
    GenerationRequest,
    ModelSpec,
    SettingProblem,
    failures,
    get_backend,
    request_key,
)
from evaluation.backends.registry import may_choose_any_model, resolve
from evaluation.models import (
    GeneratedItem,
    GenerationCache,
    GenerationJob,
    PrologRule,
)
from evaluation.ownership import latest_rule, resolve_variant, rules_for
from evaluation.prolog import (
    OracleError,
    RuleFile,
    RuleFileError,
    parse_rule_file,
)
from evaluation.runs.launch import LaunchError, spec_problems
from evaluation.runs.outputs import cache_results
from evaluation.synthesis.checks import check_rule_source
from evaluation.synthesis.liveness import beat_generation_job, claim_generation_job

logger = logging.getLogger(__name__)

METHODS = ("prolog", "direct")
MAX_N = 200
JUDGE_TASK, JUDGE_VARIANT = "judge-fidelity", "fidelity"
FACT_PARAMS = GenerationParams(max_new_tokens=1024, temperature=0.0)
SENTENCE_PARAMS = GenerationParams(max_new_tokens=160, temperature=0.0)


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


def _ranked_field(project: Project) -> tuple[str | None, str | None]:
    """The names of the project's ranked (types) and detection fields."""
    try:
        form = parse_form(project.form)
    except FormError:
        return None, None
    ranked = [f.name for f in form.of_kind("ranked")]
    detection = [f.name for f in form.of_kind("detection")]
    return (ranked[0] if ranked else None), (detection[0] if detection else None)


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
    if not (project_name or "").strip():
        problems.append(SettingProblem("project", "a project name is required"))
    elif project is not None:
        if project.kind != "items":
            problems.append(
                SettingProblem("project", f"{project.name!r} is a {project.kind} project")
            )
        elif _ranked_field(project)[0] is None:
            problems.append(
                SettingProblem(
                    "project", f"{project.name!r} has no ranked field (use the smartypat form)"
                )
            )
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


# ----------------------------------------------------------------------------------- prompts


def _predicates(rule: RuleFile) -> str:
    return "\n".join(f"- {p.name}({', '.join(p.args)}): {p.meaning}" for p in rule.facts)


def facts_prompt(rule: RuleFile, n: int) -> str:
    return (
        f'We are collecting examples of the logical fallacy "{rule.type}": {rule.description}\n\n'
        f"It is formalised in Prolog with these fact predicates:\n{_predicates(rule)}\n\n"
        f"The rule (the query is {rule.query}):\n{rule.rule_clauses.strip()}\n\n"
        f"Example facts:\n{rule.example_facts.strip()}\n\n"
        f"Write {n} new ground facts about new everyday situations, using only these "
        "predicates, one fact per line, each ending with a full stop; some should make the "
        "query true and some not. Write only the facts."
    )


def sentence_prompt(rule: RuleFile, instance: str, facts: list[str]) -> str:
    return (
        f"Write one or two short sentences, as a person might say them, that commit the "
        f'fallacy "{rule.type}" ({rule.description}). They must express exactly this '
        f"situation, given as Prolog facts:\n" + "\n".join(f"{f}." for f in facts) + "\n"
        f"which makes {instance} true. Write only the sentences."
    )


def direct_prompt(rule: RuleFile, n: int) -> str:
    return (
        f"Write {n} different short texts, one per line, as people might say them, each "
        f'committing the logical fallacy "{rule.type}": {rule.description}\n\n'
        f"Examples of such situations (as Prolog facts):\n{rule.example_facts.strip()}\n\n"
        "Write only the texts, one per line."
    )


def _instance(rule: RuleFile, bindings: dict[str, str]) -> str:
    name = rule.query.split("(", 1)[0]
    return f"{name}({', '.join(bindings.get(v, v) for v in rule.query_vars)})"


_ATOM = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[A-Za-z0-9_.\-]+")


def _supporting(facts: list[str], bindings: dict[str, str]) -> list[str]:
    """The facts that mention one of the solution's values."""
    values = set(bindings.values())
    return [f for f in facts if values & set(_ATOM.findall(f.split("(", 1)[-1]))]


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


def _sentence(raw: str) -> str:
    text = re.sub(r"<think>.*?(?:</think>|$)", "", raw, flags=re.DOTALL).strip()
    return text.strip().strip('"').strip()[:2000]


def _lines(raw: str, n: int) -> list[str]:
    out = []
    for line in _sentence(raw).splitlines():
        line = _BULLET.sub("", line).strip().strip('"').strip()
        if line and line not in out:
            out.append(line)
    return out[:n]


# ---------------------------------------------------------------------------------- running


class _Client:
    """The job's model behind the generation cache."""

    def __init__(self, job: GenerationJob) -> None:
        self.job = job
        self.spec = ModelSpec(job.backend, job.model_name, dict(job.backend_settings))
        self.cls = get_backend(job.backend)
        self._loaded: tuple[ModelSpec, str] | None = None
        self._backends: dict[GenerationParams, Any] = {}
        self.sent = self.cached = 0

    @property
    def loaded(self) -> tuple[ModelSpec, str]:
        """What the backend loads (a registered name resolved to its files) and its weights'
        fingerprint; a job whose model or settings its launcher may not choose is refused
        here (``BackendError``), before any model file is read."""
        if self._loaded is None:
            job = self.job
            operator = may_choose_any_model(job.created_by)
            spec = resolve(self.spec, operator=operator, project=job.project)
            self._loaded = spec, self.cls.fingerprint(spec)
        return self._loaded

    def ask(self, prompts: list[str], params: GenerationParams) -> list[str]:
        loaded, fingerprint = self.loaded
        keys = [
            request_key(
                backend=self.spec.backend,
                model=self.spec.model,
                fingerprint=fingerprint,
                prompt=prompt,
                guided_labels=(),
                params=params,
            )
            for prompt in prompts
        ]
        found = dict(GenerationCache.objects.filter(key__in=keys).values_list("key", "output"))
        self.cached += sum(1 for key in keys if key in found)
        missing = {key: p for key, p in zip(keys, prompts, strict=True) if key not in found}
        if missing:
            backend = self._backends.get(params)
            if backend is None:
                backend = self._backends[params] = self.cls(loaded, params)
            requests = [GenerationRequest(key=k, prompt=p) for k, p in missing.items()]
            for batch in backend.generate(requests):
                cache_results(results=batch, backend=self.spec.backend, model_name=self.spec.model)
                self.sent += len(batch)
                found.update({r.key: r.output for r in batch})
        return [found[key] for key in keys]

    def close(self) -> None:
        for backend in self._backends.values():
            backend.close()


def run_job(job_id: int) -> GenerationJob:
    """Run one queued job (in the worker), writing its heartbeat meanwhile; a failure is
    recorded on the job. A job that is not queued (live elsewhere, finished, failed) is
    left as it is, unless its worker died (``synthesis.liveness``)."""
    if not claim_generation_job(job_id=job_id):
        return GenerationJob.objects.get(pk=job_id)
    job = GenerationJob.objects.select_related("rule", "judge_variant", "project").get(pk=job_id)
    client = _Client(job)
    with Heartbeat(lambda: beat_generation_job(job_id=job_id)):
        try:
            _run(job, client)
            job.status = GenerationJob.Status.DONE
        except Exception as error:  # recorded (its class only), the worker goes on
            logger.exception("generation job %s failed", job_id)
            job.status, job.error = GenerationJob.Status.FAILED, _job_error(error)
        finally:
            client.close()
    job.requests_sent, job.from_cache = client.sent, client.cached
    job.report = {**job.report, "requests": {"sent": client.sent, "from_cache": client.cached}}
    job.finished_at = timezone.now()
    job.save()
    return job


def _job_error(error: Exception) -> str:
    """A failed job's error as its project's admins read it: a Prolog limit as it names
    itself, else the class of failure (``failures``), never a server's answer or a path."""
    if isinstance(error, OracleError) and error.kind in ("time", "memory", "output"):
        return f"the Prolog check stopped: {error}"
    return failures.public_message(error, default="the generation failed")


def _stage(job: GenerationJob, stage: str) -> None:
    """Where a running job is (``report["stage"]``, shown while it runs)."""
    job.report = {**(job.report or {}), "stage": stage}
    job.save(update_fields=["report"])


def _run(job: GenerationJob, client: _Client) -> None:
    from evaluation.prolog import parse_facts, satisfying

    rule = parse_rule_file(job.rule.source)
    _stage(job, "facts" if job.method == GenerationJob.Method.PROLOG else "sentences")
    candidates: list[tuple[str, dict[str, str], list[str]]] = []  # (sentence, bindings, facts)
    facts_report: dict[str, Any] = {}
    if job.method == GenerationJob.Method.PROLOG:
        (answer,) = client.ask([facts_prompt(rule, job.n)], FACT_PARAMS)
        parsed = parse_facts(answer, rule=rule)
        job.valid, job.rejected = len(parsed.facts), len(parsed.rejections)
        job.proposed = job.valid + job.rejected + parsed.duplicates
        job.rejections = parsed.counts()
        facts_report = {
            "proposed": job.proposed,
            "valid": job.valid,
            "rejected": job.rejected,
            "duplicates": parsed.duplicates,
            "by_reason": job.rejections,
            "rejections": [
                {"line": r.line, "code": r.code, "reason": r.reason, "text": r.text}
                for r in parsed.rejections[:50]
            ],
        }
        solutions = satisfying(rule, parsed.facts) if parsed.facts else []
        job.satisfying = len(solutions)
        job.save(update_fields=["proposed", "valid", "rejected", "rejections", "satisfying"])
        _stage(job, "sentences")
        prompts, details = [], []
        for bindings in solutions:
            support = _supporting(parsed.facts, bindings)
            prompts.append(sentence_prompt(rule, _instance(rule, bindings), support))
            details.append((bindings, support))
        for raw, (bindings, support) in zip(
            client.ask(prompts, SENTENCE_PARAMS), details, strict=True
        ):
            candidates.append((_sentence(raw), bindings, support))
    else:
        (answer,) = client.ask([direct_prompt(rule, job.n)], SENTENCE_PARAMS_DIRECT(job.n))
        candidates = [(line, {}, []) for line in _lines(answer, job.n)]
    candidates = [c for c in candidates if c[0]]
    _stage(job, "judge")
    scores = _judge(job, client, rule, candidates)
    _stage(job, "items")
    _store_items(job, rule, candidates, scores)
    flat = [s for item in scores for s in item if s is not None]
    shares = Counter(int(s) for s in flat if float(s).is_integer())
    note = ""
    if job.method == GenerationJob.Method.PROLOG and not job.valid:
        note = "the model gave no valid fact: nothing to check, no item"
    elif job.method == GenerationJob.Method.PROLOG and not job.satisfying:
        note = "no combination of the valid facts satisfies the rule: no item"
    elif not job.items_kept:
        note = "the model gave no usable sentence: no item"
    job.report = {
        "note": note,
        "type": rule.type,
        "method": job.method,
        "rule_version": job.rule.version,
        "model": f"{job.backend}:{job.model_name}",
        "n": job.n,
        "facts": facts_report,
        "satisfying": job.satisfying if job.method == "prolog" else None,
        "items": job.items_kept,
        "judge": {
            "variant": str(job.judge_variant),
            "judgements": sum(len(item) for item in scores),
            "unparseable": sum(1 for item in scores for s in item if s is None),
            "mean": statistics.fmean(flat) if flat else None,
            "share": {str(k): (shares[k] / len(flat) if flat else 0.0) for k in range(4)},
        },
    }


def SENTENCE_PARAMS_DIRECT(n: int) -> GenerationParams:  # noqa: N802 - reads as a constant
    return replace(SENTENCE_PARAMS, max_new_tokens=min(8192, 80 * n + 64))


def _judge(job, client, rule, candidates) -> list[list[int | float | None]]:
    from evaluation.benchmarks import get_task
    from evaluation.benchmarks.items import TaskItem
    from evaluation.benchmarks.judges import repeats_of

    if not candidates:
        return []
    task = get_task(JUDGE_TASK)
    spec = job.judge_variant.spec()
    repeats = repeats_of(spec)
    items = []
    for index, (sentence, bindings, support) in enumerate(candidates):
        if support:
            original = (
                f'An example of the fallacy "{rule.type}" ({rule.description}): '
                + " ".join(f"{f}." for f in support)
                + f" Hence {_instance(rule, bindings)}."
            )
        else:
            original = f'An example of the fallacy "{rule.type}": {rule.description}'
        items.append(TaskItem(id=index, text=original, candidate=sentence))
    units = list(task.prompts(items, variant=spec))
    params = GenerationParams.from_dict({**spec.settings, "temperature": 0.0})
    outputs = client.ask([u.prompt for u in units], params)
    scores: list[list[int | float | None]] = [[] for _ in candidates]
    for unit, raw in zip(units, outputs, strict=True):
        scores[unit.document_id].append(task.parse(task.answer(spec, raw)))
    assert all(len(s) == repeats for s in scores)
    return scores


@transaction.atomic
def _store_items(job, rule, candidates, scores) -> None:
    """The kept sentences as items of the project, through the documents service (so each
    has its sentences). A sentence the project already holds (an identical second job, or
    the same sentence from another job) is not added again: the item stays the earlier
    document, and the job links to it."""
    from annotations.services.documents import NewDocument, add_documents

    types_field, detection_field = _ranked_field(job.project)
    GeneratedItem.objects.filter(job=job).delete()
    gold: dict[str, Any] = {types_field: [rule.type]} if types_field else {}
    if detection_field:
        gold[detection_field] = True
    texts = [sentence for sentence, _, _ in candidates]
    existing = dict(
        Document.objects.filter(project=job.project, text__in=texts).values_list("text", "id")
    )
    new: dict[str, NewDocument] = {}
    for index, (sentence, bindings, support) in enumerate(candidates):
        if sentence in existing or sentence in new:
            continue
        new[sentence] = NewDocument(
            text=sentence,
            source=f"generation job {job.pk} ({job.method})",
            metadata={
                "format": "generated",
                "gold": gold,
                "generation": {
                    "job": job.pk,
                    "method": job.method,
                    "type": rule.type,
                    "rule_version": job.rule.version,
                    "bindings": bindings,
                    "facts": support,
                    "scores": scores[index],
                },
            },
        )
    for document in add_documents(project=job.project, texts=list(new.values())):
        existing[document.text] = document.pk
    linked: set[int] = set()
    for index, (sentence, bindings, support) in enumerate(candidates):
        document_id = existing[sentence]
        if document_id in linked:
            continue
        linked.add(document_id)
        GeneratedItem.objects.create(
            job=job,
            document_id=document_id,
            position=index,
            bindings=bindings,
            facts=support,
            scores=scores[index],
        )
    job.items_kept = len(linked)


def wait_for(job: GenerationJob, *, timeout: float = 3600, poll: float = 0.5) -> GenerationJob:
    deadline = time.monotonic() + timeout
    while job.status in (GenerationJob.Status.QUEUED, GenerationJob.Status.RUNNING):
        if time.monotonic() > deadline:
            break
        time.sleep(poll)
        job.refresh_from_db()
    return job
