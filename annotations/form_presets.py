"""Built-in forms of item projects (plain Python): FLUB, FLUB explanation rating, SmartyPat,
ArgBench.

A preset is a ``Project.form`` (see ``annotations.items``) with the taxonomy preset a new
project of it uses and the dataset format its items usually come in. ``form_preset(name)``
returns a fresh copy of the form JSON (callers may change it); every preset passes
``annotations.items.parse_form`` (checked by the tests).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

# FLUB's eleven raw ``type`` strings merged into the eight of its type-classification task.
# Source: the authors' scoring script, THUKElab/FLUB ``code/analysis.py``
# (``candidate_mapping``; https://github.com/THUKElab/FLUB), which maps both gold and
# predicted types before accuracy and macro-F1: 谐音 and 多音字 -> 字音错误,
# 偷换词义/字义 -> 歧义, 事实性错误 and 违反常识 -> 事实常识错误. Its eight results match the
# eight types of the paper's Fig. 2 (its ``classification_v2`` prompt names the factual type
# 事实性错误; the script scores it as 事实常识错误). This is the one table: tests and the
# importer read it through ``form_preset("flub")``.
FLUB_LABELS: tuple[str, ...] = (
    "推理错误",
    "文字游戏",
    "冷笑话",
    "悖论",
    "错误类比",
    "歧义",
    "字音错误",
    "事实常识错误",
)
FLUB_MERGE: dict[str, str] = {
    "谐音": "字音错误",
    "多音字": "字音错误",
    "偷换词义/字义": "歧义",
    "事实性错误": "事实常识错误",
    "违反常识": "事实常识错误",
}

FLUB_FORM: dict[str, Any] = {
    "fields": [
        {
            "name": "answer",
            "kind": "multiple-choice",
            "title": "Which option explains the trick of the text?",
            "help": "Pick the one option that says what is wrong or tricky about the text.",
            "skill": "selection",
        },
        {
            "name": "type",
            "kind": "classification",
            "title": "What type of cunning text is it?",
            "help": "The kind of trick the text plays (FLUB's eight merged types).",
            "skill": "classification",
            "labels": list(FLUB_LABELS),
            "merge": dict(FLUB_MERGE),
        },
        {
            "name": "explanation",
            "kind": "free-text",
            "title": "Explain the trick",
            "help": "One or two sentences on why the text is deceptive or absurd.",
            "skill": "explanation",
        },
    ],
    "aggregate": "geometric",
}

# Human rating of explanations of FLUB texts, 1-5 (FLUB's explanation task rated by people).
# Items: a FLUB text with a candidate explanation to rate (``Document.metadata["candidate"]``,
# e.g. a model's answer), imported with a column mapping. The criteria and worked examples
# are our own wording; the examples are made-up texts in FLUB's style, not FLUB items.
FLUB_RATING_FORM: dict[str, Any] = {
    "fields": [
        {
            "name": "rating",
            "kind": "rubric",
            "title": "How well does the explanation expose the trick of the text?",
            "help": (
                "Read the text, work out its trick yourself, then rate the candidate "
                "explanation from 1 to 5. Judge what it says, not how long it is."
            ),
            "min": 1,
            "max": 5,
            "criteria": {
                "5": (
                    "Names the exact trick (the pun, the swapped meaning, the bad inference, "
                    "the contradiction) and says why it misleads; nothing wrong is added."
                ),
                "4": (
                    "Finds the right trick and explains it, but loosely or with a small "
                    "inaccuracy that does not change the point."
                ),
                "3": (
                    "Points at the right place in the text but misnames the mechanism, or "
                    "explains only half of it."
                ),
                "2": (
                    "Mostly misses: treats the text as a sincere question and only hints that "
                    "something is odd, or explains a different, minor oddity."
                ),
                "1": (
                    "Falls into the trap: answers the text literally, or gives an "
                    "explanation that is wrong or unrelated."
                ),
            },
            "examples": [
                {
                    "score": 5,
                    "text": (
                        "Text: '一吨铁和一吨棉花，哪个更重？我觉得铁更重，毕竟铁那么硬。' "
                        "Explanation: 'Both weigh one tonne, so they weigh the same; the "
                        "text swaps weight for hardness (or density), which has nothing to "
                        "do with the question.'"
                    ),
                    "why": (
                        "It names the confusion exactly (weight vs hardness/density) and "
                        "shows why the conclusion does not follow."
                    ),
                },
                {
                    "score": 3,
                    "text": (
                        "Text: '老师说我的作文是病句，我该给它吃什么药？' "
                        "Explanation: 'The student misunderstands the teacher; a sentence "
                        "cannot take medicine.'"
                    ),
                    "why": (
                        "It sees that the question is absurd but never says why: 病句 means "
                        "an ungrammatical sentence, and the text reads 病 as 'ill'."
                    ),
                },
                {
                    "score": 1,
                    "text": (
                        "Text: '既然人体70%是水，那十个人里是不是有七个是水变的？' "
                        "Explanation: 'Yes, about seven in ten, since most of the body is "
                        "water.'"
                    ),
                    "why": (
                        "It accepts the trap: 70% of each body's mass is water, not 70% of "
                        "the people."
                    ),
                },
            ],
        },
    ],
    "aggregate": "macro",
}

# ``benchmark`` tells scoring which published benchmark a project of this form reproduces
# (``evaluation.items.profiles``: the ``authors-smartypat`` profile applies to it).
SMARTYPAT_FORM: dict[str, Any] = {
    "benchmark": "smartypat",
    "fields": [
        {
            "name": "types",
            "kind": "ranked",
            "title": "Which fallacies does the sentence commit?",
            "help": "Rank up to three fallacy types, the clearest first; none if it is sound.",
            "max": 3,
        },
        {
            "name": "fallacious",
            "kind": "detection",
            "title": "Is the sentence fallacious?",
            "help": "Yes if its reasoning is flawed in any way, no if it is sound.",
        },
    ],
    "aggregate": "macro",
}

ARGBENCH_FORM: dict[str, Any] = {
    "fields": [
        {
            "name": "stance",
            "kind": "classification",
            "title": "Stance",
            "help": "The position the text takes (labels from the project's taxonomy).",
        },
        {
            "name": "segments",
            "kind": "segmentation",
            "title": "Argument segments",
            "help": "Mark the claims and premises of the text by selecting their characters.",
        },
        {
            "name": "counter",
            "kind": "free-text",
            "title": "Counter-argument",
            "help": "Write a short reply that answers the text's main argument.",
        },
        {
            "name": "argumentativeness",
            "kind": "likert",
            "title": "Argumentativeness",
            "description": "How much the text argues for a position rather than just states it.",
            "anchors": {"1": "no argument at all", "5": "a clear, developed argument"},
        },
        {
            "name": "countering",
            "kind": "likert",
            "title": "Countering",
            "description": "How well the candidate reply answers the text's argument.",
            "anchors": {"1": "ignores the argument", "5": "answers it head on"},
        },
        {
            "name": "relevance",
            "kind": "likert",
            "title": "Relevance",
            "description": "How closely the candidate reply stays on the topic of the text.",
            "anchors": {"1": "off topic", "5": "entirely on topic"},
        },
        {
            "name": "quality",
            "kind": "rubric",
            "title": "Overall quality of the reply",
            "criteria": [
                "It addresses the text's actual claim, not a weaker version of it.",
                "Its reasons are stated and hang together.",
                "It is clear and civil.",
            ],
            "examples": [
                {
                    "score": 5,
                    "text": (
                        "Text: 'Cities should ban cars downtown because traffic kills.' "
                        "Reply: 'Road deaths downtown are mostly at a few crossings; "
                        "redesigning those would save the same lives while keeping "
                        "deliveries and disabled access possible.'"
                    ),
                    "why": (
                        "It accepts the concern, engages the causal claim directly and "
                        "offers a reasoned alternative in a civil tone."
                    ),
                },
                {
                    "score": 1,
                    "text": (
                        "Text: 'Cities should ban cars downtown because traffic kills.' "
                        "Reply: 'People like you just hate freedom.'"
                    ),
                    "why": (
                        "It attacks the writer instead of the argument and gives no reason at all."
                    ),
                },
            ],
        },
    ],
    "aggregate": "macro",
}


@dataclass(frozen=True)
class FormPreset:
    name: str
    title: str
    form: dict[str, Any]
    taxonomy: str  # the taxonomy preset a new project of this form uses
    format: str  # the dataset format its items come in ("items": a column mapping)


FORM_PRESETS: dict[str, FormPreset] = {
    preset.name: preset
    for preset in (
        FormPreset("flub", "FLUB (cunning texts)", FLUB_FORM, "flub", "flub"),
        FormPreset(
            "flub-rating", "FLUB explanations (1-5 rating)", FLUB_RATING_FORM, "flub", "items"
        ),
        FormPreset(
            "smartypat", "SmartyPat (fallacy types)", SMARTYPAT_FORM, "smartypat", "smartypat"
        ),
        FormPreset(
            "argbench", "ArgBench (arguments and replies)", ARGBENCH_FORM, "mafalda", "items"
        ),
    )
}


def available_form_presets() -> list[str]:
    return list(FORM_PRESETS)


def get_form_preset(name: str) -> FormPreset:
    """The preset; ``LookupError`` naming the presets when there is none."""
    key = name.strip().lower()
    if key not in FORM_PRESETS:
        raise LookupError(
            f'no form preset "{name}" (available: {", ".join(available_form_presets())})'
        )
    return FORM_PRESETS[key]


def form_preset(name: str) -> dict[str, Any]:
    """A fresh copy of the preset's form JSON."""
    return copy.deepcopy(get_form_preset(name).form)
