"""The scorer installs on its own (``pip install ./evaluation/scoring``) in a fresh virtual
environment without Django, and scores as the platform does."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from evaluation.scoring import (
    Corpus,
    Predictions,
    TextGold,
    TextPrediction,
    published_mafalda_mapping,
    score,
)
from evaluation.scoring.items import score_answers
from tests.support.paths import ROOT

TEXT = "You are wrong because you are stupid. So everyone should vote for me. The end."
GOLD = [[0, 37, "ad hominem"], [0, 37, "nothing"], [38, 69, "ad populum"]]
SENTENCES = [
    ["You are wrong because you are stupid.", "Ad hominem"],
    ["So everyone should vote for me.", "I cannot tell."],
    ["The end.", "No fallacy."],
]
DETECTION = ([True, False, True, False], [True, True, None, False])
# Runs in the library's virtual environment: the same inputs, the reports as JSON.
SCRIPT = """
import importlib.util, json, sys
from fallacy_scoring import Corpus, Predictions, TextGold, TextPrediction, score
from fallacy_scoring.items import score_answers
import fallacy_scoring.harness  # the harnesses' exported tasks score through it
text, gold, sentences, (golds, answers) = json.loads(sys.argv[1])
prediction = TextPrediction.from_sentences(text, dict(sentences))
report = score(Corpus([TextGold.from_triples(text, gold)]), Predictions([prediction]),
               parser="keyword")
print(json.dumps({
    "spans": report.to_dict(),
    "items": score_answers("detection", golds, answers, labels=[]),
    "django": importlib.util.find_spec("django") is not None,
}))
"""


def platform_reports() -> dict:
    prediction = TextPrediction.from_sentences(TEXT, dict(SENTENCES))
    # without the platform's taxonomy preset the library maps levels by the published table
    report = score(
        Corpus([TextGold.from_triples(TEXT, GOLD)]),
        Predictions([prediction]),
        parser="keyword",
        mapping=published_mafalda_mapping(),
    )
    return {
        "spans": json.loads(json.dumps(report.to_dict())),
        "items": json.loads(json.dumps(score_answers("detection", *DETECTION, labels=[]))),
        "django": False,
    }


@pytest.mark.slow
def test_the_scorer_installs_alone_without_django_and_scores_as_the_platform(
    tmp_path: Path,
) -> None:
    source = tmp_path / "scoring"  # a copy: pip builds in the source folder
    shutil.copytree(
        ROOT / "evaluation" / "scoring", source, ignore=shutil.ignore_patterns("__pycache__")
    )
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format", "json"], capture_output=True, text=True
    )
    installed = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "fallacy-scoring" in installed and "django" not in installed

    arguments = json.dumps([TEXT, GOLD, SENTENCES, DETECTION])
    result = subprocess.run(
        [python, "-c", SCRIPT, arguments], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    alone = json.loads(result.stdout)
    assert alone["spans"]["levels"]["2"]["f1"] < 1.0  # the ad populum sentence is missed
    assert alone == platform_reports()
    assert sys.executable != str(python)
