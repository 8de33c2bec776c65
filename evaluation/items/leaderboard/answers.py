"""What a results cell was scored from: per item, the answer key and the answer given.

An ``Answers`` holds one field's items (document ids in project order), their golds, the
predictions (a model run's stored parsed outputs, ``RunOutput.parsed_labels`` of its first
unit; an annotator's responses), each item's option keys and reference text, and the
unparseable policy. From it the leaderboard recomputes a report on a subset of the items
(``restricted(...).report(profile)``) and the per-item units of the paired tests
(``units``), through the item scorer (``scoring.item_scorer``, as the run's stored reports
are); nothing is written.

Subsets (``parse_subset``): ``KEY=VALUE`` keeps the items whose metadata (a top-level key,
else a column of the imported record, ``metadata["record"]``) has that value, compared as
text ignoring case and surrounding spaces (``split=bench``); ``gold=fallacious`` and
``gold=sound`` keep the items whose answer key says so (a detection gold ``true``/``false``,
else a ranked gold with / without labels). ``subset_options`` lists what a project offers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from annotations.items import Form, FormField
from annotations.models import Document, Project
from evaluation.items.runs import covered_items, field_labels, project_items
from evaluation.models import ModelRun, RunOutput
from evaluation.scoring.core import ScoringInputError
from evaluation.scoring.item_profiles import scores_item
from evaluation.scoring.item_scorer import ItemGold, ItemPredictions, ItemScorer
from evaluation.scoring.items import RANKS
from evaluation.scoring.significance import counts_from_tp_fp_fn

#: The profile every item field is scored with: the metric as its paper defines it.
DEFAULT_PROFILE = "definition"
#: Stored profile names read under another name (the ``items`` column holds ``definition``).
STORED_AS = {"items": DEFAULT_PROFILE}
GOLD_KINDS = ("fallacious", "sound")
#: Metrics that are a mean over items: the unit of the paired test is the one-item figure.
MEAN_METRICS = ("accuracy", "mean_s", "sum_s", "top1_accuracy", "detection_accuracy")
#: Metadata columns offered as subsets only when they take at most this many values.
MAX_SUBSET_VALUES = 12


class QueryError(ValueError):
    """A profile or subset the board cannot show (the message says what is expected)."""


def profile_name(stored: str) -> str:
    return STORED_AS.get(stored, stored)


def score_report(answers: Answers, profile: str) -> dict[str, Any]:
    """The report of ``answers`` under ``profile`` (the item scorer; no database). A profile
    other than ``definition`` reads the raw answers itself (a run's text, a person's labels),
    with the taxonomy's aliases and the gold cells as written."""
    gold = ItemGold(
        kind=answers.kind,
        golds=answers.golds,
        labels=list(answers.labels),
        options=[list(o) for o in answers.options],
        references=list(answers.references) if answers.kind == "free-text" else None,
        gold_texts=answers.gold_texts,
        aliases=dict(answers.aliases),
        ranks=answers.ranks if answers.kind == "ranked" else RANKS,
    )
    predictions = ItemPredictions(parsed=answers.predictions, raw=answers.raw)
    scorer = ItemScorer(policy=answers.policy, seed=answers.seed)
    if profile == DEFAULT_PROFILE:
        return scorer.report(gold, predictions, profile)
    try:
        return scorer.report(gold, predictions, profile)
    except TypeError as error:  # a scorer without named profiles
        raise ScoringInputError(f"profile {profile!r} cannot score {answers.kind}") from error


