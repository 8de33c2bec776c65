"""A published gold version as a task of an evaluation harness (``manage.py export_harness``).

Both targets write the same data files into the folder (new or empty):

- ``units.jsonl``: one sample per sentence of the version's documents, in document and
  sentence order: ``id`` ("<document>-<unit>"), ``document`` (its id here), ``unit`` (the
  sentence's index), ``sentence``, ``text``, ``prompt`` (the stored variant filled as the
  platform fills it for a run), ``target`` (the sentence's gold answer, for reading logs)
  and how the platform reads the output (``variant``, ``parser``, ``answer``: the harness's
  logs carry them back to ``import_run``);
- ``gold.jsonl``: one document a line: ``id``, ``external_id``, ``text``, ``units`` (its
  sentences) and ``spans`` (``[start, end, [alternative labels]]``, "no fallacy" among them
  when it is an alternative);
- ``scoring.json``: what the scoring library needs to score as the platform does (the
  variant's parser, whether the answer follows reasoning, the taxonomy's levels) and where
  the task came from (project, gold version, variant, decoding).

``lm-eval`` adds ``<task>.yaml`` and ``utils.py``; ``inspect`` adds ``<task>.py``; both a
``README.md`` saying how to run it. Prompts are at level 2 (fallacy types).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.utils import timezone

from annotations.models import GoldSpan, GoldStandard
from evaluation.backends.base import GenerationParams
from evaluation.benchmarks import get_task
from evaluation.models import PromptVariant
from evaluation.runs.prompts import example_pool, gold_documents, task_labels
from evaluation.runs.stored import is_mafalda_taxonomy, taxonomy_mapping
from evaluation.scoring.harness import GOLD_FILE, SCORING_FILE

TARGETS: tuple[str, ...] = ("lm-eval", "inspect")
UNITS_FILE = "units.jsonl"
LEVEL = 2
TEMPLATES = Path(__file__).resolve().parent / "templates"


class HarnessExportError(ValueError):
    """The export cannot be written (folder not empty, variant of another task...)."""


@dataclass(frozen=True)
class HarnessExport:
    folder: Path
    task: str
    files: tuple[str, ...]
    documents: int
    units: int


def default_task_name(gold_standard: GoldStandard) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", gold_standard.project.name.lower()).strip("_")
    return f"mafalda_{slug or 'project'}_v{gold_standard.version}"


def _units(gold_standard: GoldStandard, variant: PromptVariant) -> list[dict[str, Any]]:
    """Every sentence's sample, with the prompt a platform run of ``variant`` sends."""
    spec = variant.spec()
    documents = gold_documents(gold_standard)
    pool = example_pool(gold_standard, documents, LEVEL)
    examples = pool if spec.kind == "few-shot" else ()
    targets = {(example.document_id, example.unit): example.answer for example in pool}
    texts = {document.id: document.text for document in documents}
    reading = {"variant": f"{variant.name} v{variant.version}", **_reading(variant)}
    prompts = get_task(variant.task).prompts(
        documents,
        labels=task_labels(gold_standard, LEVEL),
        variant=spec,
        level=LEVEL,
        examples=examples,
    )
    return [
        {
            "id": f"{prompt.document_id}-{prompt.unit_index}",
            "document": prompt.document_id,
            "unit": prompt.unit_index,
            "sentence": prompt.unit_text,
            "text": texts[prompt.document_id],
            "prompt": prompt.prompt,
            "target": targets.get((prompt.document_id, prompt.unit_text), ""),
            **reading,
        }
        for prompt in prompts
    ]


def _reading(variant: PromptVariant) -> dict[str, str]:
    """How the platform reads the variant's outputs: its parser, and whether the answer
    follows reasoning (chain of thought)."""
    answer = "reasoning" if variant.kind == "chain-of-thought" else "output"
    return {"parser": variant.parser, "answer": answer}


