"""Logs of the harnesses read as per-sentence outputs (reads only, no database).

- lm-evaluation-harness ``--log_samples`` output, ``samples_<task>_<date>.jsonl``: one sample
  a line with its ``doc`` (a row of the exported ``units.jsonl``) and its output
  (``filtered_resps``, else ``resps``). The harness's version and the model come from the
  ``results_<date>.json`` written beside it, else from the version the exported metric
  logged with each sample.
- Inspect ``.eval`` logs (``inspect_ai.log.read_eval_log``): each sample's metadata (the
  unit row) and its output (``output.completion``); the version is the log's
  ``inspect_ai`` package, the model the log's. Only a finished log (status ``success``).

A sample that is not of an exported task raises ``DatasetFormatError`` naming the file, the
sample's line (lm-evaluation-harness) or position (Inspect) and the sample.
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fallacy_platform.bounded import LimitExceeded, check_archive, run_bounded

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.jsonl import iter_json_objects
from evaluation.scoring.harness import ANSWER_KINDS
from evaluation.scoring.parsers import PARSER_NAMES

LM_EVAL = "lm-eval"
INSPECT = "inspect"
FORMATS = {LM_EVAL: "lm-eval-samples", INSPECT: "inspect-eval-log"}
HARNESS_NAMES = {LM_EVAL: "lm-evaluation-harness", INSPECT: "inspect_ai"}
UNIT_KEYS = ("document", "unit", "sentence", "text", "parser", "answer")
_SAMPLES_NAME = re.compile(r"samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d.-]+)\.jsonl$")


@dataclass(frozen=True)
class LoggedSample:
    place: int  # the line (lm-evaluation-harness) or the position (Inspect), from 1
    name: str  # "sample <id>"
    document: int
    unit: int
    text: str
    sentence: str
    output: str
    parser: str
    answer: str
    variant: str = ""


@dataclass
class HarnessLog:
    harness: str  # LM_EVAL or INSPECT
    version: str
    model: str
    task: str
    samples: list[LoggedSample] = field(default_factory=list)

    @property
    def format(self) -> str:
        return FORMATS[self.harness]

    @property
    def harness_name(self) -> str:
        return HARNESS_NAMES[self.harness]


def detect(path: Path) -> str | None:
    """``lm-eval``, ``inspect``, or ``None`` (another format) by the file's name and first line."""
    if path.suffix == ".eval":
        return INSPECT
    if path.suffix != ".jsonl":
        return None
    if path.name.startswith("samples_"):
        return LM_EVAL
    with path.open(encoding="utf-8", errors="replace") as stream:
        first = next((line for line in stream if line.strip()), "")
    try:
        record = json.loads(first)
    except json.JSONDecodeError:
        return None
    return LM_EVAL if isinstance(record, dict) and {"doc", "doc_id"} <= set(record) else None


def unit_sample(row: Any, *, output: Any, file_name: str, place: int, name: str) -> LoggedSample:
    """A sample whose ``row`` (the exported unit row) and ``output`` are checked."""

    def fail(message: str) -> DatasetFormatError:
        return DatasetFormatError(file_name, place, name, message)

    if not isinstance(row, dict):
        raise fail("not a sample of a task exported by export_harness (no unit row)")
    missing = [key for key in UNIT_KEYS if key not in row]
    if missing:
        raise fail(f"not a sample of a task exported by export_harness: no {', '.join(missing)}")
    if not isinstance(row["document"], int) or not isinstance(row["unit"], int):
        raise fail("document and unit must be integers")
    if not isinstance(row["text"], str) or not isinstance(row["sentence"], str):
        raise fail("text and sentence must be strings")
    if row["parser"] not in PARSER_NAMES or row["answer"] not in ANSWER_KINDS:
        raise fail(f"unknown parser {row['parser']!r} or answer {row['answer']!r}")
    if not isinstance(output, str):
        raise fail(f"the output must be a string, not {type(output).__name__}")
    return LoggedSample(
        place,
        name,
        row["document"],
        row["unit"],
        row["text"],
        row["sentence"],
        output,
        row["parser"],
        row["answer"],
        str(row.get("variant") or ""),
    )