@dataclass(frozen=True)
class Answers:
    kind: str
    labels: tuple[str, ...]
    ids: list[int]
    golds: list[Any]
    predictions: list[Any]
    options: list[list[str]] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    policy: str = "wrong"
    seed: int = 0
    #: the answers as given (a run's raw text, a person's labels): other profiles read them
    raw: list[Any] = field(default_factory=list)
    gold_texts: list[str | None] = field(default_factory=list)
    aliases: tuple[tuple[str, str], ...] = ()
    #: a ranked field's maximum ranking length: the largest k of its top-k accuracy
    ranks: int = 3

    def scored_ids(self) -> frozenset[int]:
        return frozenset(
            i for i, gold in zip(self.ids, self.golds, strict=True) if gold is not None
        )

    def restricted(self, keep: Collection[int]) -> Answers:
        """The same answers on the items in ``keep`` (in their order here)."""
        at = [n for n, item in enumerate(self.ids) if item in keep]
        return replace(
            self,
            ids=[self.ids[n] for n in at],
            golds=[self.golds[n] for n in at],
            predictions=[self.predictions[n] for n in at],
            options=[self.options[n] for n in at] if self.options else [],
            references=[self.references[n] for n in at] if self.references else [],
            raw=[self.raw[n] for n in at] if self.raw else [],
            gold_texts=[self.gold_texts[n] for n in at] if self.gold_texts else [],
        )

    def report(self, profile: str) -> dict[str, Any]:
        return score_report(self, profile)

    def units(self, metric: str, profile: str) -> dict[int, Any] | None:
        """Per scored item id: the one-item figure of a mean metric, or the F1 counts of the
        fallacious class (``significance.counts_from_tp_fp_fn``) for a detection ``f1``
        under ``definition``; only the items the profile scores the figure over
        (``item_profiles.scores_item``); ``None`` for a figure not built from items one by one
        (macro-F1, span F1, BERTScore, an F1 with the authors' mixed denominators)."""
        pooled = metric == "f1" and self.kind == "detection" and profile == DEFAULT_PROFILE
        if metric not in MEAN_METRICS and not pooled:
            return None
        units: dict[int, Any] = {}
        golds = dict(zip(self.ids, self.golds, strict=True))
        for item in sorted(self.scored_ids()):
            if not scores_item(profile, self.kind, golds[item]):
                continue  # not one of the profile's units (authors-smartypat S: sound items)
            report = self.restricted({item}).report(profile)
            if metric == "f1":
                table = report["per_label"].get("fallacious") or {}
                support, predicted = table.get("support", 0), table.get("predicted", 0)
                tp = round(table.get("recall", 0.0) * support)
                units[item] = counts_from_tp_fp_fn(tp, predicted - tp, support - tp)
                continue
            value = report["metrics"].get(metric)
            if not isinstance(value, int | float):
                return None
            units[item] = float(value)
        return units


# --- building answers -----------------------------------------------------------------------


def run_answers(
    run: ModelRun, form_field: FormField, aliases: tuple[tuple[str, str], ...] = ()
) -> Answers:
    """A model run's answers: its items (the first ``limit``; an imported run's: those it
    has outputs for, as it is scored), stored parsed outputs and raw answers."""
    outputs = RunOutput.objects.filter(run=run, unit_index=0)
    parsed, raw = {}, {}
    for document, value, answer, text in outputs.values_list(
        "document_id", "parsed_labels", "answer", "raw_output"
    ):
        parsed[document], raw[document] = value, answer if answer is not None else text
    items = covered_items(run, project_items(run, limit=run.limit), parsed)
    variant = run.prompt_variant
    settings = variant.spec() if variant is not None else None
    return Answers(
        kind=form_field.kind,
        labels=tuple(label.name for label in field_labels(run.project, form_field)),
        ids=[item.id for item in items],
        golds=[item.gold for item in items],
        predictions=[parsed.get(item.id) for item in items],
        options=[list(item.options) for item in items],
        references=[item.reference for item in items],
        policy=settings.unparseable if settings is not None else "wrong",
        seed=settings.seed if settings is not None else 0,
        raw=[raw.get(item.id) for item in items],
        gold_texts=[(item.extra or {}).get("gold_text") for item in items],
        aliases=aliases,
        ranks=form_field.max,
    )


