"""The worker's side of Prolog-checked generation (``run_job``, queued by
``synthesis.services.launch_generation``).

Prolog method: (1) the model is asked for ``n`` facts given the rule's predicates, clauses
and examples; (2) ``parse_facts`` keeps the ground facts of the declared predicates (the rest
rejected and counted by reason, never consulted); (3) ``satisfying`` keeps the query's
distinct solutions; (4) the model writes one sentence per solution; (5) the fidelity judge
(the stored ``judge-fidelity`` variant, its repeats, temperature 0) rates each; (6) each
sentence becomes an item of the project, its gold the intended type. Direct method: one
request for ``n`` sentences from the definition and the examples, then (5) and (6). Every
request goes through the ``GenerationCache`` (same key as the runs': backend, model,
weights, prompt, decoding), so an identical second job sends none.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections import Counter
from dataclasses import replace
from typing import Any

from django.db import transaction
from django.utils import timezone
from fallacy_platform.liveness import Heartbeat

from annotations.models import Document
from evaluation.backends import (
    GenerationParams,
    GenerationRequest,
    ModelSpec,
    failures,
    get_backend,
    request_key,
)
from evaluation.backends.registry import may_choose_any_model, resolve
from evaluation.models import GeneratedItem, GenerationCache, GenerationJob
from evaluation.prolog import OracleError, RuleFile, parse_rule_file
from evaluation.runs.outputs import cache_results
from evaluation.synthesis.liveness import beat_generation_job, claim_generation_job
from evaluation.synthesis.prompts import (
    clean_sentence,
    direct_prompt,
    facts_prompt,
    query_instance,
    sentence_lines,
    sentence_prompt,
    supporting_facts,
)
from evaluation.synthesis.services import JUDGE_TASK, ranked_fields

logger = logging.getLogger(__name__)

FACT_PARAMS = GenerationParams(max_new_tokens=1024, temperature=0.0)
SENTENCE_PARAMS = GenerationParams(max_new_tokens=160, temperature=0.0)


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


Candidate = tuple[str, dict[str, str], list[str]]  # (sentence, bindings, supporting facts)


def _run(job: GenerationJob, client: _Client) -> None:
    rule = parse_rule_file(job.rule.source)
    _stage(job, "facts" if job.method == GenerationJob.Method.PROLOG else "sentences")
    facts_report: dict[str, Any] = {}
    if job.method == GenerationJob.Method.PROLOG:
        candidates, facts_report = _prolog_candidates(job, client, rule)
    else:
        (answer,) = client.ask([direct_prompt(rule, job.n)], SENTENCE_PARAMS_DIRECT(job.n))
        candidates = [(line, {}, []) for line in sentence_lines(answer, job.n)]
    candidates = [c for c in candidates if c[0]]
    _stage(job, "judge")
    scores = _judge(job, client, rule, candidates)
    _stage(job, "items")
    _store_items(job, rule, candidates, scores)
    job.report = _report(job, rule, facts_report, scores)


def _prolog_candidates(
    job: GenerationJob, client: _Client, rule: RuleFile
) -> tuple[list[Candidate], dict[str, Any]]:
    """Steps (1) to (4): the model's facts, those the parser keeps, the query's solutions and
    one sentence per solution; the counts are stored on the job as they are known."""
    from evaluation.prolog import parse_facts, satisfying

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
        support = supporting_facts(parsed.facts, bindings)
        prompts.append(sentence_prompt(rule, query_instance(rule, bindings), support))
        details.append((bindings, support))
    answers = client.ask(prompts, SENTENCE_PARAMS)
    candidates = [
        (clean_sentence(raw), bindings, support)
        for raw, (bindings, support) in zip(answers, details, strict=True)
    ]
    return candidates, facts_report


def _report(
    job: GenerationJob,
    rule: RuleFile,
    facts_report: dict[str, Any],
    scores: list[list[int | float | None]],
) -> dict[str, Any]:
    """The finished job's report: a note when it kept no item, the counts and the judge's
    figures."""
    flat = [s for item in scores for s in item if s is not None]
    shares = Counter(int(s) for s in flat if float(s).is_integer())
    note = ""
    if job.method == GenerationJob.Method.PROLOG and not job.valid:
        note = "the model gave no valid fact: nothing to check, no item"
    elif job.method == GenerationJob.Method.PROLOG and not job.satisfying:
        note = "no combination of the valid facts satisfies the rule: no item"
    elif not job.items_kept:
        note = "the model gave no usable sentence: no item"
    return {
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


def _judge(
    job: GenerationJob, client: _Client, rule: RuleFile, candidates: list[Candidate]
) -> list[list[int | float | None]]:
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
                + f" Hence {query_instance(rule, bindings)}."
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
def _store_items(
    job: GenerationJob,
    rule: RuleFile,
    candidates: list[Candidate],
    scores: list[list[int | float | None]],
) -> None:
    """The kept sentences as items of the project, through the documents service (so each
    has its sentences). A sentence the project already holds (an identical second job, or
    the same sentence from another job) is not added again: the item stays the earlier
    document, and the job links to it."""
    from annotations.services.documents import NewDocument, add_documents

    types_field, detection_field = ranked_fields(job.project)
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