def _lm_eval_output(record: dict[str, Any]) -> Any:
    filtered = record.get("filtered_resps")
    if isinstance(filtered, list) and filtered and isinstance(filtered[0], str):
        return filtered[0]
    responses = record.get("resps")
    if isinstance(responses, list) and responses and isinstance(responses[0], list):
        return responses[0][0] if responses[0] else None
    return None


def _lm_eval_results(path: Path) -> dict[str, Any]:
    """The ``results_<date>.json`` written with the samples file, if it is there."""
    match = _SAMPLES_NAME.search(path.name)
    results = path.with_name(f"results_{match['date']}.json") if match else None
    if results is None or not results.is_file():
        return {}
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_lm_eval(path: Path, file_name: str) -> HarnessLog:
    results = _lm_eval_results(path)
    match = _SAMPLES_NAME.search(path.name)
    log = HarnessLog(
        LM_EVAL,
        str(results.get("lm_eval_version") or ""),
        str(results.get("model_name") or ""),
        match["task"] if match else "",
    )
    for line, record in iter_json_objects(path, file_name):
        name = f"sample {record.get('doc_id', '?')}"
        if "doc" not in record:
            raise DatasetFormatError(
                file_name, line, name, "not an lm-evaluation-harness sample (no doc)"
            )
        output = _lm_eval_output(record)
        log.samples.append(
            unit_sample(record["doc"], output=output, file_name=file_name, place=line, name=name)
        )
        logged = record.get("f1_level2")
        if not log.version and isinstance(logged, dict):
            log.version = str(logged.get("lm_eval") or "")
    return log


def _check_archive(path: Path, file_name: str) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            check_archive(archive)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        raise DatasetFormatError(file_name, 1, None, "not an Inspect log (not a .zip)") from None


def read_inspect(path: Path, file_name: str) -> HarnessLog:
    from inspect_ai.log import read_eval_log

    try:
        eval_log = read_eval_log(str(path))
    except Exception as error:  # noqa: BLE001 - any unreadable file is "not a log"
        raise DatasetFormatError(
            file_name, 1, None, f"not an Inspect log: {str(error)[:200]}"
        ) from None
    if eval_log.status != "success":
        raise DatasetFormatError(
            file_name, 1, "status", f"the log is {eval_log.status}; only a finished log imports"
        )
    spec = eval_log.eval
    log = HarnessLog(
        INSPECT,
        str((spec.packages or {}).get("inspect_ai") or ""),
        str(spec.model or ""),
        str(spec.task or ""),
    )
    for place, sample in enumerate(eval_log.samples or [], start=1):
        output = sample.output.completion if sample.output is not None else None
        log.samples.append(
            unit_sample(
                sample.metadata,
                output=output,
                file_name=file_name,
                place=place,
                name=f"sample {sample.id}",
            )
        )
    return log


def read_log(path: Path, harness: str, file_name: str | None = None) -> HarnessLog:
    """The log at ``path`` read as ``harness`` (``lm-eval`` or ``inspect``) in a bounded child
    process (``fallacy_platform.bounded``): past a limit, a ``DatasetFormatError`` naming it."""
    file_name = file_name or str(path)
    try:
        return run_bounded(f"{__name__}:read_log_here", str(path), harness, file_name)
    except LimitExceeded as error:
        raise DatasetFormatError(file_name, 1, None, str(error)) from None


def read_log_here(path: str, harness: str, file_name: str) -> HarnessLog:
    """``read_log`` in this process (the bounded child): an Inspect log's archive is checked
    (members, declared sizes) before it is read."""
    source = Path(path)
    if harness == INSPECT:
        _check_archive(source, file_name)
    reader = read_lm_eval if harness == LM_EVAL else read_inspect
    log = reader(source, file_name)
    if not log.samples:
        raise DatasetFormatError(file_name, 1, None, "the log holds no samples")
    return log