def human_answers(
    form_field: FormField,
    responses: Iterable[tuple[Document, dict[str, Any]]],
    labels: Iterable[str],
    aliases: tuple[tuple[str, str], ...] = (),
) -> Answers | None:
    """An annotator's answers to one field (the items they answered); ``None`` when there
    is nothing to score."""
    ids, golds, predictions, options, texts = [], [], [], [], []
    for document, response in responses:
        value = response.get(form_field.name)
        if value is None:
            continue
        metadata = document.metadata or {}
        ids.append(document.pk)
        golds.append((metadata.get("gold") or {}).get(form_field.name))
        predictions.append(value)
        options.append([str(key) for key in metadata.get("options") or {}])
        texts.append((metadata.get("gold_text") or {}).get(form_field.name))
    if not predictions or all(gold is None for gold in golds):
        return None
    return Answers(
        form_field.kind,
        tuple(labels),
        ids,
        golds,
        predictions,
        options,
        [""] * len(ids),
        raw=list(predictions),
        gold_texts=texts,
        aliases=aliases,
        ranks=form_field.max,
    )


# --- subsets --------------------------------------------------------------------------------


def parse_subset(name: str) -> tuple[str, str]:
    """``"split=bench"`` -> ``("split", "bench")``; ``QueryError`` when it is not KEY=VALUE."""
    key, sep, value = name.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise QueryError(
            f"subset {name!r}: expected KEY=VALUE, a metadata value (split=bench) "
            f"or a gold kind ({' or '.join('gold=' + kind for kind in GOLD_KINDS)})"
        )
    key, value = key.strip(), value.strip()
    if key == "gold" and value.casefold() not in GOLD_KINDS:
        raise QueryError(f"subset {name!r}: gold must be {' or '.join(GOLD_KINDS)}")
    return key, value


def gold_kind(metadata: dict[str, Any], form: Form) -> str | None:
    """``fallacious``, ``sound`` or ``None`` (the answer key does not say)."""
    gold = metadata.get("gold") or {}
    for kind in ("detection", "ranked"):
        for form_field in form.of_kind(kind):
            value = gold.get(form_field.name)
            if value is not None:
                return GOLD_KINDS[0] if bool(value) else GOLD_KINDS[1]
    return None


def _metadata_value(metadata: dict[str, Any], key: str) -> str | None:
    value = metadata.get(key)
    if value is None or isinstance(value, dict | list):
        value = (metadata.get("record") or {}).get(key)
    if value is None or isinstance(value, dict | list):
        return None
    return str(value).strip()


def subset_items(project: Project, form: Form, name: str) -> frozenset[int]:
    """The ids of the project's documents in the subset ``name`` (see the module docstring)."""
    key, value = parse_subset(name)
    wanted = value.casefold()
    found = set()
    for pk, metadata in Document.objects.filter(project=project).values_list("id", "metadata"):
        metadata = metadata or {}
        if key == "gold":
            have = gold_kind(metadata, form)
        else:
            have = _metadata_value(metadata, key)
        if have is not None and have.casefold() == wanted:
            found.add(pk)
    return frozenset(found)


def subset_options(project: Project, form: Form) -> list[dict[str, Any]]:
    """The subsets a project offers: gold kinds, and metadata columns with a few values
    shared by several items; each with its item count."""
    counts: Counter[tuple[str, str]] = Counter()
    for (metadata,) in Document.objects.filter(project=project).values_list("metadata"):
        metadata = metadata or {}
        kind = gold_kind(metadata, form)
        if kind is not None:
            counts[("gold", kind)] += 1
        keys = [k for k in metadata if k not in ("gold", "record", "options", "record_keys")]
        for key in dict.fromkeys([*keys, *(metadata.get("record") or {})]):
            value = _metadata_value(metadata, key)
            if value:
                counts[(key, value)] += 1
    per_key: dict[str, list[tuple[str, int]]] = {}
    for (key, value), count in counts.items():
        per_key.setdefault(key, []).append((value, count))
    options = []
    for key, values in per_key.items():
        few = 1 < len(values) <= MAX_SUBSET_VALUES and any(c > 1 for _, c in values)
        if key != "gold" and not few:
            continue
        for value, count in sorted(values):
            options.append({"name": f"{key}={value}", "items": count})
    return sorted(options, key=lambda o: (not o["name"].startswith("gold="), o["name"]))