def _gold(gold_standard: GoldStandard) -> list[dict[str, Any]]:
    """The version's documents with their sentences and gold spans (creation order)."""
    spans: dict[int, list[list[Any]]] = {}
    rows = GoldSpan.objects.filter(gold_standard=gold_standard).order_by("id")
    for document_id, start, end, labels in rows.values_list(
        "document_id", "start", "end", "labels"
    ):
        spans.setdefault(document_id, []).append([start, end, list(labels)])
    external = dict(gold_standard.documents.values_list("id", "external_id"))
    return [
        {
            "id": document.id,
            "external_id": external.get(document.id) or "",
            "text": document.text,
            "units": list(document.units),
            "spans": spans.get(document.id, []),
        }
        for document in gold_documents(gold_standard)
    ]


def _scoring(gold_standard: GoldStandard, variant: PromptVariant, task: str) -> dict[str, Any]:
    taxonomy = gold_standard.project.taxonomy
    mapping = taxonomy_mapping(taxonomy)
    decoding = dict(variant.decoding or {})
    return {
        **_reading(variant),
        "taxonomy": {
            "name": mapping.name,
            "type_to_category": dict(mapping.type_to_category),
            "aliases": dict(mapping.aliases),
            "mafalda": is_mafalda_taxonomy(taxonomy),
        },
        "source": {
            "task": task,
            "project": gold_standard.project.name,
            "gold_version": gold_standard.version,
            "variant": {"name": variant.name, "version": variant.version, "kind": variant.kind},
            "level": LEVEL,
            "max_new_tokens": int(
                decoding.get("max_new_tokens") or GenerationParams().max_new_tokens
            ),
            "exported_at": timezone.now().isoformat(),
        },
    }


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as stream:
        for record in records:
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")


def _fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace(f"@{key}@", value)
    return template


def _harness_files(target: str, folder: Path, task: str, scoring: dict[str, Any]) -> list[str]:
    """The target's own files: the task definition and how to run it."""
    values = {
        "TASK": task,
        "MAX_NEW_TOKENS": str(scoring["source"]["max_new_tokens"]),
        "PROJECT": scoring["source"]["project"],
        "GOLD_VERSION": str(scoring["source"]["gold_version"]),
        "VARIANT": "{name} v{version}".format(**scoring["source"]["variant"]),
    }
    if target == "lm-eval":
        names = [f"{task}.yaml", "utils.py", "README.md"]
        sources = ["lm_eval_task.yaml", "lm_eval_utils.py", "lm_eval_README.md"]
    else:
        names = [f"{task}.py", "README.md"]
        sources = ["inspect_task.py", "inspect_README.md"]
    for name, source in zip(names, sources, strict=True):
        text = (TEMPLATES / source).read_text(encoding="utf-8")
        (folder / name).write_text(_fill(text, values), encoding="utf-8")
    return names


def export_harness(
    *, gold_standard: GoldStandard, variant: PromptVariant, target: str, folder: Path, task: str
) -> HarnessExport:
    """Write the task folder (see the module docstring); ``HarnessExportError`` when the
    folder holds files, the target is unknown or the variant is not a MAFALDA one."""
    if target not in TARGETS:
        raise HarnessExportError(f"--to: must be one of {', '.join(TARGETS)}, not {target!r}")
    if variant.task != "mafalda":
        raise HarnessExportError(
            f"variant {variant}: a {variant.task!r} variant; span gold versions run the "
            "mafalda task"
        )
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", task):
        raise HarnessExportError(f"--task: {task!r} is not a name (letters, digits, _)")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise HarnessExportError(f"{folder}: exists and is not an empty folder")
    units = _units(gold_standard, variant)
    gold = _gold(gold_standard)
    scoring = _scoring(gold_standard, variant, task)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        _write_jsonl(folder / UNITS_FILE, units)
        _write_jsonl(folder / GOLD_FILE, gold)
        (folder / SCORING_FILE).write_text(json.dumps(scoring, indent=2), encoding="utf-8")
        files = [
            UNITS_FILE,
            GOLD_FILE,
            SCORING_FILE,
            *_harness_files(target, folder, task, scoring),
        ]
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return HarnessExport(folder, task, tuple(files), len(gold), len(units))
