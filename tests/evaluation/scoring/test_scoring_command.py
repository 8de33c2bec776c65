"""``manage.py score``: JSON and table output on the real data, errors as CommandError."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

RESULTS = "results/gpt-3.5_level_2_results.jsonl"


def run(*args: str) -> str:
    out = StringIO()
    call_command("score", *args, stdout=out)
    return out.getvalue()


def test_json_output_has_the_requested_levels(mafalda_dir: Path, mafalda_gold_path: Path):
    output = run(
        str(mafalda_gold_path),
        str(mafalda_dir / RESULTS),
        "--profile",
        "mafalda-2024",
        "--level",
        "2",
        "--format",
        "json",
        "--bootstrap",
        "0",
    )
    data = json.loads(output)
    assert (data["profile"], data["parser"], data["average"]) == ("mafalda-2024", "keyword", "text")
    assert data["texts"] == 200
    assert list(data["levels"]) == ["2"]
    assert data["levels"]["2"]["f1"] == pytest.approx(0.13754726520148275, abs=1e-12)
    assert data["unreadable_share"] == pytest.approx(5 / 940)


def test_table_output_names_the_setting(mafalda_dir: Path, mafalda_gold_path: Path):
    output = run(
        str(mafalda_gold_path),
        str(mafalda_dir / RESULTS),
        "--average",
        "corpus",
        "--parser",
        "strict",
        "--format",
        "table",
        "--bootstrap",
        "0",
    )
    assert "profile=paper" in output and "parser=strict@1" in output
    assert "average=corpus" in output
    rows = [line.split() for line in output.splitlines() if line.strip()]
    assert [row[0] for row in rows if row[0] in {"0", "1", "2"}] == ["0", "1", "2"]


def test_unknown_text_is_a_command_error_naming_the_line(tmp_path: Path, mafalda_gold_path: Path):
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"text": "not a gold text", "labels": []}) + "\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"pred.jsonl:1: text not found"):
        run(str(mafalda_gold_path), str(pred))
